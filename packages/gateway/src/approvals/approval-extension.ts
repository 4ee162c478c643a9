/**
 * The run extension of approvals: puts the exec policy on the run's exec tools, keeps the engine so decisions can
 * reach its agent, and hands the agent's approval events to the hub (`tool_approval_request` → stored, then
 * announced; `tool_approval_end` → resolved, `allow-always` recorded). It also keeps the finished results of the
 * current tool batch, which a resume after a restart needs.
 */
import { type AgentEvent, toolResultOf } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import type { ExecApprovals } from "@tiller/coding-agent";
import type { EmbeddedSession } from "../run/embedded-session.js";
import type { RunContext, RunExtension } from "../run/run-types.js";
import type { ApprovalHub } from "./approval-hub.js";
import { applyExecApprovals, recordAllowAlways } from "./exec-policy.js";

const NAME = "approvals";

interface RunApprovals {
  engine?: EmbeddedSession;
  exec?: ExecApprovals;
  /** Results of the current batch's finished calls. */
  batch: ToolResultMessage[];
}

function stateOf(ctx: RunContext): RunApprovals {
  let s = ctx.state[NAME] as RunApprovals | undefined;
  if (!s) {
    s = { batch: [] };
    ctx.state[NAME] = s;
  }
  return s;
}

export function createApprovalExtension(hub: ApprovalHub, log?: (line: string) => void): RunExtension {
  return {
    name: NAME,
    // After the shaping extension's tools stage: the run's tools exist.
    buildPrompt(ctx) {
      const exec = applyExecApprovals(ctx, () => hub.hasApprover());
      if (exec) stateOf(ctx).exec = exec;
    },
    onEngineStart(ctx, engine) {
      stateOf(ctx).engine = engine;
    },
    onEngineEvent(ctx, raw) {
      const event = raw as AgentEvent;
      const s = ctx.state[NAME] as RunApprovals | undefined;
      if (!s?.engine) return undefined;
      switch (event.type) {
        case "turn_start":
          s.batch = [];
          break;
        case "tool_execution_end":
          s.batch.push(toolResultOf(event));
          hub.batchResults(ctx.runId, s.batch);
          break;
        case "tool_approval_request":
          hub.requested(ctx, s.engine, event.approval, s.batch);
          break;
        case "tool_approval_end":
          recordAllowAlways(event, ctx.config.home, s.exec, log);
          hub.ended(ctx, event);
          break;
        default:
          break;
      }
      return undefined;
    },
    onRunEnd(ctx) {
      hub.runEnded(ctx);
    },
  };
}
