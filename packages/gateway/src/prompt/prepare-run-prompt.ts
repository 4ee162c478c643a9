/**
 * Prompt assembly for one gateway run, in the seed's order: model hooks (before_model_resolve and the legacy
 * before_agent_start) before the session loads; then bootstrap files (with the `agent:bootstrap` gateway hook),
 * caps from the model's limits, `before_prompt_build`, and the system prompt builder.
 */
import type { AgentMessage } from "@tiller/agent";
import { createInternalHookEvent, type InternalHookRegistry } from "../hooks/internal-hooks.js";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { BeforePromptBuildResult, PluginHookContext } from "../plugins/hook-types.js";
import type { SandboxContext } from "../workspace.js";
import { type BootstrapFile, type BootstrapMode, capBootstrapFiles, loadBootstrapFiles } from "./bootstrap-files.js";
import { type PromptLimitsInput, resolvePromptLimits } from "./prompt-limits.js";
import type { SkillsSnapshot } from "./skills-snapshot.js";
import {
  type BuildAgentSystemPromptOptions,
  buildAgentSystemPrompt,
  type PromptMode,
  type PromptTool,
  type SystemPromptReport,
} from "./system-prompt-builder.js";

export interface ModelHookResult {
  providerOverride?: string;
  modelOverride?: string;
  /** Prompt fields returned by the legacy `before_agent_start` hook, merged at prompt-build time. */
  legacyPrompt: BeforePromptBuildResult;
}

/** Runs `before_model_resolve`, then the legacy `before_agent_start` (once); the former's overrides win. */
export async function runModelHooks(
  hooks: HookRunner | undefined,
  prompt: string,
  ctx: PluginHookContext,
): Promise<ModelHookResult> {
  if (!hooks) return { legacyPrompt: {} };
  const resolved = hooks.hasHooks("before_model_resolve") ? await hooks.runBeforeModelResolve({ prompt }, ctx) : {};
  const legacy = hooks.hasHooks("before_agent_start")
    ? await hooks.runBeforeAgentStart({ prompt, messages: [] }, ctx)
    : {};
  return {
    providerOverride: resolved.providerOverride ?? legacy.providerOverride,
    modelOverride: resolved.modelOverride ?? legacy.modelOverride,
    legacyPrompt: {
      systemPrompt: legacy.systemPrompt,
      prependContext: legacy.prependContext,
      prependSystemContext: legacy.prependSystemContext,
      appendSystemContext: legacy.appendSystemContext,
    },
  };
}

export interface PrepareRunPromptOptions {
  agentId: string;
  sessionKey?: string;
  /** The agent's workspace (bootstrap files come from here even when sandboxed). */
  workspaceDir: string;
  sandbox?: SandboxContext;
  mode?: PromptMode;
  bootstrapMode?: BootstrapMode;
  heartbeatsEnabled?: boolean;
  limits?: PromptLimitsInput;
  tools?: readonly PromptTool[];
  skills?: SkillsSnapshot;
  /** The user's prompt for this turn and the session's messages so far. */
  prompt: string;
  messages?: readonly AgentMessage[];
  hooks?: HookRunner;
  internalHooks?: InternalHookRegistry;
  hookContext?: PluginHookContext;
  legacyPrompt?: BeforePromptBuildResult;
  extra?: Pick<
    BuildAgentSystemPromptOptions,
    "channel" | "messagingTools" | "replyTags" | "heartbeats" | "runtime" | "docsPath" | "extraSystemPrompt"
  >;
}

export interface PreparedRunPrompt {
  systemPrompt: string;
  /** The user prompt with plugins' `prependContext` in front. */
  prompt: string;
  report: SystemPromptReport;
  /** The bootstrap files after the `agent:bootstrap` hook (before caps). */
  bootstrapFiles: BootstrapFile[];
}

function validFiles(value: unknown, fallback: BootstrapFile[]): BootstrapFile[] {
  if (!Array.isArray(value)) return fallback;
  const out: BootstrapFile[] = [];
  for (const f of value) {
    if (!f || typeof f !== "object") continue;
    const o = f as Partial<BootstrapFile>;
    if (typeof o.name !== "string") continue;
    const content = typeof o.content === "string" ? o.content : undefined;
    out.push({
      name: o.name,
      path: typeof o.path === "string" ? o.path : o.name,
      content,
      rawChars: content?.length ?? 0,
      missing: content === undefined,
    });
  }
  return out;
}

export async function prepareRunPrompt(o: PrepareRunPromptOptions): Promise<PreparedRunPrompt> {
  const mode = o.mode ?? "full";
  const limits = resolvePromptLimits(o.limits);
  let files = loadBootstrapFiles(o.workspaceDir, {
    mode: o.bootstrapMode ?? (mode === "minimal" ? "minimal" : "full"),
    heartbeatsEnabled: o.heartbeatsEnabled,
  });
  if (o.internalHooks?.has("agent", "bootstrap")) {
    const event = createInternalHookEvent(
      "agent",
      "bootstrap",
      { bootstrapFiles: files, agentId: o.agentId, workspaceDir: o.workspaceDir },
      o.sessionKey,
    );
    await o.internalHooks.trigger(event);
    files = validFiles(event.context.bootstrapFiles, files);
  }
  const injected = capBootstrapFiles(files, {
    maxChars: limits.bootstrapMaxChars,
    totalMaxChars: limits.bootstrapTotalMaxChars,
  });

  let plugin: BeforePromptBuildResult = { ...(o.legacyPrompt ?? {}) };
  if (o.hooks?.hasHooks("before_prompt_build")) {
    const r = await o.hooks.runBeforePromptBuild({ prompt: o.prompt, messages: o.messages ?? [] }, o.hookContext);
    const join = (a?: string, b?: string) => (a && b ? `${a}\n\n${b}` : (a ?? b));
    plugin = {
      systemPrompt: r.systemPrompt ?? plugin.systemPrompt,
      prependContext: join(r.prependContext, plugin.prependContext),
      prependSystemContext: join(r.prependSystemContext, plugin.prependSystemContext),
      appendSystemContext: join(r.appendSystemContext, plugin.appendSystemContext),
    };
  }

  const built = buildAgentSystemPrompt({
    mode,
    agentId: o.agentId,
    tools: o.tools,
    skillsPrompt: mode === "full" ? o.skills?.prompt : undefined,
    skillsDropped: o.skills?.droppedFromPrompt,
    workspaceDir: o.workspaceDir,
    sandbox: o.sandbox,
    bootstrapFiles: injected,
    prependSystemContext: plugin.prependSystemContext,
    appendSystemContext: plugin.appendSystemContext,
    basePromptOverride: plugin.systemPrompt,
    limits,
    ...(o.extra ?? {}),
  });
  const prompt = plugin.prependContext ? `${plugin.prependContext}\n\n${o.prompt}` : o.prompt;
  return { systemPrompt: built.prompt, prompt, report: built.report, bootstrapFiles: files };
}
