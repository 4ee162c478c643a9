/**
 * The errors an operator's decision gets: an unknown or no longer pending id (APPROVAL_NOT_FOUND, as the
 * reference), and in a cluster the reason a decision was not committed (who decided first, expired, run gone).
 */
import { GatewayError } from "../protocol/frames.js";
import type { SharedDecideRefusal } from "./types.js";

export function notFound(id: string, message = `no pending approval with id ${id}`): GatewayError {
  return new GatewayError("APPROVAL_NOT_FOUND", message, { code: "APPROVAL_NOT_FOUND" });
}

/** The error a cluster decision that lost (or came too late) gets. */
export function refused(id: string, r: SharedDecideRefusal): GatewayError {
  switch (r.reason) {
    case "not_found":
      return notFound(id);
    case "decided": {
      const a = r.approval;
      const what = a.decision ? `${a.decision}${a.resolvedBy ? ` by ${a.resolvedBy}` : ""}` : "decided";
      return notFound(id, `approval ${id} was already decided (${what})`);
    }
    case "expired":
      return notFound(id, `approval ${id} has expired`);
    case "run_gone":
      return notFound(
        id,
        `approval ${id} can no longer be decided: its run ${r.approval.runId} is ${r.runStatus}` +
          (r.nodeId ? ` (gateway node ${r.nodeId} stopped)` : ""),
      );
  }
}
