/**
 * What the runner's product stages need — the plugins' hook runner and the gateway hooks, where a run's tools
 * come from, how replies are shaped — and the small helpers the stages share. `loadGatewayShaping` builds the
 * pipeline of the product gateway; a core built without one runs bare (base prompt, no tools, no shaping).
 */
import type { AgentTool } from "@tiller/agent";
import type { InternalHookRegistry } from "../../hooks/internal-hooks.js";
import type { HookRunner } from "../../plugins/hook-runner.js";
import type { PluginHookContext } from "../../plugins/hook-types.js";
import { type SkillsSnapshot, takeSkillsSnapshot } from "../../prompt/skills-snapshot.js";
import type { RunContext } from "../run-types.js";
import type { ReplyShapingOptions } from "./reply-stage.js";
import type { RunWorkspace } from "./workspace-stage.js";

export interface RunPipeline {
  /** The plugins' hooks (model, prompt, tool and compaction hooks the stages run). */
  hooks: HookRunner;
  /** Gateway hooks (`agent:bootstrap`). */
  internalHooks?: InternalHookRegistry;
  /** Whether runs get tools (tiller.json `tools.enabled`). */
  tools: boolean;
  /** The gateway's own tools for a run (message, sessions…), bound to the run's hook context. */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
  gatewayTools?(ctx: RunContext, hookContext: PluginHookContext): AgentTool<any, any>[];
  /** Plugin and MCP tools, read at each run (MCP servers may still be starting). */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
  extraTools?(): Promise<AgentTool<any, any>[]>;
  reply: ReplyShapingOptions;
  /** Diagnostics (an unknown model override). */
  log?: (line: string) => void;
}

/** The hook context of a run: who, which session and run, and (after the workspace stage) the agent's workspace. */
export function hookContextOf(ctx: RunContext): PluginHookContext {
  return {
    agentId: ctx.agentId,
    sessionKey: ctx.sessionKey,
    sessionId: ctx.session.sessionId,
    runId: ctx.runId,
    ...(ctx.workspace ? { workspaceDir: ctx.workspace.agentWorkspaceDir } : {}),
  };
}

/** Most sessions whose skills snapshot is remembered (oldest forgotten first). */
const MAX_REMEMBERED_SESSIONS = 1000;

/**
 * Skills as frozen when a session starts (per session id), reused for its every turn so an edited skill does not
 * change the prompt mid-session.
 */
export class SkillsSnapshots {
  private readonly snapshots = new Map<string, SkillsSnapshot>();

  of(ctx: RunContext, workspace: RunWorkspace): SkillsSnapshot {
    let snapshot = this.snapshots.get(ctx.session.sessionId);
    if (!snapshot) {
      snapshot = takeSkillsSnapshot({
        workspaceDir: workspace.agentWorkspaceDir,
        home: ctx.config.home,
        config: ctx.config.raw,
      });
      this.snapshots.set(ctx.session.sessionId, snapshot);
      if (this.snapshots.size > MAX_REMEMBERED_SESSIONS) {
        this.snapshots.delete(this.snapshots.keys().next().value as string);
      }
    }
    return snapshot;
  }
}
