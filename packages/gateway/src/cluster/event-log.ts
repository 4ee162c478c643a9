/**
 * The run-events table, written by the one node executing a run and tailed by every node with subscribers.
 * Writes are fenced: a batch is inserted only while the run is still `running` under the writer's node id and
 * epoch, with that run row share-locked, so a node declared dead can never append after the reaper's last
 * event, and the events of one session are committed in id order.
 */
import { CHANNEL_EVENTS } from "./listener.js";
import type { Queryable } from "./pool.js";
import { DB_NOW_MS } from "./run-rows.js";
import type { ClusterRunEvent } from "./types.js";

export interface PendingEvent {
  runId: string;
  sessionKey: string;
  seq: number;
  stream: string;
  ts: number;
  data: unknown;
}

/** Inserts a batch of one run's events; false when the writer is fenced (nothing was written). */
export async function insertRunEvents(
  db: Queryable,
  writer: { nodeId: string; epoch: number },
  runId: string,
  sessionKey: string,
  events: readonly PendingEvent[],
): Promise<boolean> {
  if (events.length === 0) return true;
  // ON CONFLICT: a batch retried after a lost COMMIT reply is already there, which is not a fencing.
  const { rows } = await db.query<{ owned: number; inserted: number }>(
    `WITH owner AS (
       SELECT 1 FROM cluster_runs
       WHERE run_id = $1 AND status = 'running' AND node_id = $2 AND node_epoch = $3 FOR SHARE
     ), ins AS (
       INSERT INTO cluster_run_events (run_id, session_key, seq, stream, ts, data)
       SELECT $1, $4, e.seq, e.stream, e.ts, e.data
       FROM unnest($5::int[], $6::text[], $7::bigint[], $8::jsonb[]) AS e(seq, stream, ts, data)
       WHERE EXISTS (SELECT 1 FROM owner)
       ON CONFLICT (run_id, seq) DO NOTHING RETURNING 1
     )
     SELECT (SELECT count(*) FROM owner)::int AS owned, (SELECT count(*) FROM ins)::int AS inserted`,
    [
      runId,
      writer.nodeId,
      writer.epoch,
      sessionKey,
      events.map((e) => e.seq),
      events.map((e) => e.stream),
      events.map((e) => e.ts),
      events.map((e) => JSON.stringify(e.data ?? null)),
    ],
  );
  const r = rows[0];
  if (!r || r.owned === 0) return false;
  if (r.inserted > 0) await notifySession(db, sessionKey);
  return true;
}

/** Wakes the session's tails on every node (delivered at commit). */
export async function notifySession(db: Queryable, sessionKey: string): Promise<void> {
  await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_EVENTS, sessionKey]);
}

interface EventRowDb {
  id: string;
  run_id: string;
  session_key: string;
  seq: number;
  stream: string;
  ts: string;
  data: unknown;
}

/** Events of one session after `afterId`, in order. */
export async function readSessionEvents(
  db: Queryable,
  sessionKey: string,
  afterId: number,
  limit = 1000,
): Promise<ClusterRunEvent[]> {
  const { rows } = await db.query<EventRowDb>(
    `SELECT id, run_id, session_key, seq, stream, ts, data FROM cluster_run_events
     WHERE session_key = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [sessionKey, afterId, limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    runId: r.run_id,
    sessionKey: r.session_key,
    seq: r.seq,
    stream: r.stream,
    ts: Number(r.ts),
    data: r.data,
  }));
}

/** The newest event id (a subscriber that wants live events only starts here). */
export async function lastEventId(db: Queryable, sessionKey: string): Promise<number> {
  const { rows } = await db.query<{ id: string | null }>(
    "SELECT max(id) AS id FROM cluster_run_events WHERE session_key = $1",
    [sessionKey],
  );
  return Number(rows[0]?.id ?? 0);
}

/**
 * Deletes the events of runs that ended more than `keepMs` ago by the database's clock (which stamped the ends),
 * at most `batch` rows. Returns how many.
 */
export async function pruneRunEvents(db: Queryable, keepMs: number, batch = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM cluster_run_events WHERE id IN (
       SELECT e.id FROM cluster_run_events e JOIN cluster_runs r ON r.run_id = e.run_id
       WHERE r.status NOT IN ('queued', 'running') AND r.ended_at < ${DB_NOW_MS} - $1 LIMIT $2)`,
    [keepMs, batch],
  );
  return rowCount ?? 0;
}
