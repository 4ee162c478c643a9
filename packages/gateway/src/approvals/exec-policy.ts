/**
 * Exec approvals in the gateway: the `exec` / `bash` tools of a run get the policy of
 * `$TILLER_HOME/exec-approvals.json` (coding-agent's module: security, ask, allowlist, askFallback) in front of
 * their own approval rule. Asking is possible only while a client holding `operator.approvals` is connected; when
 * none is, `askFallback` decides at once, as the reference does when no approval UI is reachable.
 */
import type { AgentEvent } from "@tiller/agent";
import {
  EXEC_TOOL_NAMES,
  ExecApprovals,
  execApprovalRule,
  execApprovalsPath,
  withApprovalRule,
} from "@tiller/coding-agent";
import type { RunContext } from "../run/run-types.js";

/**
 * Puts the policy on the run's exec tools. Returns the policy (kept by the run to record `allow-always`), or
 * undefined when the run has no exec tool or the policy never asks nor blocks. A broken file throws (naming the
 * file and the key): the run fails rather than running commands without the policy the user wrote.
 */
export function applyExecApprovals(ctx: RunContext, canAsk: () => boolean): ExecApprovals | undefined {
  if (!ctx.tools.some((t) => EXEC_TOOL_NAMES.includes(t.name))) return undefined;
  const approvals = ExecApprovals.load(execApprovalsPath(ctx.config.home));
  const { security, ask } = approvals.policy;
  if (security === "full" && ask === "off") return approvals;
  const rule = execApprovalRule(approvals, { cwd: ctx.workspaceDir, canAsk });
  ctx.tools = ctx.tools.map((t) => (EXEC_TOOL_NAMES.includes(t.name) ? withApprovalRule(t, rule) : t));
  return approvals;
}

/**
 * Records an exec `allow-always` in the allowlist (with the run's policy, or the file as it is now for a run
 * resumed after a restart). Returns the patterns added.
 */
export function recordAllowAlways(
  event: AgentEvent,
  home: string,
  approvals: ExecApprovals | undefined,
  log?: (line: string) => void,
): string[] {
  if (event.type !== "tool_approval_end" || event.resolution.decision !== "allow-always") return [];
  try {
    const policy = approvals ?? ExecApprovals.load(execApprovalsPath(home));
    const added = policy.onAgentEvent(event);
    if (added.length > 0) log?.(`approvals: allowlisted in ${policy.path}: ${added.join(", ")}`);
    return added;
  } catch (err) {
    log?.(
      `approvals: could not update ${execApprovalsPath(home)}: ${err instanceof Error ? err.message : String(err)}`,
    );
    return [];
  }
}
