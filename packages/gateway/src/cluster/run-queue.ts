/**
 * The cluster's run ledger and queue in one table (cluster_runs). Choice: row locks (`FOR UPDATE SKIP LOCKED`)
 * on the queue rows, with the claim decision serialized by a transaction-level advisory lock:
 *
 * - A run is claimed by flipping its row from `queued` to `running` with the claimer's node id and lease epoch,
 *   so exactly one node executes it, and the claim and the state are one commit (nothing to clean up when a node
 *   dies between the two).
 * - The global cap is a count over rows; two nodes counting at once would both see room, so claims take
 *   `pg_advisory_xact_lock` first (held for one short transaction, released at commit, also on a crash).
 *   SKIP LOCKED keeps a claim from waiting on a row someone is aborting meanwhile.
 * - A session's runs keep their order through `session_pos` (taken from the session row, which serializes
 *   submits of one session), and a run is claimable only when it is its session's first queued run and the
 *   session has none running; the unique partial index on running runs makes an overlap impossible anyway.
 *
 * Session advisory locks were the alternative: they live as long as a connection, so a node would pin one
 * connection per running session, and a lock dies with its connection on a brief network cut while the node
 * keeps running — leases plus row state survive both.
 */
import { randomUUID } from "node:crypto";
import { LOCK_CLAIM, LOCK_NAMESPACE } from "./advisory-locks.js";
import { insertRunEvents, type PendingEvent } from "./event-log.js";
import { CHANNEL_CONTROL, CHANNEL_ENDED, CHANNEL_EVENTS, CHANNEL_QUEUED } from "./listener.js";
import type { ClusterPool, Queryable } from "./pool.js";
import type {
  ClusterQueueDefaults,
  ClusterRunOutcome,
  ClusterRunRecord,
  ClusterRunRequest,
  ClusterRunStatus,
  SubmitResult,
} from "./types.js";

interface RunRowDb {
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
}

const num = (v: string | null): number | undefined => (v === null ? undefined : Number(v));

function toRecord(r: RunRowDb): ClusterRunRecord {
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
  };
}

export const TERMINAL: ReadonlySet<ClusterRunStatus> = new Set(["ok", "error", "timeout", "aborted", "interrupted"]);

export interface ClaimOptions {
  nodeId: string;
  epoch: number;
  /** Runs this node may still take. */
  room: number;
  laneCaps: Record<string, number>;
  /** This node's queue defaults, for sessions without a mode of their own (absent: no collect merging). */
  queueDefaults?: ClusterQueueDefaults;
}

export class RunQueue {
  constructor(private readonly pool: ClusterPool) {}

  /**
   * Accepts a run: committed before this resolves (that is the ack). A known runId returns the existing run
   * and creates nothing, whichever node accepted it; a retry after a lost COMMIT reply lands here too.
   */
  async submit(request: ClusterRunRequest, acceptedBy: string, now = Date.now()): Promise<SubmitResult> {
    if (!request.runId || !request.sessionKey) throw new Error("cluster submit: runId and sessionKey are required");
    return this.pool.tx(async (db) => {
      const known = await this.getWith(db, request.runId);
      if (known) return { run: known, created: false };
      // The session row is the per-session counter; its row lock orders concurrent submits of one session.
      const pos = await db.query<{ next_run_pos: string }>(
        `INSERT INTO cluster_sessions (key, agent_id, session_id, created_at, updated_at, next_run_pos)
         VALUES ($1, $2, $3, $4, $4, 1)
         ON CONFLICT (key) DO UPDATE SET next_run_pos = cluster_sessions.next_run_pos + 1, updated_at = $4
         RETURNING next_run_pos`,
        [request.sessionKey, request.agentId, randomUUID(), now],
      );
      const lane = request.lane ?? "main";
      const inserted = await db.query<RunRowDb>(
        `INSERT INTO cluster_runs (run_id, session_key, session_pos, lane, status, request, accepted_at, accepted_by)
         VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7) ON CONFLICT (run_id) DO NOTHING RETURNING *`,
        [request.runId, request.sessionKey, pos.rows[0]?.next_run_pos, lane, JSON.stringify(request), now, acceptedBy],
      );
      const row = inserted.rows[0];
      if (!row) {
        // The same key committed by another node a moment ago.
        const other = await this.getWith(db, request.runId);
        if (!other) throw new Error(`cluster submit: run ${request.runId} conflicted but cannot be read`);
        return { run: other, created: false };
      }
      await db.query("UPDATE cluster_sessions SET last_run_id = $1, last_run_status = 'queued' WHERE key = $2", [
        request.runId,
        request.sessionKey,
      ]);
      await db.query("SELECT pg_notify($1, '')", [CHANNEL_QUEUED]);
      return { run: toRecord(row), created: true };
    });
  }

  get(runId: string): Promise<ClusterRunRecord | undefined> {
    return this.getWith(this.pool, runId);
  }

  private async getWith(db: Queryable, runId: string): Promise<ClusterRunRecord | undefined> {
    const { rows } = await db.query<RunRowDb>("SELECT * FROM cluster_runs WHERE run_id = $1", [runId]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Runs of a session in order (newest last). */
  async forSession(sessionKey: string): Promise<ClusterRunRecord[]> {
    const { rows } = await this.pool.query<RunRowDb>(
      "SELECT * FROM cluster_runs WHERE session_key = $1 ORDER BY session_pos",
      [sessionKey],
    );
    return rows.map(toRecord);
  }

  /** Those of `runIds` that have ended (one statement for any number of waiters). */
  async ended(runIds: readonly string[]): Promise<ClusterRunRecord[]> {
    if (runIds.length === 0) return [];
    const { rows } = await this.pool.query<RunRowDb>(
      "SELECT * FROM cluster_runs WHERE run_id = ANY($1::text[]) AND status NOT IN ('queued', 'running')",
      [runIds],
    );
    return rows.map(toRecord);
  }

  /** Runs of a session still queued or running, in order (what an abort or a steer may target). */
  async activeForSession(sessionKey: string): Promise<ClusterRunRecord[]> {
    const { rows } = await this.pool.query<RunRowDb>(
      `SELECT * FROM cluster_runs WHERE session_key = $1 AND status IN ('queued', 'running') ORDER BY session_pos`,
      [sessionKey],
    );
    return rows.map(toRecord);
  }

  /**
   * Claims runs this node may start now: each the first queued run of a session with nothing running, within
   * every lane's cluster-wide cap and this node's room, and only while the node's lease is valid (fencing).
   * Also returns runs already recorded as running under this node and epoch that the caller does not know
   * (`known`): a claim whose COMMIT reply was lost and then retried.
   */
  async claim(opts: ClaimOptions, known: ReadonlySet<string>): Promise<ClusterRunRecord[]> {
    if (opts.room <= 0) return [];
    return this.pool.tx(async (db) => {
      await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, LOCK_CLAIM]);
      const lease = await db.query(
        "SELECT 1 FROM cluster_nodes WHERE node_id = $1 AND epoch = $2 AND lease_until > now()",
        [opts.nodeId, opts.epoch],
      );
      if (lease.rowCount === 0) return [];
      const mine = await db.query<RunRowDb>(
        "SELECT * FROM cluster_runs WHERE status = 'running' AND node_id = $1 AND node_epoch = $2",
        [opts.nodeId, opts.epoch],
      );
      const adopted = mine.rows.filter((r) => !known.has(r.run_id)).map(toRecord);
      const running = await db.query<{ lane: string; n: string }>(
        "SELECT lane, count(*) AS n FROM cluster_runs WHERE status = 'running' GROUP BY lane",
      );
      // Stamped after the count: every end this claim counted as done was recorded (and stamped) before it.
      const now = Date.now();
      const free = new Map<string, number>();
      for (const [lane, cap] of Object.entries(opts.laneCaps)) free.set(lane, cap);
      for (const r of running.rows) free.set(r.lane, (free.get(r.lane) ?? 1) - Number(r.n));
      let room = opts.room - adopted.length;
      if (room <= 0 || ![...free.values()].some((n) => n > 0)) return this.withMerged(db, adopted);
      // `collect`: a run that arrived while its session was busy (an earlier run had not ended when it was
      // accepted) waits until the session's newest queued run is `debounceMs` old, then takes every queued run of
      // the session with it (one turn). A run that arrived at an idle session starts at once, alone, as on a
      // single node. The times are the nodes' clocks (accepted_at, ended_at): nodes' clocks must agree to well
      // under the debounce.
      const candidates = await db.query<{
        run_id: string;
        session_key: string;
        lane: string;
        collect: boolean;
        quiet_at: string;
      }>(
        `SELECT r.run_id, r.session_key, r.lane,
           (COALESCE(r.request->'params'->'request'->>'queueMode', s.queue_mode, $2) = 'collect'
             AND EXISTS (SELECT 1 FROM cluster_runs z WHERE z.session_key = r.session_key
                         AND z.session_pos < r.session_pos AND (z.ended_at IS NULL OR z.ended_at > r.accepted_at))
           ) AS collect,
           (SELECT max(q.accepted_at) FROM cluster_runs q WHERE q.session_key = r.session_key AND q.status = 'queued'
              AND q.merged_into IS NULL) + COALESCE(s.queue_debounce_ms, $3) AS quiet_at
         FROM cluster_runs r LEFT JOIN cluster_sessions s ON s.key = r.session_key
         WHERE r.status = 'queued' AND r.merged_into IS NULL
           AND NOT EXISTS (SELECT 1 FROM cluster_runs x WHERE x.session_key = r.session_key AND x.status = 'running')
           AND NOT EXISTS (SELECT 1 FROM cluster_runs y WHERE y.session_key = r.session_key AND y.status = 'queued'
                           AND y.session_pos < r.session_pos)
         ORDER BY r.seq LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
        [Math.max(room * 4, 32), opts.queueDefaults?.mode ?? "followup", opts.queueDefaults?.debounceMs ?? 0],
      );
      const chosen: string[] = [];
      const collecting: { runId: string; sessionKey: string }[] = [];
      for (const c of candidates.rows) {
        if (room <= 0) break;
        if (c.collect && Number(c.quiet_at) > now) continue; // still in its quiet period: a later claim takes it
        const left = free.get(c.lane) ?? 1; // an unconfigured lane has cap 1, like the single-node lanes
        if (left <= 0) continue;
        free.set(c.lane, left - 1);
        room--;
        chosen.push(c.run_id);
        if (c.collect) collecting.push({ runId: c.run_id, sessionKey: c.session_key });
      }
      if (chosen.length === 0) return this.withMerged(db, adopted);
      for (const c of collecting) {
        // Under the claim lock: no other claim sees these rows meanwhile, and they are taken all together.
        await db.query(
          `UPDATE cluster_runs SET merged_into = $1
           WHERE session_key = $2 AND status = 'queued' AND merged_into IS NULL AND run_id <> $1`,
          [c.runId, c.sessionKey],
        );
      }
      const claimed = await db.query<RunRowDb>(
        `UPDATE cluster_runs SET status = 'running', node_id = $2, node_epoch = $3, started_at = $4
         WHERE run_id = ANY($1::text[]) AND status = 'queued' RETURNING *`,
        [chosen, opts.nodeId, opts.epoch, now],
      );
      await db.query(
        `UPDATE cluster_sessions s SET last_run_id = r.run_id, last_run_status = 'running', updated_at = $2
         FROM cluster_runs r WHERE r.run_id = ANY($1::text[]) AND s.key = r.session_key`,
        [chosen, now],
      );
      const runs = [...adopted, ...claimed.rows.map(toRecord).sort((a, b) => a.acceptedAt - b.acceptedAt)];
      return this.withMerged(db, runs);
    });
  }

  /** Fills `merged` of each run with the queued runs taken into its turn (collect), in session order. */
  private async withMerged(db: Queryable, runs: ClusterRunRecord[]): Promise<ClusterRunRecord[]> {
    if (runs.length === 0) return runs;
    const { rows } = await db.query<RunRowDb>(
      "SELECT * FROM cluster_runs WHERE merged_into = ANY($1::text[]) ORDER BY session_pos",
      [runs.map((r) => r.runId)],
    );
    for (const row of rows) {
      const run = runs.find((r) => r.runId === row.merged_into);
      if (run) (run.merged ??= []).push(toRecord(row));
    }
    return runs;
  }

  /**
   * Records a run's end together with its last events, fenced by node id and epoch. Returns false when this
   * node no longer owns the run (it was declared dead and the run interrupted): nothing is written.
   */
  async finish(
    run: ClusterRunRecord,
    writer: { nodeId: string; epoch: number },
    outcome: ClusterRunOutcome,
    lastEvents: readonly PendingEvent[],
  ): Promise<boolean> {
    return this.pool.tx(async (db) => {
      const now = Date.now(); // in the transaction: a retried one stamps the time it actually ran
      const written = await insertRunEvents(db, writer, run.runId, run.sessionKey, lastEvents);
      const { rowCount } = await db.query(
        `UPDATE cluster_runs SET status = $4, ended_at = $5, error = $6, summary = $7, result = $8
         WHERE run_id = $1 AND status = 'running' AND node_id = $2 AND node_epoch = $3`,
        [
          run.runId,
          writer.nodeId,
          writer.epoch,
          outcome.status,
          now,
          outcome.error ?? null,
          outcome.summary ?? null,
          outcome.result === undefined ? null : JSON.stringify(outcome.result),
        ],
      );
      if (rowCount === 0 || !written) {
        // A retried COMMIT may have recorded exactly this end already.
        const again = await this.getWith(db, run.runId);
        return again?.status === outcome.status && again.nodeId === writer.nodeId && again.nodeEpoch === writer.epoch;
      }
      await db.query(
        "UPDATE cluster_sessions SET last_run_id = $1, last_run_status = $2, updated_at = $3 WHERE key = $4",
        [run.runId, outcome.status, now, run.sessionKey],
      );
      // Runs merged into this one (collect) end with it, in the same commit: their waiters get this end.
      await db.query(
        `WITH m AS (UPDATE cluster_runs SET status = $2, ended_at = $3, error = $4, summary = $5, result = $6
                    WHERE merged_into = $1 AND status = 'queued' RETURNING run_id)
         SELECT pg_notify($7, md5(run_id)) FROM m`,
        [
          run.runId,
          outcome.status,
          now,
          outcome.error ?? null,
          outcome.summary ?? null,
          outcome.result === undefined ? null : JSON.stringify(outcome.result),
          CHANNEL_ENDED,
        ],
      );
      await db.query("SELECT pg_notify($1, md5($2)), pg_notify($3, '')", [CHANNEL_ENDED, run.runId, CHANNEL_QUEUED]);
      return true;
    });
  }

  /**
   * Asks for an abort from any node. A queued run ends `aborted` at once; a running one is flagged and its node
   * is woken (it aborts the engine and records the end). Returns the run, or undefined for an unknown id.
   */
  async requestAbort(runId: string, now = Date.now()): Promise<ClusterRunRecord | undefined> {
    return this.pool.tx(async (db) => {
      const { rows } = await db.query<RunRowDb>(
        `UPDATE cluster_runs SET abort_requested = true,
           status = CASE WHEN status = 'queued' THEN 'aborted' ELSE status END,
           ended_at = CASE WHEN status = 'queued' THEN $2 ELSE ended_at END,
           summary = CASE WHEN status = 'queued' THEN 'aborted before it started' ELSE summary END
         WHERE run_id = $1 RETURNING *`,
        [runId, now],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.status === "aborted" && row.node_id === null) {
        await db.query("SELECT pg_notify($1, md5($2)), pg_notify($3, '')", [CHANNEL_ENDED, runId, CHANNEL_QUEUED]);
      } else if (row.status === "running") {
        await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_CONTROL, runId]);
      }
      return toRecord(row);
    });
  }

  /**
   * Queues a steering message for a running run, for its node to inject at the next boundary. Returns false
   * (nothing stored) when the run is not running: the caller then submits the message as a follow-up run.
   */
  async steer(runId: string, message: string, byNode: string, requestId?: string, now = Date.now()): Promise<boolean> {
    return this.pool.tx(async (db) => {
      const { rows } = await db.query<{ status: string }>(
        "SELECT status FROM cluster_runs WHERE run_id = $1 FOR SHARE",
        [runId],
      );
      if (rows[0]?.status !== "running") return false;
      const ins = await db.query(
        `INSERT INTO cluster_run_inputs (run_id, kind, message, created_at, by_node, request_id)
         VALUES ($1, 'steer', $2, $3, $4, $5) ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING`,
        [runId, message, now, byNode, requestId ?? null],
      );
      if (ins.rowCount === 0) return (await this.steeredInto(requestId as string, db)) === runId; // a retry
      await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_CONTROL, runId]);
      return true;
    });
  }

  /** The run a request (idempotency key) was steered into, if it was. */
  async steeredInto(requestId: string, db: Queryable = this.pool): Promise<string | undefined> {
    const { rows } = await db.query<{ run_id: string }>("SELECT run_id FROM cluster_run_inputs WHERE request_id = $1", [
      requestId,
    ]);
    return rows[0]?.run_id;
  }

  /** Steering messages of these runs after `afterId`, in commit order. */
  async inputs(
    runIds: readonly string[],
    afterId: number,
  ): Promise<Array<{ id: number; runId: string; message: string }>> {
    if (runIds.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string; run_id: string; message: string }>(
      "SELECT id, run_id, message FROM cluster_run_inputs WHERE run_id = ANY($1::text[]) AND id > $2 ORDER BY id",
      [runIds, afterId],
    );
    return rows.map((r) => ({ id: Number(r.id), runId: r.run_id, message: r.message }));
  }

  /** Which of these running runs have an abort requested. */
  async abortsRequested(runIds: readonly string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const { rows } = await this.pool.query<{ run_id: string }>(
      "SELECT run_id FROM cluster_runs WHERE run_id = ANY($1::text[]) AND abort_requested",
      [runIds],
    );
    return rows.map((r) => r.run_id);
  }

  /**
   * Ends as `interrupted` every run still `running` under a node id and epoch that has no membership row: its
   * node died (the reaper removed it), or rejoined under a new epoch. Each gets a final lifecycle event after
   * its last one. Every node sweeps; a sweep that crashes half-way is finished by the next one. Returns the
   * runs ended here.
   */
  async interruptOrphans(now = Date.now()): Promise<ClusterRunRecord[]> {
    return this.pool.tx(async (db) => {
      const { rows } = await db.query<RunRowDb>(
        `UPDATE cluster_runs r SET status = 'interrupted', ended_at = $1, summary = 'interrupted',
           error = 'node ' || r.node_id || ' stopped (its lease expired) before the run finished'
         WHERE r.status = 'running'
           AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = r.node_id AND n.epoch = r.node_epoch)
         RETURNING r.*`,
        [now],
      );
      for (const r of rows) {
        await db.query(
          `INSERT INTO cluster_run_events (run_id, session_key, seq, stream, ts, data)
           SELECT $1, $2, COALESCE(max(seq), 0) + 1, 'lifecycle', $3, $4 FROM cluster_run_events WHERE run_id = $1`,
          [r.run_id, r.session_key, now, JSON.stringify({ phase: "error", interrupted: true, error: r.error })],
        );
        await db.query(
          "UPDATE cluster_sessions SET last_run_id = $1, last_run_status = 'interrupted', updated_at = $2 WHERE key = $3",
          [r.run_id, now, r.session_key],
        );
        await db.query(
          `WITH m AS (UPDATE cluster_runs SET status = 'interrupted', ended_at = $2, summary = 'interrupted', error = $3
                      WHERE merged_into = $1 AND status = 'queued' RETURNING run_id)
           SELECT pg_notify($4, md5(run_id)) FROM m`,
          [r.run_id, now, r.error, CHANNEL_ENDED],
        );
        await db.query("SELECT pg_notify($1, md5($2)), pg_notify($3, md5($4))", [
          CHANNEL_ENDED,
          r.run_id,
          CHANNEL_EVENTS,
          r.session_key,
        ]);
      }
      if (rows.length > 0) await db.query("SELECT pg_notify($1, '')", [CHANNEL_QUEUED]);
      return rows.map(toRecord);
    });
  }
}
