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
 * - What a message does to its session's queue (steer, interrupt, cap and drop) is decided at its accept, in the
 *   same transaction (queue-admission.ts). Lock order, to keep accepts, claims and ends from waiting on each
 *   other in a cycle: a session's row before its runs' rows (an accept and an end take it first; a claim locks a
 *   head run with its session row, skipping sessions whose row is taken).
 * - Every stamp (accepted, started, ended) and every time comparison is the database's clock (DB_NOW_MS).
 *
 * Session advisory locks were the alternative: they live as long as a connection, so a node would pin one
 * connection per running session, and a lock dies with its connection on a brief network cut while the node
 * keeps running — leases plus row state survive both.
 */
import { LOCK_CLAIM, LOCK_NAMESPACE } from "./advisory-locks.js";
import { insertRunEvents, type PendingEvent } from "./event-log.js";
import { CHANNEL_CONTROL, CHANNEL_ENDED, CHANNEL_EVENTS, CHANNEL_QUEUED } from "./listener.js";
import type { ClusterPool, Queryable } from "./pool.js";
import { activeRunId, admitRun, queueStates, readRun } from "./queue-admission.js";
import { DB_NOW_MS, type RunRowDb, toRecord } from "./run-rows.js";
import type {
  ClusterQueueDefaults,
  ClusterRunOutcome,
  ClusterRunRecord,
  ClusterRunRequest,
  ClusterRunStatus,
  SubmitOptions,
  SubmitResult,
} from "./types.js";

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

/** What a claim took, and when the next one is due for a session in collect's quiet period. */
export interface ClaimResult {
  runs: ClusterRunRecord[];
  /** Milliseconds (by the database's clock) until the soonest quiet period still running ends; absent: none. */
  nextQuietMs?: number;
}

export class RunQueue {
  constructor(private readonly pool: ClusterPool) {}

  /**
   * Accepts a run: committed before this resolves (that is the ack), with the session's queue policy applied in
   * the same transaction (queue-admission.ts). A known runId returns the existing run and creates nothing,
   * whichever node accepted it; a retry after a lost COMMIT reply lands here too.
   */
  async submit(request: ClusterRunRequest, acceptedBy: string, opts: SubmitOptions = {}): Promise<SubmitResult> {
    if (!request.runId || !request.sessionKey) throw new Error("cluster submit: runId and sessionKey are required");
    return this.pool.tx((db) => admitRun(db, request, acceptedBy, opts));
  }

  get(runId: string): Promise<ClusterRunRecord | undefined> {
    return this.getWith(this.pool, runId);
  }

  private getWith(db: Queryable, runId: string): Promise<ClusterRunRecord | undefined> {
    return readRun(db, runId);
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

  /** The runId of the session's active turn: running, or accepted and waiting for a lane slot (queue-admission.ts). */
  activeRun(sessionKey: string, defaults?: ClusterQueueDefaults): Promise<string | undefined> {
    return activeRunId(this.pool, sessionKey, defaults);
  }

  /** Each session's active run and how many wait behind it (sessions.list, /status); idle sessions are absent. */
  queueStates(sessionKeys: string[], defaults?: ClusterQueueDefaults) {
    return queueStates(this.pool, sessionKeys, defaults);
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
   * Claims runs this node may start now: each the first waiting run of a session with nothing running, within
   * every lane's cluster-wide cap and this node's room, and only while the node's lease is valid (fencing).
   * Also returns runs already recorded as running under this node and epoch that the caller does not know
   * (`known`): a claim whose COMMIT reply was lost and then retried.
   */
  async claim(opts: ClaimOptions, known: ReadonlySet<string>): Promise<ClaimResult> {
    if (opts.room <= 0) return { runs: [] };
    return this.pool.tx(async (db) => {
      await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, LOCK_CLAIM]);
      const lease = await db.query(
        "SELECT 1 FROM cluster_nodes WHERE node_id = $1 AND epoch = $2 AND lease_until > now()",
        [opts.nodeId, opts.epoch],
      );
      if (lease.rowCount === 0) return { runs: [] };
      const mine = await db.query<RunRowDb>(
        "SELECT * FROM cluster_runs WHERE status = 'running' AND node_id = $1 AND node_epoch = $2",
        [opts.nodeId, opts.epoch],
      );
      const adopted = mine.rows.filter((r) => !known.has(r.run_id)).map(toRecord);
      const running = await db.query<{ lane: string; n: string }>(
        "SELECT lane, count(*) AS n FROM cluster_runs WHERE status = 'running' GROUP BY lane",
      );
      const free = new Map<string, number>();
      for (const [lane, cap] of Object.entries(opts.laneCaps)) free.set(lane, cap);
      for (const r of running.rows) free.set(r.lane, (free.get(r.lane) ?? 1) - Number(r.n));
      let room = opts.room - adopted.length;
      if (room <= 0 || ![...free.values()].some((n) => n > 0)) return { runs: await this.withMerged(db, adopted) };
      // A session's next turn is its first waiting run (a run dropped under drop:summarize heads only when nothing
      // else waits). `collect`: a run that came while its session was busy (`behind`, decided at its accept) waits
      // until the session's newest waiting run is `debounceMs` old, then takes every waiting run of the session
      // with it (one turn); any turn takes the summarized runs with it. How long is left of the quiet period is
      // reckoned by the database's clock (accepted_at is its stamp too), never a node's. The session rows are
      // locked with the runs (SKIP LOCKED): a session whose accept is in flight is left to the claim its commit
      // wakes, and that accept never waits on a row this claim holds.
      const candidates = await db.query<{
        run_id: string;
        session_key: string;
        lane: string;
        collect: boolean;
        summaries: boolean;
        quiet_in_ms: string;
      }>(
        `SELECT r.run_id, r.session_key, r.lane,
           (r.behind AND COALESCE(r.request->>'queueMode', s.queue_mode, $2) = 'collect') AS collect,
           EXISTS (SELECT 1 FROM cluster_runs m WHERE m.session_key = r.session_key AND m.status = 'queued'
                   AND m.merged_into IS NULL AND m.summarized AND m.run_id <> r.run_id) AS summaries,
           (SELECT max(q.accepted_at) FROM cluster_runs q WHERE q.session_key = r.session_key AND q.status = 'queued'
              AND q.merged_into IS NULL) + COALESCE(s.queue_debounce_ms, $3) - ${DB_NOW_MS} AS quiet_in_ms
         FROM cluster_runs r JOIN cluster_sessions s ON s.key = r.session_key
         WHERE r.status = 'queued' AND r.merged_into IS NULL
           AND NOT EXISTS (SELECT 1 FROM cluster_runs x WHERE x.session_key = r.session_key AND x.status = 'running')
           AND NOT EXISTS (SELECT 1 FROM cluster_runs y WHERE y.session_key = r.session_key AND y.status = 'queued'
                           AND y.merged_into IS NULL AND y.run_id <> r.run_id
                           AND CASE WHEN y.summarized THEN r.summarized AND y.session_pos < r.session_pos
                                    ELSE r.summarized OR y.session_pos < r.session_pos END)
         ORDER BY r.seq LIMIT $1 FOR UPDATE OF r, s SKIP LOCKED`,
        [Math.max(room * 4, 32), opts.queueDefaults?.mode ?? "followup", opts.queueDefaults?.debounceMs ?? 0],
      );
      const chosen: { runId: string; sessionKey: string; collect: boolean; summaries: boolean }[] = [];
      let nextQuietMs: number | undefined;
      for (const c of candidates.rows) {
        if (room <= 0) break;
        const quietIn = Number(c.quiet_in_ms);
        if (c.collect && quietIn > 0) {
          // Still in its quiet period: the claim after it ends takes it (the node sets a timer for that).
          nextQuietMs = Math.min(nextQuietMs ?? quietIn, quietIn);
          continue;
        }
        const left = free.get(c.lane) ?? 1; // an unconfigured lane has cap 1, like the single-node lanes
        if (left <= 0) continue;
        free.set(c.lane, left - 1);
        room--;
        chosen.push({ runId: c.run_id, sessionKey: c.session_key, collect: c.collect, summaries: c.summaries });
      }
      const quiet = nextQuietMs === undefined ? {} : { nextQuietMs };
      if (chosen.length === 0) return { runs: await this.withMerged(db, adopted), ...quiet };
      const merging = chosen.filter((c) => c.collect || c.summaries);
      if (merging.length > 0) {
        // Under the claim lock and the session rows' locks: nothing else takes these rows meanwhile.
        await db.query(
          `UPDATE cluster_runs q SET merged_into = c.run_id
           FROM unnest($1::text[], $2::text[], $3::boolean[]) AS c(run_id, session_key, collect)
           WHERE q.session_key = c.session_key AND q.status = 'queued' AND q.merged_into IS NULL
             AND q.run_id <> c.run_id AND (c.collect OR q.summarized)`,
          [merging.map((c) => c.runId), merging.map((c) => c.sessionKey), merging.map((c) => c.collect)],
        );
      }
      // Stamped after the count: every end this claim counted as done was recorded (and stamped) before it.
      const claimed = await db.query<RunRowDb>(
        `UPDATE cluster_runs SET status = 'running', node_id = $2, node_epoch = $3, started_at = ${DB_NOW_MS}
         WHERE run_id = ANY($1::text[]) AND status = 'queued'
         RETURNING *, EXISTS (SELECT 1 FROM cluster_run_inputs i WHERE i.run_id = cluster_runs.run_id) AS has_inputs`,
        [chosen.map((c) => c.runId), opts.nodeId, opts.epoch],
      );
      await db.query(
        `UPDATE cluster_sessions s SET last_run_id = r.run_id, last_run_status = 'running', updated_at = r.started_at
         FROM cluster_runs r WHERE r.run_id = ANY($1::text[]) AND s.key = r.session_key`,
        [chosen.map((c) => c.runId)],
      );
      const runs = [...adopted, ...claimed.rows.map(toRecord).sort((a, b) => a.acceptedAt - b.acceptedAt)];
      return { runs: await this.withMerged(db, runs), ...quiet };
    });
  }

  /** Fills `merged` of each run with the queued runs taken into its turn (collect, summarized), in session order. */
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
      // The session row first, as an accept takes it, so an accept (which reads this run) and this end never wait
      // on each other's locks; the stamp is the database's, taken in the transaction (a retry stamps its own).
      const stamp = await db.query<{ now: string }>(
        `SELECT ${DB_NOW_MS} AS now FROM cluster_sessions WHERE key = $1 FOR UPDATE`,
        [run.sessionKey],
      );
      const now = Number(stamp.rows[0]?.now ?? Date.now()); // no session row: a run accepted without one (never)
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
      // Runs merged into this one (collect, summarized) end with it, in the same commit: their waiters get this end.
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
   * is woken (it aborts the engine and records the end). A run merged into another's turn (collect, summarized)
   * aborts that turn, as a single node aborts the turn a request is a member of. Returns the run aborted (the
   * turn's, for a merged one), or undefined for an unknown id.
   */
  async requestAbort(runId: string): Promise<ClusterRunRecord | undefined> {
    return this.pool.tx(async (db) => {
      const { rows: found } = await db.query<{ merged_into: string | null; status: string }>(
        "SELECT merged_into, status FROM cluster_runs WHERE run_id = $1",
        [runId],
      );
      const into = found[0]?.status === "queued" ? found[0].merged_into : null;
      const target = into ?? runId;
      const { rows } = await db.query<RunRowDb>(
        `UPDATE cluster_runs SET abort_requested = true,
           status = CASE WHEN status = 'queued' THEN 'aborted' ELSE status END,
           ended_at = CASE WHEN status = 'queued' THEN ${DB_NOW_MS} ELSE ended_at END,
           summary = CASE WHEN status = 'queued' THEN 'aborted before it started' ELSE summary END
         WHERE run_id = $1 RETURNING *`,
        [target],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.status === "aborted" && row.node_id === null) {
        await db.query("SELECT pg_notify($1, md5($2)), pg_notify($3, '')", [CHANNEL_ENDED, target, CHANNEL_QUEUED]);
      } else if (row.status === "running") {
        await db.query("SELECT pg_notify($1, md5($2))", [CHANNEL_CONTROL, target]);
      }
      return toRecord(row);
    });
  }

  /**
   * Queues a steering message for a running run, for its node to inject at the next boundary. Returns false
   * (nothing stored) when the run is not running: the caller then submits the message as a follow-up run.
   */
  async steer(runId: string, message: string, byNode: string, requestId?: string): Promise<boolean> {
    return this.pool.tx(async (db) => {
      const { rows } = await db.query<{ status: string }>(
        "SELECT status FROM cluster_runs WHERE run_id = $1 FOR SHARE",
        [runId],
      );
      if (rows[0]?.status !== "running") return false;
      const ins = await db.query(
        `INSERT INTO cluster_run_inputs (run_id, kind, message, created_at, by_node, request_id)
         VALUES ($1, 'steer', $2, ${DB_NOW_MS}, $3, $4) ON CONFLICT (request_id) WHERE request_id IS NOT NULL DO NOTHING`,
        [runId, message, byNode, requestId ?? null],
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
  async interruptOrphans(): Promise<ClusterRunRecord[]> {
    return this.pool.tx(async (db) => {
      const orphans = `r.status = 'running'
        AND NOT EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = r.node_id AND n.epoch = r.node_epoch)`;
      // Their sessions' rows first, in key order, as an accept and a run's end take them.
      const stamp = await db.query<{ now: string }>(
        `SELECT ${DB_NOW_MS} AS now, (SELECT count(*) FROM (SELECT 1 FROM cluster_sessions s
           WHERE s.key IN (SELECT r.session_key FROM cluster_runs r WHERE ${orphans}) ORDER BY s.key FOR UPDATE) l) AS n`,
      );
      const now = Number(stamp.rows[0]?.now);
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
