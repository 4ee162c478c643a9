/**
 * The exec approvals rule for the tool pipeline: every tool named `bash` or `exec` (built-in or an extension's)
 * gets `requiresApproval` from the policy, so its calls go through the agent's approval mechanism.
 */
import { resolve } from "node:path";
import type { RequiresApproval } from "@tiller/agent";
import type { ExecApprovals } from "./exec-approvals.js";

/** Tool names whose `command` argument is a shell command. */
export const EXEC_TOOL_NAMES: readonly string[] = ["bash", "exec"];

export interface ExecApprovalRuleOptions {
  /** The working directory commands run in (exec's `workdir` is resolved against it). */
  cwd: string;
  /**
   * Whether someone can answer a request; false: `askFallback` decides at once. A function is asked per call (a
   * gateway can ask only while an approver is connected).
   */
  canAsk: boolean | (() => boolean);
}

export function execApprovalRule(approvals: ExecApprovals, options: ExecApprovalRuleOptions): RequiresApproval {
  return (args) => {
    const command = typeof args.command === "string" ? args.command : "";
    const cwd = typeof args.workdir === "string" ? resolve(options.cwd, args.workdir) : options.cwd;
    const canAsk = typeof options.canAsk === "function" ? options.canAsk() : options.canAsk;
    return approvals.evaluate(command, cwd, { canAsk });
  };
}
