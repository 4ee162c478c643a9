/**
 * What the cluster does with a message that reaches a session, decided where a single node's session queue
 * decides it (src/queue/session-queue.ts), with the same outcome, but in the accept's one transaction in
 * PostgreSQL: the session row's lock (taken first, by the upsert that numbers the run) serializes every accept of
 * the session on every node, and claims skip a session whose row is locked, so what this transaction reads of
 * the session's runs cannot change under it except by a run's end, which takes the same row lock first.
 *
 * - idle session: the run is queued as its session's next turn and a node claims it at once (`started`);
 * - interrupt: the active run is asked to abort (its node is woken), every waiting run ends `error`
 *   ("superseded"), the newcomer runs next;
 * - steer: with an active run and nothing waiting, the message becomes a steering input of that run (no run of
 *   its own; the active run's end answers it); else it waits like a follow-up;
 * - followup / collect: queued behind the session's runs (`behind`: collect's quiet period applies to it), then the
 *   cap: over it, drop:new ends the newest (the newcomer first) `error`, drop:old ends the oldest waiting `error`,
 *   drop:summarize marks the oldest waiting `summarized` (its session's next claim takes it into that turn).
 *
 * No node's clock takes part: stamps are the database's (DB_NOW_MS).
 */
import { randomUUID } from "node:crypto";
import { DROP_REASONS } from "../queue/drop-reasons.js";
import { CHANNEL_CONTROL, CHANNEL_ENDED, CHANNEL_QUEUED } from "./listener.js";
import type { Queryable } from "./pool.js";
import { DB_NOW_MS, type RunRowDb, toRecord } from "./run-rows.js";
import type {
  ClusterQueueDefaults,
  ClusterRunRecord,
  ClusterRunRequest,
  SubmitDisposition,
  SubmitOptions,
  SubmitResult,
} from "./types.js";

interface SessionRowDb {
  next_run_pos: string;
  queue_mode: string | null;
  queue_cap: number | null;
  queue_drop: string | null;
}

/** A run of the session still to end and not merged into another's turn. */
interface OpenRunDb {
  run_id: string;
  status: string;
  behind: boolean;
  summarized: boolean;
  abort_requested: boolean;
  queue_mode: string | null;
}

export async function readRun(db: Queryable, runId: string): Promise<ClusterRunRecord | undefined> {
  const { rows } = await db.query<RunRowDb>("SELECT * FROM cluster_runs WHERE run_id = $1", [runId]);
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** Accepts `request` in the caller's transaction (see the file comment); committed, that is the ack. */
export async function admitRun(
  db: Queryable,
  request: ClusterRunRequest,
  acceptedBy: string,
  opts: SubmitOptions = {},
): Promise<SubmitResult> {
  // The session row is the per-session counter; its row lock orders concurrent accepts of one session.
  const { rows: sessionRows } = await db.query<SessionRowDb>(
    `INSERT INTO cluster_sessions (key, agent_id, session_id, created_at, updated_at, next_run_pos)
     VALUES ($1, $2, $3, ${DB_NOW_MS}, ${DB_NOW_MS}, 1)
     ON CONFLICT (key) DO UPDATE SET next_run_pos = cluster_sessions.next_run_pos + 1, updated_at = EXCLUDED.updated_at
     RETURNING next_run_pos, queue_mode, queue_cap, queue_drop`,
    [request.sessionKey, request.agentId, randomUUID()],
  );
  // After the lock, so the same key committed by another node a moment ago is seen here. A retry of a request
  // steered into a run earlier (on any node) is answered with that run, never sent again.
  const { rows: knownRows } = await db.query<RunRowDb>(
    `SELECT * FROM cluster_runs WHERE run_id = $1
     UNION ALL
     SELECT r.* FROM cluster_run_inputs i JOIN cluster_runs r ON r.run_id = i.run_id WHERE i.request_id = $1`,
    [request.runId],
  );
  const known = knownRows[0];
  if (known) {
    const disposition = known.run_id === request.runId ? "known" : "steered";
    return { run: toRecord(known), created: false, disposition };
  }

  const session = sessionRows[0] as SessionRowDb;
  const defaults = opts.defaults;
  const sessionMode = session.queue_mode ?? defaults?.mode ?? "followup";
  const cap = session.queue_cap ?? defaults?.cap;
  const drop = session.queue_drop ?? defaults?.drop ?? "summarize";

  const open = await openRuns(db, request.sessionKey);
  const insert = async (behind: boolean): Promise<ClusterRunRecord> => {
    const { rows } = await db.query<RunRowDb>(
      `INSERT INTO cluster_runs (run_id, session_key, session_pos, lane, status, request, accepted_at, accepted_by, behind)
       VALUES ($1, $2, $3, $4, 'queued', $5, ${DB_NOW_MS}, $6, $7) RETURNING *`,
      [
        request.runId,
        request.sessionKey,
        session.next_run_pos,
        request.lane ?? "main",
        JSON.stringify(request),
        acceptedBy,
        behind,
      ],
    );
    return toRecord(rows[0] as RunRowDb);
  };
  const done = async (run: ClusterRunRecord, disposition: SubmitDisposition): Promise<SubmitResult> => {
    const current = disposition === "dropped" ? ((await readRun(db, run.runId)) ?? run) : run;
    await db.query(
      `WITH u AS (UPDATE cluster_sessions SET last_run_id = $1, last_run_status = $2 WHERE key = $3 RETURNING 1)
       SELECT pg_notify($4, '') FROM u`,
      [current.runId, current.status, request.sessionKey, CHANNEL_QUEUED],
    );
    return { run: current, created: true, disposition };
  };

  if (open.length === 0) return done(await insert(false), "started");
  if (opts.followupUncapped) return done(await insert(true), "queued");

  const running = open.find((r) => r.status === "running");
  const active = activeTurn(open, sessionMode);
  // What waits for a later turn (steer joins only a turn with nothing waiting; the cap counts these).
  const pending = open.filter((r) => r.status === "queued" && !r.summarized && r !== active);

  switch (request.queueMode ?? sessionMode) {
    case "interrupt": {
      if (running && !running.abort_requested) {
        await db.query("UPDATE cluster_runs SET abort_requested = true WHERE run_id = $1", [running.run_id]);
        await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_CONTROL, running.run_id]);
      }
      const queued = open.filter((r) => r.status === "queued");
      if (active && active !== running) await endQueued(db, [active.run_id], "aborted", "aborted before it started");
      const superseded = queued.filter((r) => r !== active).map((r) => r.run_id);
      await endQueued(db, superseded, "error", DROP_REASONS.interrupt);
      return done(await insert(true), "queued");
    }
    case "steer":
      if (active && pending.length === 0 && !active.abort_requested) {
        const ins = await db.query(
          `INSERT INTO cluster_run_inputs (run_id, kind, message, created_at, by_node, request_id)
           VALUES ($1, 'steer', $2, ${DB_NOW_MS}, $3, $4) ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING`,
          [active.run_id, request.message, acceptedBy, request.runId],
        );
        if ((ins.rowCount ?? 0) > 0) {
          await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_CONTROL, active.run_id]);
          return { run: (await readRun(db, active.run_id)) as ClusterRunRecord, created: true, disposition: "steered" };
        }
      }
      break;
    default:
      break;
  }

  const run = await insert(true);
  if (cap === undefined) return done(run, "queued");
  const queue = [...pending.map((r) => r.run_id), run.runId];
  const over = queue.length - cap;
  if (over <= 0) return done(run, "queued");
  if (drop === "new") {
    // As a single node: the newest go, the newcomer first.
    await endQueued(db, queue.slice(-over), "error", DROP_REASONS.new(cap));
    return done(run, "dropped");
  }
  const oldest = queue.slice(0, over);
  if (drop === "old") await endQueued(db, oldest, "error", DROP_REASONS.old(cap));
  else await db.query("UPDATE cluster_runs SET summarized = true WHERE run_id = ANY($1::text[])", [oldest]);
  return done(run, "queued");
}

/** The session's runs still to end and not merged into another's turn, in order. */
async function openRuns(db: Queryable, sessionKey: string): Promise<OpenRunDb[]> {
  const { rows } = await db.query<OpenRunDb>(
    `SELECT run_id, status, behind, summarized, abort_requested, request->>'queueMode' AS queue_mode
     FROM cluster_runs WHERE session_key = $1 AND status IN ('queued', 'running') AND merged_into IS NULL
     ORDER BY session_pos`,
    [sessionKey],
  );
  return rows;
}

/**
 * The session's active turn as a single node has it: the running run, else its first waiting run once that is a
 * turn (it came to an idle session, or collect's quiet period does not hold it), waiting for a lane slot.
 */
function activeTurn(open: OpenRunDb[], sessionMode: string): OpenRunDb | undefined {
  const running = open.find((r) => r.status === "running");
  if (running) return running;
  const head = open.find((r) => r.status === "queued" && !r.summarized);
  return head && (!head.behind || (head.queue_mode ?? sessionMode) !== "collect") ? head : undefined;
}

/** The runId of the session's active turn (what `chat.abort` without a runId stops), if it has one. */
export async function activeRunId(
  db: Queryable,
  sessionKey: string,
  defaults?: ClusterQueueDefaults,
): Promise<string | undefined> {
  const { rows } = await db.query<{ queue_mode: string | null }>(
    "SELECT queue_mode FROM cluster_sessions WHERE key = $1",
    [sessionKey],
  );
  const open = await openRuns(db, sessionKey);
  return activeTurn(open, rows[0]?.queue_mode ?? defaults?.mode ?? "followup")?.run_id;
}

/** Each session's active turn and how many runs wait behind it (sessions without open runs are absent). */
export async function queueStates(
  db: Queryable,
  sessionKeys: string[],
  defaults?: ClusterQueueDefaults,
): Promise<Map<string, { activeRunId?: string; queued: number }>> {
  const states = new Map<string, { activeRunId?: string; queued: number }>();
  if (sessionKeys.length === 0) return states;
  const { rows } = await db.query<OpenRunDb & { session_key: string; session_mode: string | null }>(
    `SELECT r.session_key, r.run_id, r.status, r.behind, r.summarized, r.abort_requested,
       r.request->>'queueMode' AS queue_mode, s.queue_mode AS session_mode
     FROM cluster_runs r LEFT JOIN cluster_sessions s ON s.key = r.session_key
     WHERE r.session_key = ANY($1::text[]) AND r.status IN ('queued', 'running') AND r.merged_into IS NULL
     ORDER BY r.session_key, r.session_pos`,
    [sessionKeys],
  );
  const bySession = new Map<string, typeof rows>();
  for (const r of rows) bySession.set(r.session_key, [...(bySession.get(r.session_key) ?? []), r]);
  for (const [key, open] of bySession) {
    const active = activeTurn(open, open[0]?.session_mode ?? defaults?.mode ?? "followup");
    const queued = open.filter((r) => r.status === "queued" && r !== active).length;
    states.set(key, { ...(active ? { activeRunId: active.run_id } : {}), queued });
  }
  return states;
}

/** Ends queued runs of the session without a turn; their waiters on every node are woken. */
async function endQueued(db: Queryable, runIds: string[], status: string, why: string): Promise<void> {
  if (runIds.length === 0) return;
  await db.query(
    `WITH e AS (UPDATE cluster_runs SET status = $2, ended_at = ${DB_NOW_MS}, error = $3, summary = $3
                WHERE run_id = ANY($1::text[]) AND status = 'queued' RETURNING run_id)
     SELECT pg_notify($4, md5(run_id)) FROM e`,
    [runIds, status, why, CHANNEL_ENDED],
  );
}
