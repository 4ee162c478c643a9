/**
 * Builds everything a CLI mode needs from the parsed arguments: context files, skills, templates, extensions,
 * tools, the system prompt, the model and the session file, then an AgentSession with the extension hooks wired.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ThinkingLevel } from "@tiller/agent";
import type { Api, ImageContent, Model } from "@tiller/ai";
import { type AgentSession, createAgentSession, type TillerSessionEvent } from "../agent-session/index.js";
import {
  EXEC_TOOL_NAMES,
  ExecApprovals,
  ExecApprovalsError,
  execApprovalRule,
  execApprovalsPath,
} from "../approvals/index.js";
import { AuthStorage } from "../auth/auth-storage.js";
import { loadContextFiles } from "../context/context-files.js";
import { expandPromptTemplate, loadPromptTemplates, type PromptTemplate } from "../context/prompt-templates.js";
import { loadSkills, type Skill } from "../context/skills.js";
import { buildSystemPrompt } from "../context/system-prompt.js";
import { createSessionContext, sessionCommandActions } from "../extensions/context.js";
import { bindExtensionRuntime } from "../extensions/extension-runtime.js";
import { loadExtensions } from "../extensions/loader.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { InputSource, SystemPromptSources } from "../extensions/types.js";
import { createNoUIContext } from "../extensions/ui-context.js";
import { getTillerHome, getTillerPaths } from "../home.js";
import type { McpManager } from "../mcp/manager.js";
import { ModelRegistry } from "../models/model-registry.js";
import { SessionManager } from "../session/session-manager.js";
import { buildToolPipeline } from "../tools/pipeline.js";
import type { CliArgs } from "./args.js";
import { CliUsageError } from "./errors.js";
import { applyExtensionFlags } from "./extension-flags.js";
import { type McpTrustPrompt, mcpToolAllowed, startMcp, wireMcpTools } from "./mcp-setup.js";
import { createTools } from "./tools-setup.js";

export interface StartupNote {
  level: "info" | "warning" | "error";
  message: string;
}

export interface CliSetup {
  session: AgentSession;
  extensions: ExtensionRunner;
  templates: PromptTemplate[];
  skills: Skill[];
  modelRegistry: ModelRegistry;
  /** The system prompt before `before_agent_start` handlers (they get it fresh on every run). */
  baseSystemPrompt: string;
  /** What `baseSystemPrompt` was built from (`before_agent_start`'s `systemPromptOptions`, tools aside). */
  promptSources: SystemPromptSources;
  /** True when running on the offline model because nothing is configured. */
  offline: boolean;
  notes: StartupNote[];
  /** The session's MCP servers (absent when none are configured); stopped by `shutdown`. */
  mcp?: McpManager;
}

export interface SetupOptions {
  hasUI: boolean;
  /**
   * Whether someone answers approval requests (the TUI, an rpc client). False (print and json modes): exec
   * approvals apply `askFallback` at once and any other approval request is denied.
   */
  canAskApprovals?: boolean;
  notify?: (message: string, level?: "info" | "warning" | "error") => void;
  /** Asks whether untrusted project MCP servers may run (the TUI); without it they need `--trust-mcp`. */
  confirmMcpTrust?: McpTrustPrompt;
}

export const OFFLINE_NOTE =
  "no provider configured: running on the offline model (offline/tiller-offline). " +
  "Set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or add a provider to $TILLER_HOME/models.json.";

export async function setupSession(args: CliArgs, options: SetupOptions): Promise<CliSetup> {
  const cwd = process.cwd();
  const home = getTillerHome();
  const paths = getTillerPaths(home);
  const notes: StartupNote[] = [];

  const contextFiles = loadContextFiles({ cwd, tillerHome: home });
  const skillResult = loadSkills({ cwd, tillerHome: home });
  for (const d of skillResult.diagnostics) notes.push({ level: d.severity, message: `skill ${d.path}: ${d.message}` });
  const templates = loadPromptTemplates({ cwd, tillerHome: home });
  const extensions = await loadExtensions({ cwd, tillerHome: home, paths: args.extensions });
  applyExtensionFlags(args, extensions);

  const authStorage = AuthStorage.create(paths.auth);
  const modelRegistry = ModelRegistry.create(authStorage, paths.models);
  for (const e of modelRegistry.errors) notes.push({ level: "warning", message: e });
  const model = resolveModelArg(args, modelRegistry);
  const sessionManager = openSessionManager(args, cwd, home);

  let execApprovals: ExecApprovals;
  try {
    execApprovals = ExecApprovals.load(execApprovalsPath(home));
  } catch (err) {
    // A broken policy file must not silently mean "no policy": refuse to start, naming the key.
    if (err instanceof ExecApprovalsError) throw new CliUsageError(err.message);
    throw err;
  }
  for (const w of execApprovals.warnings) notes.push({ level: "warning", message: w });
  const canAsk = options.canAskApprovals === true;
  const ownTools = buildToolPipeline({
    base: await createTools(cwd, args, extensions.getTools()),
    approvals: { tools: EXEC_TOOL_NAMES, rule: execApprovalRule(execApprovals, { cwd, canAsk }) },
  });
  // MCP servers connect here, before the first model request, so their tools are in the first request.
  const mcp = await startMcp({
    cwd,
    home,
    args,
    note: (level, message) => notes.push({ level, message }),
    ...(options.confirmMcpTrust ? { confirmTrust: options.confirmMcpTrust } : {}),
  });
  const tools = mcp ? [...ownTools, ...mcp.tools().filter((t) => mcpToolAllowed(t.name, args))] : ownTools;
  const customPrompt = args.systemPrompt !== undefined ? readMaybeFile(args.systemPrompt, cwd) : undefined;
  const append = args.appendSystemPrompt !== undefined ? readMaybeFile(args.appendSystemPrompt, cwd) : undefined;
  const baseSystemPrompt = buildSystemPrompt({
    cwd,
    tools,
    contextFiles,
    skills: skillResult.skills,
    ...(customPrompt !== undefined ? { systemPrompt: customPrompt } : {}),
    ...(append !== undefined ? { appendSystemPrompt: append } : {}),
  });
  const promptSources: SystemPromptSources = {
    cwd,
    contextFiles,
    skills: skillResult.skills,
    ...(customPrompt !== undefined ? { customPrompt } : {}),
    ...(append !== undefined ? { appendSystemPrompt: append } : {}),
  };

  let created: Awaited<ReturnType<typeof createAgentSession>>;
  try {
    created = await createAgentSession({
      cwd,
      home,
      authStorage,
      modelRegistry,
      sessionManager,
      tools,
      systemPrompt: baseSystemPrompt,
      ...(model ? { model } : {}),
      ...(args.thinking ? { thinkingLevel: args.thinking as ThinkingLevel } : {}),
      ...(args.apiKey ? { apiKey: args.apiKey } : {}),
    });
  } catch (err) {
    await mcp?.stop(); // no server outlives a session that failed to open
    throw err;
  }
  const { session, modelFallbackMessage } = created;
  if (modelFallbackMessage) notes.push({ level: "warning", message: modelFallbackMessage });
  const offline = session.model.provider === "offline" && !model;
  if (offline) notes.push({ level: "info", message: OFFLINE_NOTE });

  wireExtensions(session, extensions, cwd, options);
  if (mcp) {
    const notify = options.notify ?? ((m: string, level = "info") => process.stderr.write(`[${level}] ${m}\n`));
    wireMcpTools(session, mcp, ownTools, args, notify);
  }
  wireApprovals(session, execApprovals, canAsk, options);
  await extensions.emit({
    type: "session_start",
    reason: args.continue || args.session || args.resume ? "resume" : "startup",
    sessionId: session.sessionId,
  });
  return {
    session,
    extensions,
    templates,
    skills: skillResult.skills,
    modelRegistry,
    baseSystemPrompt,
    promptSources,
    offline,
    notes,
    ...(mcp ? { mcp } : {}),
  };
}

/** Persists exec `allow-always` decisions; without anyone to ask, denies every other approval request at once. */
function wireApprovals(session: AgentSession, approvals: ExecApprovals, canAsk: boolean, options: SetupOptions): void {
  const notify = options.notify ?? ((m, level = "info") => process.stderr.write(`[${level}] ${m}\n`));
  // Every event: the approval events are Tiller's, a plain listener does not get them.
  const onEvent = (event: TillerSessionEvent): void => {
    if (event.type === "tool_approval_end") {
      try {
        const added = approvals.onAgentEvent(event);
        if (added.length > 0) notify(`allowlisted in ${approvals.path}: ${added.join(", ")}`, "info");
      } catch (err) {
        notify(`could not update ${approvals.path}: ${err instanceof Error ? err.message : String(err)}`, "error");
      }
    } else if (event.type === "tool_approval_request" && !canAsk) {
      try {
        session.agent.resolveApproval(event.approval.id, "deny", {
          by: "tiller",
          reason: "nobody can be asked in this mode",
        });
      } catch {
        // The request does not offer "deny": it waits for its timeout or an abort.
      }
    }
  };
  session.subscribe(onEvent, { tillerEvents: true });
}

/** `--model provider/id`, `--model id [--provider p]`, or `--provider p` alone (its first model). */
export function resolveModelArg(args: CliArgs, registry: ModelRegistry): Model<Api> | undefined {
  if (!args.model && !args.provider) return undefined;
  const all = registry.getAll();
  let provider = args.provider;
  let id = args.model;
  if (id && !provider && id.includes("/")) {
    const slash = id.indexOf("/");
    const maybeProvider = id.slice(0, slash);
    if (all.some((m) => m.provider === maybeProvider)) {
      provider = maybeProvider;
      id = id.slice(slash + 1);
    }
  }
  if (provider && !all.some((m) => m.provider === provider)) {
    throw new CliUsageError(`unknown provider "${provider}" (see tiller --list-models)`);
  }
  const found = id
    ? all.find((m) => m.id === id && (!provider || m.provider === provider))
    : all.find((m) => m.provider === provider);
  if (!found) {
    throw new CliUsageError(
      `unknown model "${id}"${provider ? ` for provider "${provider}"` : ""} (see tiller --list-models)`,
    );
  }
  return found;
}

function openSessionManager(args: CliArgs, cwd: string, home: string): SessionManager {
  if (args.noSession) return SessionManager.inMemory(cwd);
  if (args.continue) return SessionManager.continueRecent(cwd, { home });
  if (args.session) {
    const asPath = resolve(cwd, args.session);
    if (existsSync(asPath)) return SessionManager.open(asPath);
    const match = SessionManager.listAll(home).find((s) => s.id === args.session || s.id.startsWith(args.session!));
    if (!match) throw new CliUsageError(`no session "${args.session}" (not a file, not a session id)`);
    return SessionManager.open(match.path);
  }
  return SessionManager.create(cwd, { home });
}

/** `--system-prompt` accepts text or a path to a file holding it. */
function readMaybeFile(value: string, cwd: string): string {
  if (value.length > 4096 || value.includes("\n")) return value;
  const p = resolve(cwd, value);
  try {
    return existsSync(p) ? readFileSync(p, "utf8") : value;
  } catch {
    return value;
  }
}

/** Hooks `runner` into `session`: its context, tool hooks, context transform and agent events. */
export function wireExtensions(
  session: AgentSession,
  runner: ExtensionRunner,
  cwd: string,
  options: SetupOptions,
): void {
  runner.setUIContext(
    createNoUIContext(options.notify ?? ((m: string, level: string) => process.stderr.write(`[${level}] ${m}\n`))),
  );
  runner.setContext(
    createSessionContext(session, {
      cwd,
      hasUI: options.hasUI,
      ui: () => runner.getUIContext(),
      shutdown: () => runner.shutdown(),
    }),
  );
  runner.bindCommandContext(sessionCommandActions(session));
  bindExtensionRuntime(runner.runtime, session);
  session.useExtensionHooks(runner);
}

/** Ends a CLI session: extensions get `session_shutdown`, then the session file's lock is released. */
export async function shutdown(setup: CliSetup): Promise<void> {
  await setup.extensions.emit({ type: "session_shutdown", reason: "quit" });
  await setup.mcp?.stop();
  setup.session.dispose();
}

export type SubmitResult = { kind: "prompted" } | { kind: "queued"; as: "steer" | "followUp" } | { kind: "handled" };

/**
 * What every mode does with user text: the `input` hook, extension `/commands`, `/template` and `/skill:` expansion,
 * `before_agent_start` (system prompt for this run), then prompt — or steer/follow-up while a run is active.
 * Resolves when the run ends (for a prompt) or at once (queued / handled).
 */
export async function submit(
  setup: CliSetup,
  text: string,
  behavior: "steer" | "followUp" | undefined,
  images?: ImageContent[],
  source: InputSource = "interactive",
): Promise<SubmitResult> {
  const answer = await setup.extensions.emitInput(text, images, source);
  if (answer.action === "handled") return { kind: "handled" };
  const input = answer.action === "transform" ? answer.text : text;
  if (answer.action === "transform" && answer.images) images = answer.images;
  if (await setup.extensions.runCommand(input)) return { kind: "handled" };
  const expanded = expandPromptTemplate(input, setup.templates, setup.skills) ?? input;
  const { session } = setup;
  if (session.isStreaming) {
    const as = behavior ?? "steer";
    if (as === "steer") session.steer(expanded, images);
    else session.followUp(expanded, images);
    return { kind: "queued", as };
  }
  if (setup.extensions.hasHandlers("before_agent_start")) {
    const sources = { ...setup.promptSources, selectedTools: session.getActiveToolNames() };
    session.agent.setSystemPrompt(
      await setup.extensions.beforeAgentStart(expanded, setup.baseSystemPrompt, sources, images),
    );
  }
  await session.prompt(expanded, images ? { images } : {});
  return { kind: "prompted" };
}
