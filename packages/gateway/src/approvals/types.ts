/**
 * Types of the gateway's approvals: what is stored for each pending approval (everything a new process needs to
 * resume the run), and the seams the server plugs in (who is connected to decide, how events reach them).
 */
import type { ApprovalDecision, ApprovalEndCause, PendingApproval } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import type { ApprovalKind } from "../protocol/schema/approvals.js";
import type { RunRequest } from "../run/run-types.js";

export type { ApprovalKind } from "../protocol/schema/approvals.js";

/**
 * `pending`: waiting for a decision. `decided`: decided after its run died with an earlier process; the run that
 * resumes the batch consumes it. `resolved`: over (decided on a live run, timed out, aborted, or consumed).
 */
export type ApprovalStatus = "pending" | "decided" | "resolved";

/** One approval as the store keeps it. Written before the request is announced to anyone. */
export interface StoredApproval {
  id: string;
  kind: ApprovalKind;
  sessionKey: string;
  agentId: string;
  /** The run that asked; a resume after a restart keeps this runId, so `agent.wait` on it sees the real end. */
  runId: string;
  status: ApprovalStatus;
  /** The agent's pending approval: the tool call, its arguments, the request and the batch's assistant message. */
  approval: PendingApproval;
  /** The run's request, to submit the resume with the same model, lane and limits (images left out). */
  request: RunRequest;
  /** Results of calls of the same batch that had finished when the request was stored (or since). */
  results: ToolResultMessage[];
  createdAt: number;
  expiresAt?: number;
  decision?: ApprovalDecision;
  cause?: ApprovalEndCause;
  resolvedBy?: string;
  reason?: string;
  resolvedAt?: number;
}

/** What the server gives the approvals: who can decide, and how an approval event reaches them. */
export interface ApprovalAudience {
  /** True while at least one connection holds `operator.approvals` (or admin). */
  hasApprover(): boolean;
  /** Sends an event to every connection holding `operator.approvals`, and to no other. */
  broadcast(event: string, payload: unknown): void;
}
