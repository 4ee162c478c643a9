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

/** How an approval's wait ended, as the store records it and the `*.resolved` events show it. */
export interface ApprovalEnd {
  decision: ApprovalDecision;
  cause: ApprovalEndCause;
  resolvedBy?: string;
  reason?: string;
  at: number;
}

/**
 * Where pending approvals are kept: SQLite per home on a single node (approval-store.ts), PostgreSQL in a
 * cluster (cluster/cluster-approvals.ts). Every write is committed before its promise resolves, so a request is
 * durable before it is announced. Methods never throw for a state mismatch: `end` answers false instead.
 */
export interface ApprovalStore {
  insert(a: StoredApproval): Promise<void>;
  get(id: string): Promise<StoredApproval | undefined>;
  /** Approvals in one state, oldest first. */
  withStatus(status: ApprovalStatus): Promise<StoredApproval[]>;
  ofRun(runId: string): Promise<StoredApproval[]>;
  /** The finished results of the run's waiting batch (what a resume keeps instead of running those calls again). */
  setResults(runId: string, results: readonly ToolResultMessage[]): Promise<void>;
  /**
   * Moves an approval from `from` to `to` with its decision. False when it was not in `from` (first answer wins:
   * a second decision, or one racing a timeout, changes nothing).
   */
  end(id: string, from: ApprovalStatus, to: ApprovalStatus, e: ApprovalEnd): Promise<boolean>;
  /** The decided approvals of a run are consumed by the run that resumes it. */
  consume(runId: string, at?: number): Promise<void>;
  close(): void;
}

/** Why a cluster decision was not committed (the approval, as it is now, when there is one). */
export type SharedDecideRefusal =
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "decided"; approval: StoredApproval }
  | { ok: false; reason: "expired"; approval: StoredApproval }
  | { ok: false; reason: "run_gone"; approval: StoredApproval; runStatus: string; nodeId?: string };

/** The answer to committing a timeout in a cluster (`SharedApprovals.expire`). */
export type SharedExpireResult =
  | { ok: true; approval: StoredApproval }
  /** No such approval, or it has no timeout. */
  | { ok: false; reason: "not_found" }
  /** A decision (or the sweep) committed first: the run takes that. */
  | { ok: false; reason: "decided"; approval: StoredApproval }
  /** Not yet expired by the database clock (the node's clock runs ahead): try again in `inMs`. */
  | { ok: false; reason: "early"; inMs: number };

/**
 * Approvals shared by the gateways of a cluster (PostgreSQL). The store is the cluster's; beside it: who can
 * decide anywhere, decisions committed once across nodes, and every node hearing of every change. In the
 * shared store `decided` means "decision committed, not yet applied by the node executing the run"; that node
 * moves it to `resolved` once its agent took it.
 */
export interface SharedApprovals extends ApprovalStore {
  /**
   * True while some node whose lease is valid reports an `operator.approvals` connection (this node's own
   * report included). Read from a cache refreshed on every presence change (NOTIFY) and every poll.
   */
  anyApprover(): boolean;
  /** Publishes whether this node has an approver connection (written at once, then kept with its lease). */
  setLocalApprover(present: boolean): void;
  /** Re-reads the cluster-wide presence now (before a run decides whether anyone can be asked). */
  refreshPresence(): Promise<boolean>;
  /**
   * Commits a decision of a pending approval, only while it is unexpired by the database clock and its run is
   * `running` on a node with a valid lease. The first decision on any node wins; the others get the refusal.
   */
  decide(id: string, e: ApprovalEnd): Promise<{ ok: true; approval: StoredApproval } | SharedDecideRefusal>;
  /**
   * Commits the timeout of a pending approval (`e`: what its `timeoutBehavior` decides, cause `timeout`), only once
   * it has expired by the database clock, through the same first-wins UPDATE as `decide`: exactly one of a
   * decision and the timeout is committed, and the run takes that one. Called by the node executing the run.
   */
  expire(id: string, e: ApprovalEnd): Promise<SharedExpireResult>;
  /**
   * Every change of state of any approval on any node (requested, decided, resolved), in commit order, each
   * delivered once to this node with the approval's state at the time it is read.
   */
  onChange(listener: (a: StoredApproval) => void): void;
}

/** What the server gives the approvals: who can decide, and how an approval event reaches them. */
export interface ApprovalAudience {
  /** True while at least one connection holds `operator.approvals` (or admin). */
  hasApprover(): boolean;
  /** Sends an event to every connection holding `operator.approvals`, and to no other. */
  broadcast(event: string, payload: unknown): void;
}
