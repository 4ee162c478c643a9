/**
 * `/approve <id> <allow-once|allow-always|deny> [reason…]` typed in chat: decides an exec or a plugin approval (the
 * id says which) for a sender holding `operator.approvals`. Answered like any gateway command, with one line.
 */
import { APPROVAL_DECISIONS, isApprovalDecision } from "@tiller/agent";
import { GatewayError } from "../protocol/frames.js";
import { hasScope } from "../protocol/scopes.js";
import type { ApprovalHub } from "./approval-hub.js";

const USAGE = `Usage: /approve <id> <${APPROVAL_DECISIONS.join("|")}> [reason]`;

/** The reply text and whether the command succeeded. */
export async function approveCommand(
  hub: ApprovalHub,
  args: readonly string[],
  scopes: readonly string[] | undefined,
): Promise<{ text: string; ok: boolean }> {
  if (!scopes || !hasScope(scopes, "operator.approvals")) {
    return { text: "/approve needs the operator.approvals scope.", ok: false };
  }
  const [id, decision, ...why] = args;
  if (!id || !decision) return { text: USAGE, ok: false };
  if (!isApprovalDecision(decision)) return { text: `Unknown decision "${decision}". ${USAGE}`, ok: false };
  const reason = why.join(" ").trim();
  try {
    const r = await hub.resolve(undefined, id, decision, { by: "/approve", ...(reason ? { reason } : {}) });
    return { text: `Approval ${id}: ${decision}${r.resumed ? " (resuming the run)" : ""}.`, ok: true };
  } catch (err) {
    if (err instanceof GatewayError) return { text: `Approval ${id}: ${err.message}.`, ok: false };
    throw err;
  }
}
