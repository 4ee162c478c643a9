/**
 * The run extension of approvals: puts the exec policy on the run's exec tools, hands the session to the hub so decisions can
 * reach its agent, and hands the agent's approval events to the hub (`tool_approval_request` → stored, then
 * announced; `tool_approval_end` → resolved, `allow-always` recorded). It also keeps the finished results of the
 * current tool batch, which a resume after a restart needs. In a cluster the agent waits without its own timer
 * (the hub commits timeouts: shared-timeout.ts).
 */
import { toolResultOf } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import type { ExecApprovals } from "@tiller/coding-agent";
import type { RunContext, RunExtension } from "../run/run-types.js";
import type { ApprovalHub } from "./approval-hub.js";
import { applyExecApprovals, recordAllowAlways } from "./exec-policy.js";
import { moveTimeouts } from "./shared-timeout.js";

const NAME = "approvals";

interface RunApprovals {
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
    // After the tools stage: the run's tools exist.
    prepareTools(ctx) {
      const exec = applyExecApprovals(ctx, () => hub.hasApprover());
      if (exec) stateOf(ctx).exec = exec;
      // Last, around every rule: in a cluster the hub commits timeouts by the database (shared-timeout.ts).
      if (hub.clustered) ctx.tools = moveTimeouts(ctx.tools);
    },
    onAgentEvent(ctx, event, session) {
      const s = stateOf(ctx);
      switch (event.type) {
        case "turn_start":
          s.batch = [];
          break;
        case "tool_execution_end":
          s.batch.push(toolResultOf(event));
          hub.batchResults(ctx.runId, s.batch);
          break;
        case "tool_approval_request":
          hub.requested(ctx, session, event.approval, s.batch);
          break;
        case "tool_approval_end":
          recordAllowAlways(event, ctx.config.home, s.exec, log);
          hub.ended(ctx, event);
          break;
        default:
          break;
      }
    },
    onRunEnd(ctx) {
      return hub.runEnded(ctx);
    },
  };
}
