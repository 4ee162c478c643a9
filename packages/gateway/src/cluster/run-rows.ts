/**
 * The cluster_runs row as PostgreSQL returns it, and the record the gateway uses. Also the one expression every
 * time the run ledger stamps or compares is taken from: the database's clock, never a node's, so nodes whose
 * clocks disagree still agree on what came first and on how long a session has been quiet.
 */
import type { ClusterRunRecord, ClusterRunRequest, ClusterRunStatus } from "./types.js";

/**
 * The database's current time in epoch milliseconds, as SQL. `clock_timestamp()` (not `now()`, the start of the
 * transaction): a stamp taken after a lock was granted is later than whatever the lock's previous holder stamped.
 */
export const DB_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

export interface RunRowDb {
  run_id: string;
  session_key: string;
  session_pos: string;
  lane: string;
  status: string;
  request: ClusterRunRequest;
  accepted_at: string;
  accepted_by: string;
  node_id: string | null;
  node_epoch: string | null;
  started_at: string | null;
  ended_at: string | null;
  error: string | null;
  summary: string | null;
  result: unknown;
  abort_requested: boolean;
  merged_into: string | null;
  behind: boolean;
  summarized: boolean;
  /** Only in the claim's RETURNING. */
  has_inputs?: boolean;
}

const num = (v: string | null): number | undefined => (v === null ? undefined : Number(v));

export function toRecord(r: RunRowDb): ClusterRunRecord {
  return {
    runId: r.run_id,
    sessionKey: r.session_key,
    sessionPos: Number(r.session_pos),
    lane: r.lane,
    status: r.status as ClusterRunStatus,
    request: r.request,
    acceptedAt: Number(r.accepted_at),
    acceptedBy: r.accepted_by,
    nodeId: r.node_id ?? undefined,
    nodeEpoch: num(r.node_epoch),
    startedAt: num(r.started_at),
    endedAt: num(r.ended_at),
    error: r.error ?? undefined,
    summary: r.summary ?? undefined,
    result: r.result ?? undefined,
    abortRequested: r.abort_requested,
    summarized: r.summarized,
    ...(r.has_inputs ? { steered: true } : {}),
  };
}
