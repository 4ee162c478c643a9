/**
 * `tiller --mode rpc`: JSON-lines commands on stdin, responses `{type:"response", id, command, success, data|error}`
 * and session events on stdout. Framing splits on LF only (see jsonl.ts). `prompt` answers once the run has
 * started (or was queued / handled); later failures arrive as events, as in pi's protocol.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isApprovalDecision, type ThinkingLevel } from "@tiller/agent";
import { createSyntheticSourceInfo } from "../extensions/source-info.js";
import type { CliArgs } from "./args.js";
import { THINKING_LEVELS } from "./args.js";
import { CliUsageError } from "./errors.js";
import { eventForWire } from "./event-json.js";
import { createJsonlReader, toJsonLine } from "./jsonl.js";
import { type CliSetup, setupSession, shutdown, submit } from "./session-setup.js";

type Command = { id?: string | number; type: string } & Record<string, unknown>;
type Handler = (cmd: Command, setup: CliSetup) => Promise<unknown> | unknown;

class RpcError extends Error {}

function str(cmd: Command, key: string): string {
  const v = cmd[key];
  if (typeof v !== "string" || v.length === 0) throw new RpcError(`"${key}" must be a non-empty string`);
  return v;
}

function bool(cmd: Command, key: string): boolean {
  const v = cmd[key];
  if (typeof v !== "boolean") throw new RpcError(`"${key}" must be true or false`);
  return v;
}

function queueMode(cmd: Command): "all" | "one-at-a-time" {
  const v = cmd.mode;
  if (v !== "all" && v !== "one-at-a-time") throw new RpcError(`"mode" must be "all" or "one-at-a-time"`);
  return v;
}

const HANDLERS: Record<string, Handler> = {
  steer: (cmd, { session }) => {
    if (!session.isStreaming) throw new RpcError("nothing is running to steer; send a prompt");
    session.steer(str(cmd, "message"));
  },
  follow_up: (cmd, { session }) => {
    if (!session.isStreaming) throw new RpcError("nothing is running; send a prompt");
    session.followUp(str(cmd, "message"));
  },
  abort: async (_cmd, { session }) => {
    await session.abort();
  },
  // Approvals: a `tool_approval_request` event line asks; this command answers it.
  resolve_approval: (cmd, { session }) => {
    const id = str(cmd, "approvalId");
    const decision = cmd.decision;
    if (!isApprovalDecision(decision)) throw new RpcError('"decision" must be "allow-once", "allow-always" or "deny"');
    const reason = typeof cmd.reason === "string" ? cmd.reason : undefined;
    if (!session.agent.resolveApproval(id, decision, { by: "rpc", ...(reason ? { reason } : {}) })) {
      throw new RpcError(`no pending approval "${id}" (already decided, timed out or aborted)`);
    }
  },
  get_pending_approvals: (_cmd, { session }) => ({ approvals: session.agent.getPendingApprovals() }),
  // pi's RpcSessionState: absent file and name are left out, not null.
  get_state: (_cmd, { session }) => {
    const sessionFile = session.sessionFile;
    const sessionName = session.sessionManager.getSessionName();
    return {
      model: session.model,
      thinkingLevel: session.thinkingLevel,
      isStreaming: session.isStreaming,
      isCompacting: session.isCompacting,
      steeringMode: session.agent.steeringMode,
      followUpMode: session.agent.followUpMode,
      ...(sessionFile ? { sessionFile } : {}),
      sessionId: session.sessionId,
      ...(sessionName ? { sessionName } : {}),
      autoCompactionEnabled: session.settingsManager.get().compaction.enabled,
      messageCount: session.messages.length,
      pendingMessageCount: session.pendingMessageCount,
    };
  },
  get_messages: (_cmd, { session }) => ({ messages: session.messages }),
  get_last_assistant_text: (_cmd, { session }) => ({ text: session.getLastAssistantText() ?? null }),
  set_model: (cmd, { session, modelRegistry }) => {
    const provider = str(cmd, "provider");
    const modelId = str(cmd, "modelId");
    const model = modelRegistry.find(provider, modelId);
    if (!model) throw new RpcError(`unknown model ${provider}/${modelId}`);
    session.setModel(model);
    return { model, thinkingLevel: session.thinkingLevel };
  },
  get_available_models: (_cmd, { modelRegistry }) => ({ models: modelRegistry.getAvailable() }),
  set_thinking_level: (cmd, { session }) => {
    const level = str(cmd, "level");
    if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
      throw new RpcError(`"level" must be one of ${THINKING_LEVELS.join(", ")}`);
    }
    return { level: session.setThinkingLevel(level as ThinkingLevel) };
  },
  cycle_model: async (_cmd, { session }) => (await session.cycleModel()) ?? null,
  cycle_thinking_level: (_cmd, { session }) => {
    const level = session.cycleThinkingLevel();
    return level ? { level } : null;
  },
  set_steering_mode: (cmd, { session }) => session.setSteeringMode(queueMode(cmd)),
  set_follow_up_mode: (cmd, { session }) => session.setFollowUpMode(queueMode(cmd)),
  set_auto_compaction: (cmd, { session }) => session.setAutoCompactionEnabled(bool(cmd, "enabled")),
  set_auto_retry: (cmd, { session }) => session.setAutoRetryEnabled(bool(cmd, "enabled")),
  abort_retry: (_cmd, { session }) => session.abortRetry(),
  bash: (cmd, { session }) => session.executeBash(str(cmd, "command")),
  abort_bash: (_cmd, { session }) => session.abortBash(),
  export_html: async (cmd, { session }) => ({
    path: await session.exportToHtml(typeof cmd.outputPath === "string" ? cmd.outputPath : undefined),
  }),
  compact: async (cmd, { session }) =>
    session.compact(typeof cmd.customInstructions === "string" ? cmd.customInstructions : undefined),
  new_session: async (_cmd, { session, extensions }) => {
    if ((await extensions.emit({ type: "session_before_switch", reason: "new" }))?.cancel) return { cancelled: true };
    const sessionFile = session.newSession() ?? null;
    await extensions.emit({ type: "session_start", reason: "new", sessionId: session.sessionId });
    return { sessionFile, sessionId: session.sessionId, cancelled: false };
  },
  fork: async (cmd, setup) => {
    const entryId = typeof cmd.entryId === "string" ? cmd.entryId : setup.session.sessionManager.getLeafId();
    // Tiller's fork keeps the entry itself (pi's position "at").
    return forkAt(setup, entryId ?? undefined, "at");
  },
  // pi's clone: a new session file with the whole current branch.
  clone: async (_cmd, setup) => {
    const leaf = setup.session.sessionManager.getLeafId();
    if (!leaf) throw new RpcError("Cannot clone session: no current entry selected");
    const { cancelled } = await forkAt(setup, leaf, "at");
    return { cancelled };
  },
  switch_session: async (cmd, { session, extensions }) => {
    const target = resolve(str(cmd, "sessionPath"));
    // pi would start an empty session at a missing path; a mistyped path is far likelier than that wish.
    if (!existsSync(target)) throw new RpcError(`no session file at ${target}`);
    const before = await extensions.emit({
      type: "session_before_switch",
      reason: "resume",
      targetSessionFile: target,
    });
    if (before?.cancel) return { cancelled: true };
    session.switchSessionFile(target);
    await extensions.emit({ type: "session_start", reason: "resume", sessionId: session.sessionId });
    return { cancelled: false };
  },
  get_fork_messages: (_cmd, { session }) => ({
    messages: session.sessionManager
      .getBranch()
      .filter((e) => e.type === "message" && e.message.role === "user")
      .map((e) => ({
        entryId: e.id,
        text: e.type === "message" ? userText((e.message as { content?: unknown }).content) : "",
      })),
  }),
  navigate_tree: async (cmd, { session }) =>
    session.navigateTree(str(cmd, "targetId"), { summarize: cmd.summarize === true }),
  get_session_stats: (_cmd, { session }) => session.getSessionStats(),
  set_session_name: (cmd, { session }) => {
    session.setSessionName(typeof cmd.name === "string" ? cmd.name : "");
  },
  get_commands: (_cmd, setup) => ({
    commands: [
      ...[...setup.extensions.getCommands()].map(([name, c]) => ({
        name,
        description: c.description,
        source: "extension",
        sourceInfo: createSyntheticSourceInfo(c.extension, { source: "extension" }),
      })),
      ...setup.templates.map((t) => ({
        name: t.name,
        description: t.description,
        source: "prompt",
        sourceInfo: t.sourceInfo,
      })),
      ...setup.skills.map((s) => ({
        name: `skill:${s.name}`,
        description: s.description,
        source: "skill",
        sourceInfo: s.sourceInfo,
      })),
    ],
  }),
};

/** Forks the branch ending at `entryId` (the leaf when absent) unless an extension cancels `session_before_fork`. */
async function forkAt(
  { session, extensions }: CliSetup,
  entryId: string | undefined,
  position: "at",
): Promise<{ cancelled: boolean; sessionFile?: string | null; sessionId?: string }> {
  if (entryId) {
    const before = await extensions.emit({ type: "session_before_fork", entryId, position });
    if (before?.cancel) return { cancelled: true };
  }
  const sessionFile = session.fork(entryId) ?? null;
  await extensions.emit({ type: "session_start", reason: "fork", sessionId: session.sessionId });
  return { sessionFile, sessionId: session.sessionId, cancelled: false };
}

function userText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("");
}

export async function runRpcMode(args: CliArgs): Promise<number> {
  const write = (v: unknown) => process.stdout.write(toJsonLine(v));
  let setup: CliSetup;
  try {
    setup = await setupSession(args, {
      hasUI: false,
      canAskApprovals: true,
      notify: (message, level = "info") => write({ type: "notification", level, message }),
    });
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`tiller: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  for (const n of setup.notes) process.stderr.write(`tiller: ${n.message}\n`);
  await serveRpc(setup);
  await shutdown(setup);
  return 0;
}

/**
 * Serves the RPC protocol for `setup.session` on stdin/stdout until stdin ends and the running turn (if any) has
 * finished. Shared by `tiller --mode rpc` and the SDK's `runRpcMode(runtime)`.
 */
export async function serveRpc(setup: CliSetup): Promise<void> {
  const write = (v: unknown) => process.stdout.write(toJsonLine(v));
  setup.extensions.onError((e) => write({ type: "extension_error", ...e }));
  const { session } = setup;
  // Every event: an RPC client answers `tool_approval_request` lines (`resolve_approval`). RpcClient hands
  // Tiller's additions only to the listeners that ask for them, as AgentSession does.
  session.subscribe(
    (event) => {
      write(eventForWire(event));
    },
    { tillerEvents: true },
  );

  const respond = (cmd: Command | undefined, result: { data?: unknown; error?: string }) => {
    const base: Record<string, unknown> = { type: "response" };
    if (cmd?.id !== undefined) base.id = cmd.id;
    base.command = cmd?.type ?? "unknown";
    if (result.error !== undefined) write({ ...base, success: false, error: result.error });
    else write(result.data === undefined ? { ...base, success: true } : { ...base, success: true, data: result.data });
  };

  const runPrompt = (cmd: Command) => {
    const message = cmd.message;
    if (typeof message !== "string" || message.length === 0) {
      respond(cmd, { error: '"message" must be a non-empty string' });
      return;
    }
    const behavior = cmd.streamingBehavior;
    if (behavior !== undefined && behavior !== "steer" && behavior !== "followUp") {
      respond(cmd, { error: '"streamingBehavior" must be "steer" or "followUp"' });
      return;
    }
    if (session.isStreaming && behavior === undefined) {
      respond(cmd, { error: 'the agent is running: set "streamingBehavior" to "steer" or "followUp"' });
      return;
    }
    let answered = false;
    const answer = (r: { data?: unknown; error?: string }) => {
      if (answered) return;
      answered = true;
      off();
      respond(cmd, r);
    };
    // "Accepted" = the run started; an error before that (no API key, bad input) is the response itself.
    const off = session.subscribe((e) => {
      if (e.type === "agent_start") answer({});
    });
    submit(setup, message, behavior as "steer" | "followUp" | undefined, cmd.images as never, "rpc").then(
      (r) => answer(r.kind === "queued" ? { data: { queued: r.as } } : {}),
      (err: unknown) => {
        const text = err instanceof Error ? err.message : String(err);
        if (answered) write({ type: "prompt_error", id: cmd.id, error: text });
        else answer({ error: text });
      },
    );
  };

  const onLine = (line: string) => {
    if (line.trim() === "") return;
    let cmd: Command;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (!parsed || typeof parsed !== "object" || typeof (parsed as Command).type !== "string") {
        throw new Error('a command is an object with a string "type"');
      }
      cmd = parsed as Command;
    } catch (err) {
      respond({ type: "parse" }, { error: `invalid command: ${(err as Error).message}` });
      return;
    }
    if (cmd.type === "prompt") {
      runPrompt(cmd);
      return;
    }
    const handler = HANDLERS[cmd.type];
    if (!handler) {
      respond(cmd, { error: `unknown command "${cmd.type}"` });
      return;
    }
    Promise.resolve()
      .then(() => handler(cmd, setup))
      .then(
        (data) => respond(cmd, { data }),
        (err: unknown) => respond(cmd, { error: err instanceof Error ? err.message : String(err) }),
      );
  };

  const reader = createJsonlReader(onLine);
  await new Promise<void>((resolve) => {
    process.stdin.on("data", (chunk: Buffer) => reader.push(chunk));
    process.stdin.on("end", () => {
      reader.end();
      resolve();
    });
    process.stdin.on("error", () => resolve());
  });
  // stdin closed: let a running turn finish, then leave.
  while (session.isStreaming) await new Promise((r) => setTimeout(r, 20));
}
