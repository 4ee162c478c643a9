/**
 * An approvals table row, as both stores keep it (SQLite on one node, `approval-store.ts`; PostgreSQL in a
 * cluster, `cluster/cluster-approvals.ts`), and the one mapping of a row to a `StoredApproval`. The drivers differ
 * only in how columns arrive: `J` is a JSON column's value (SQLite: text; PostgreSQL: parsed jsonb), `N` a time
 * column's (SQLite: a number; PostgreSQL: a bigint as a string).
 */
import type { ToolResultMessage } from "@tiller/ai";
import type { ApprovalKind, ApprovalStatus, StoredApproval } from "./types.js";

export interface ApprovalRow<J, N> {
  id: string;
  kind: string;
  session_key: string;
  agent_id: string;
  run_id: string;
  status: string;
  approval: J;
  request: J;
  results: J;
  created_at: N;
  expires_at: N | null;
  decision: string | null;
  cause: string | null;
  resolved_by: string | null;
  reason: string | null;
  resolved_at: N | null;
}

/** How a driver's JSON and time columns become values. */
export interface ColumnDecoders<J, N> {
  json(value: J): unknown;
  time(value: N): number;
}

export function approvalFromRow<J, N>(r: ApprovalRow<J, N>, decode: ColumnDecoders<J, N>): StoredApproval {
  const a: StoredApproval = {
    id: r.id,
    kind: r.kind as ApprovalKind,
    sessionKey: r.session_key,
    agentId: r.agent_id,
    runId: r.run_id,
    status: r.status as ApprovalStatus,
    approval: decode.json(r.approval) as StoredApproval["approval"],
    request: decode.json(r.request) as StoredApproval["request"],
    results: decode.json(r.results) as ToolResultMessage[],
    createdAt: decode.time(r.created_at),
  };
  if (r.expires_at !== null) a.expiresAt = decode.time(r.expires_at);
  if (r.decision !== null) a.decision = r.decision as StoredApproval["decision"];
  if (r.cause !== null) a.cause = r.cause as StoredApproval["cause"];
  if (r.resolved_by !== null) a.resolvedBy = r.resolved_by;
  if (r.reason !== null) a.reason = r.reason;
  if (r.resolved_at !== null) a.resolvedAt = decode.time(r.resolved_at);
  return a;
}
