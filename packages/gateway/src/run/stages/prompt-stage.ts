/**
 * Stage "prompt": the system prompt (base prompt, sections, workspace files, skills, tools, runtime) and the
 * user's text for this turn, after the prompt hooks. Sets `ctx.systemPrompt` and `ctx.prompt`.
 */
import type { InternalHookRegistry } from "../../hooks/internal-hooks.js";
import type { HookRunner } from "../../plugins/hook-runner.js";
import type { BeforePromptBuildResult, PluginHookContext } from "../../plugins/hook-types.js";
import { type PreparedRunPrompt, prepareRunPrompt } from "../../prompt/prepare-run-prompt.js";
import type { SkillsSnapshot } from "../../prompt/skills-snapshot.js";
import type { RunContext } from "../run-types.js";
import type { RunWorkspace } from "./workspace-stage.js";

export interface RunPromptInput {
  workspace: RunWorkspace;
  skills: SkillsSnapshot;
  tools: readonly { name: string; description?: string; parameters?: unknown }[];
  hooks: HookRunner;
  internalHooks?: InternalHookRegistry;
  hookContext: PluginHookContext;
  /** What the legacy before_agent_start hook returned. */
  legacyPrompt?: BeforePromptBuildResult;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export async function buildRunPrompt(ctx: RunContext, input: RunPromptInput): Promise<PreparedRunPrompt> {
  const raw = ctx.config.raw;
  const heartbeat =
    isObj(raw.agents) && isObj((raw.agents as Obj).defaults)
      ? ((raw.agents as Obj).defaults as Obj).heartbeat
      : undefined;
  const prepared = await prepareRunPrompt({
    agentId: ctx.agentId,
    sessionKey: ctx.sessionKey,
    workspaceDir: input.workspace.agentWorkspaceDir,
    sandbox: input.workspace.sandbox,
    mode: ctx.request.lane === "subagent" ? "minimal" : "full",
    heartbeatsEnabled: isObj(heartbeat) && heartbeat.enabled === true,
    limits: { contextWindow: ctx.model.model.contextWindow },
    tools: [...input.tools],
    skills: input.skills,
    prompt: ctx.prompt,
    hooks: input.hooks,
    internalHooks: input.internalHooks,
    hookContext: input.hookContext,
    legacyPrompt: input.legacyPrompt,
    extra: {
      extraSystemPrompt: ctx.request.extraSystemPrompt,
      runtime: {
        host: process.env.HOSTNAME,
        os: `${process.platform} ${process.arch}`,
        node: process.version,
        model: ctx.model.ref,
        thinking: ctx.thinking,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
      messagingTools: input.tools.some((t) => t.name === "message") ? ["message"] : undefined,
    },
  });
  ctx.systemPrompt = prepared.systemPrompt;
  ctx.prompt = prepared.prompt;
  return prepared;
}
