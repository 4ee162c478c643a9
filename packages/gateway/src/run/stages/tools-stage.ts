/**
 * Stage "tools": the run's tools — coding tools in the workspace or sandbox, the gateway's own tools and the
 * plugins' — filtered by the tool policy and wrapped with the tool hooks. Sets `ctx.tools` for the engine.
 */
import type { AgentTool } from "@tiller/agent";
import type { HookRunner } from "../../plugins/hook-runner.js";
import type { PluginHookContext } from "../../plugins/hook-types.js";
import type { SkillsSnapshot } from "../../prompt/skills-snapshot.js";
import { buildGatewayToolset } from "../../tools/gateway-tool-pipeline.js";
import type { RunContext } from "../run-types.js";
import type { RunWorkspace } from "./workspace-stage.js";

export interface RunToolsInput {
  workspace: RunWorkspace;
  skills: SkillsSnapshot;
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  gatewayTools: AgentTool<any>[];
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  pluginTools: readonly AgentTool<any>[];
  hooks: HookRunner;
  hookContext: PluginHookContext;
}

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
export function buildRunTools(ctx: RunContext, input: RunToolsInput): AgentTool<any>[] {
  const toolset = buildGatewayToolset({
    workspaceDir: input.workspace.agentWorkspaceDir,
    sandbox: input.workspace.sandbox,
    provider: ctx.model.model.provider,
    agentId: ctx.agentId,
    isGroup: /:(group|channel|room):/.test(ctx.sessionKey),
    config: ctx.config.raw,
    gatewayTools: input.gatewayTools,
    pluginTools: [...input.pluginTools],
    hooks: input.hooks,
    hookContext: input.hookContext,
    // No run signal here: a run's abort reaches its tools through the agent (the run stage aborts the session,
    // the agent aborts each call's signal), the one abort path.
    env: input.skills.env as Record<string, string>,
    modelAcceptsImages: ctx.model.model.input.includes("image"),
  });
  ctx.tools = toolset.tools;
  return toolset.tools;
}
