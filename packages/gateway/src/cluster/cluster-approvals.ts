/**
 * Pending approvals shared by the gateways of a cluster, in PostgreSQL (`cluster_approvals`, migration 6). The
 * node executing a run inserts its request (committed before anyone hears of it); every state change takes the
 * next change id under an advisory lock and sends a NOTIFY, and every node tails the table by change id (woken
 * by the NOTIFY, polled as a safety net, caught up after a reconnect), so each node hears of each change once,
 * in commit order, and announces it to its own approvers. A decision from any node is one conditional UPDATE
 * (first wins); the executing node's tail hands it to its agent. A timeout is committed the same way (`expire`, by
 * the database clock) by the executing node, so exactly one of a decision and the timeout wins. Whether anyone can be asked is a row per node
 * (`cluster_approvers`), counted only while that node's lease is valid, so a dead node's approvers vanish with
 * its lease.
 *
 * A run whose node dies is not resumed elsewhere: the reaper ends it `interrupted`, and the sweep here (every
 * node, every poll) then ends its approvals as aborted with a reason naming the node, so no approval stays
 * pending with nobody able to clear it. Times compared across nodes are the database's (`now()`).
 */
import type { ToolResultMessage } from "@tiller/ai";
import { type ApprovalRow, approvalFromRow, type ColumnDecoders } from "../approvals/approval-row.js";
import type {
  ApprovalEnd,
  ApprovalStatus,
  SharedApprovals,
  SharedDecideRefusal,
  SharedExpireResult,
  StoredApproval,
} from "../approvals/types.js";
import { LOCK_APPROVALS, LOCK_NAMESPACE } from "./advisory-locks.js";
import type { ClusterNode } from "./cluster-node.js";
import { CHANNEL_APPROVALS } from "./listener.js";
import type { Queryable } from "./pool.js";

const KEEP_RESOLVED_MS = 24 * 60 * 60_000;
/** Changes read per statement of the tail. */
const PAGE = 200;

/** PostgreSQL's row: jsonb columns parsed by the driver, bigint times as strings; plus its change id. */
interface ApprovalRowPg extends ApprovalRow<unknown, string> {
  change_id: string;
}
const PG_COLUMNS: ColumnDecoders<unknown, string> = { json: (v) => v, time: (v) => Number(v) };

const NEXT_CHANGE = "nextval('cluster_approval_change')";

export class ClusterApprovals implements SharedApprovals {
  private cursor = 0;
  private readonly listeners = new Set<(a: StoredApproval) => void>();
  private anyPresent = false;
  private local = false;
  /** The epoch this node's presence row was last written under (a rejoin writes it again). */
  private publishedEpoch: number | undefined;
  private publishing: Promise<void> = Promise.resolve();
  private pulling = false;
  private pullAgain = false;
  private sweeping = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly node: ClusterNode,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts tailing from the newest change, resets this node's presence, and polls every `pollMs`. */
  static async start(node: ClusterNode, opts: { pollMs?: number; log?: (line: string) => void } = {}) {
    const c = new ClusterApprovals(node, opts.log ?? (() => {}));
    const { rows } = await node.pool.query<{ id: string | null }>("SELECT max(change_id) AS id FROM cluster_approvals");
    c.cursor = Number(rows[0]?.id ?? 0);
    await node.pool.query("DELETE FROM cluster_approvals WHERE status = 'resolved' AND resolved_at < $1", [
      Date.now() - KEEP_RESOLVED_MS,
    ]);
    node.listener.on(CHANNEL_APPROVALS, (what) => {
      if (what === "presence") void c.refreshPresence().catch(() => {});
      else void c.pull();
    });
    node.listener.onReconnect(() => void c.tick());
    // A previous process under this node id may have left its row saying "present".
    c.publish();
    await c.publishing;
    await c.refreshPresence().catch(() => false);
    c.timer = setInterval(() => void c.tick(), opts.pollMs ?? 1000);
    c.timer.unref();
    return c;
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    if (this.node.epoch !== undefined && this.node.epoch !== this.publishedEpoch) this.publish();
    void this.pull();
    await Promise.all([this.refreshPresence().catch(() => false), this.sweep()]);
  }

  // ---- Presence ------------------------------------------------------------------------------------------------

  anyApprover(): boolean {
    return this.anyPresent || this.local;
  }

  setLocalApprover(present: boolean): void {
    if (present === this.local && this.publishedEpoch === this.node.epoch) return;
    this.local = present;
    this.publish();
  }

  /** Writes this node's presence (the latest value; writes are one after another) and wakes the other nodes. */
  private publish(): void {
    this.publishing = this.publishing.then(async () => {
      const epoch = this.node.epoch;
      if (epoch === undefined || this.closed) return; // fenced: written again after the rejoin (tick)
      try {
        await this.node.pool.tx(async (db) => {
          await db.query(
            `INSERT INTO cluster_approvers (node_id, epoch, present) VALUES ($1, $2, $3)
             ON CONFLICT (node_id) DO UPDATE SET epoch = EXCLUDED.epoch, present = EXCLUDED.present, updated_at = now()`,
            [this.node.nodeId, epoch, this.local],
          );
          await db.query("SELECT pg_notify($1, 'presence')", [CHANNEL_APPROVALS]);
        });
        this.publishedEpoch = epoch;
      } catch (err) {
        this.log(`[cluster] approver presence not written: ${(err as Error).message}`);
      }
    });
  }

  async refreshPresence(): Promise<boolean> {
    const { rows } = await this.node.pool.query<{ any: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM cluster_approvers a JOIN cluster_nodes n ON n.node_id = a.node_id AND n.epoch = a.epoch
         WHERE a.present AND n.lease_until > now()) AS any`,
    );
    this.anyPresent = rows[0]?.any === true;
    return this.anyApprover();
  }

  // ---- The store -----------------------------------------------------------------------------------------------

  async insert(a: StoredApproval): Promise<void> {
    const timeoutMs = a.approval.request.timeoutMs;
    await this.change(async (db) => {
      const { rowCount } = await db.query(
        `INSERT INTO cluster_approvals (id, kind, session_key, agent_id, run_id, node_id, status, approval, request,
           results, created_at, expires_at, expires_db, change_id)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $11,
           CASE WHEN $12::float8 IS NULL THEN NULL ELSE now() + $12::float8 * interval '1 millisecond' END, ${NEXT_CHANGE})
         ON CONFLICT (id) DO NOTHING`,
        [
          a.id,
          a.kind,
          a.sessionKey,
          a.agentId,
          a.runId,
          this.node.nodeId,
          JSON.stringify(a.approval),
          JSON.stringify(a.request),
          JSON.stringify(a.results),
          a.createdAt,
          a.expiresAt ?? null,
          timeoutMs ?? null,
        ],
      );
      return (rowCount ?? 0) > 0;
    });
  }

  async get(id: string): Promise<StoredApproval | undefined> {
    const { rows } = await this.node.pool.query<ApprovalRowPg>("SELECT * FROM cluster_approvals WHERE id = $1", [id]);
    return rows[0] ? toApproval(rows[0]) : undefined;
  }

  async withStatus(status: ApprovalStatus): Promise<StoredApproval[]> {
    const { rows } = await this.node.pool.query<ApprovalRowPg>(
      "SELECT * FROM cluster_approvals WHERE status = $1 ORDER BY created_at, id",
      [status],
    );
    return rows.map(toApproval);
  }

  async ofRun(runId: string): Promise<StoredApproval[]> {
    const { rows } = await this.node.pool.query<ApprovalRowPg>(
      "SELECT * FROM cluster_approvals WHERE run_id = $1 ORDER BY created_at, id",
      [runId],
    );
    return rows.map(toApproval);
  }

  async setResults(runId: string, results: readonly ToolResultMessage[]): Promise<void> {
    // Not a change of state: the other nodes need not hear of it.
    await this.node.pool.query("UPDATE cluster_approvals SET results = $2 WHERE run_id = $1 AND status = 'pending'", [
      runId,
      JSON.stringify(results),
    ]);
  }

  end(id: string, from: ApprovalStatus, to: ApprovalStatus, e: ApprovalEnd): Promise<boolean> {
    return this.change(async (db) => {
      const { rowCount } = await db.query(
        `UPDATE cluster_approvals SET status = $3, decision = $4, cause = $5, resolved_by = $6, reason = $7,
           resolved_at = $8, change_id = ${NEXT_CHANGE}
         WHERE id = $1 AND status = $2`,
        [id, from, to, e.decision, e.cause, e.resolvedBy ?? null, e.reason ?? null, e.at],
      );
      return rowCount === 1;
    });
  }

  /** Nothing to consume: a cluster never resumes a batch in another run (decided leftovers are swept). */
  consume(): Promise<void> {
    return Promise.resolve();
  }

  async decide(id: string, e: ApprovalEnd): Promise<{ ok: true; approval: StoredApproval } | SharedDecideRefusal> {
    let won: StoredApproval | undefined;
    await this.change(async (db) => {
      const { rows } = await db.query<ApprovalRowPg>(
        `UPDATE cluster_approvals a SET status = 'decided', decision = $2, cause = $3, resolved_by = $4, reason = $5,
           resolved_at = $6, change_id = ${NEXT_CHANGE}
         WHERE a.id = $1 AND a.status = 'pending' AND (a.expires_db IS NULL OR a.expires_db > now())
           AND EXISTS (
             SELECT 1 FROM cluster_runs r JOIN cluster_nodes n ON n.node_id = r.node_id AND n.epoch = r.node_epoch
             WHERE r.run_id = a.run_id AND r.status = 'running' AND n.lease_until > now())
         RETURNING a.*`,
        [id, e.decision, e.cause, e.resolvedBy ?? null, e.reason ?? null, e.at],
      );
      won = rows[0] ? toApproval(rows[0]) : undefined;
      return won !== undefined;
    });
    if (won) return { ok: true, approval: won };
    return this.whyRefused(id);
  }

  async expire(id: string, e: ApprovalEnd): Promise<SharedExpireResult> {
    let won: StoredApproval | undefined;
    await this.change(async (db) => {
      const { rows } = await db.query<ApprovalRowPg>(
        `UPDATE cluster_approvals SET status = 'decided', decision = $2, cause = $3, resolved_by = $4, reason = $5,
           resolved_at = $6, change_id = ${NEXT_CHANGE}
         WHERE id = $1 AND status = 'pending' AND expires_db IS NOT NULL AND expires_db <= now()
         RETURNING *`,
        [id, e.decision, e.cause, e.resolvedBy ?? null, e.reason ?? null, e.at],
      );
      won = rows[0] ? toApproval(rows[0]) : undefined;
      return won !== undefined;
    });
    if (won) return { ok: true, approval: won };
    const { rows } = await this.node.pool.query<ApprovalRowPg & { left_ms: number | null }>(
      `SELECT *, GREATEST(0, EXTRACT(EPOCH FROM (expires_db - now())) * 1000)::float8 AS left_ms
       FROM cluster_approvals WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (row && row.status !== "pending") return { ok: false, reason: "decided", approval: toApproval(row) };
    if (!row || row.left_ms === null) return { ok: false, reason: "not_found" };
    return { ok: false, reason: "early", inMs: Math.ceil(row.left_ms) };
  }

  private async whyRefused(id: string): Promise<SharedDecideRefusal> {
    const { rows } = await this.node.pool.query<
      ApprovalRowPg & { expired: boolean; run_status: string | null; run_node: string | null; node_alive: boolean }
    >(
      `SELECT a.*, (a.expires_db IS NOT NULL AND a.expires_db <= now()) AS expired, r.status AS run_status,
         r.node_id AS run_node,
         EXISTS (SELECT 1 FROM cluster_nodes n WHERE n.node_id = r.node_id AND n.epoch = r.node_epoch
                 AND n.lease_until > now()) AS node_alive
       FROM cluster_approvals a LEFT JOIN cluster_runs r ON r.run_id = a.run_id WHERE a.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return { ok: false, reason: "not_found" };
    const approval = toApproval(row);
    if (row.status !== "pending") return { ok: false, reason: "decided", approval };
    if (row.expired) return { ok: false, reason: "expired", approval };
    void this.sweep(); // a run that is gone: its approvals end now rather than at the next poll
    return {
      ok: false,
      reason: "run_gone",
      approval,
      runStatus:
        row.run_status === "running" && !row.node_alive ? "on a node whose lease expired" : (row.run_status ?? "gone"),
      ...(row.run_node ? { nodeId: row.run_node } : {}),
    };
  }

  /**
   * Ends the open approvals of runs that are no longer running (their node died and the reaper ended them
   * interrupted, or they ended some other way without taking the decision): denied, cause aborted, with the reason.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    try {
      // Most polls find nothing: one plain read, the locked transaction only when there is something to end.
      const { rows } = await this.node.pool.query(
        `SELECT 1 FROM cluster_approvals a LEFT JOIN cluster_runs r ON r.run_id = a.run_id
         WHERE a.status <> 'resolved' AND (r.run_id IS NULL OR r.status NOT IN ('queued', 'running')) LIMIT 1`,
      );
      if (rows.length === 0) return;
      await this.change(async (db) => {
        const { rowCount } = await db.query(
          `WITH gone AS (
             SELECT a.id, r.status AS run_status, r.node_id AS run_node
             FROM cluster_approvals a LEFT JOIN cluster_runs r ON r.run_id = a.run_id
             WHERE a.status <> 'resolved' AND (r.run_id IS NULL OR r.status NOT IN ('queued', 'running'))
             FOR UPDATE OF a SKIP LOCKED
           )
           UPDATE cluster_approvals a SET status = 'resolved', decision = 'deny', cause = 'aborted',
             resolved_by = 'cluster', resolved_at = $1, change_id = ${NEXT_CHANGE},
             reason = CASE WHEN g.run_status = 'interrupted'
               THEN 'the gateway node ' || COALESCE(g.run_node, a.node_id) || ' executing the run stopped; the run ended interrupted'
               ELSE 'the run ended (' || COALESCE(g.run_status, 'unknown') || ') without taking a decision' END
           FROM gone g WHERE a.id = g.id`,
          [Date.now()],
        );
        return (rowCount ?? 0) > 0;
      });
    } catch (err) {
      this.log(`[cluster] approvals sweep: ${(err as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * One change of state: under the approvals lock (change ids commit in the order they are taken), with a
   * NOTIFY to every node when `fn` changed something (delivered at commit). Resolves with `fn`'s answer.
   */
  private async change(fn: (db: Queryable) => Promise<boolean>): Promise<boolean> {
    const changed = await this.node.pool.tx(async (db) => {
      await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, LOCK_APPROVALS]);
      const did = await fn(db);
      if (did) await db.query("SELECT pg_notify($1, 'change')", [CHANNEL_APPROVALS]);
      return did;
    });
    if (changed) void this.pull(); // this node hears of its own change at once, notification or not
    return changed;
  }

  // ---- The tail ------------------------------------------------------------------------------------------------

  onChange(listener: (a: StoredApproval) => void): void {
    this.listeners.add(listener);
  }

  private async pull(): Promise<void> {
    if (this.closed) return;
    if (this.pulling) {
      this.pullAgain = true;
      return;
    }
    this.pulling = true;
    try {
      do {
        this.pullAgain = false;
        const { rows } = await this.node.pool.query<ApprovalRowPg>(
          "SELECT * FROM cluster_approvals WHERE change_id > $1 ORDER BY change_id LIMIT $2",
          [this.cursor, PAGE],
        );
        for (const row of rows) {
          this.cursor = Number(row.change_id);
          const a = toApproval(row);
          for (const l of this.listeners) {
            try {
              l(a);
            } catch (err) {
              this.log(`[cluster] approval ${a.id}: ${(err as Error).message}`);
            }
          }
        }
        if (rows.length === PAGE) this.pullAgain = true;
      } while (this.pullAgain && !this.closed);
    } catch (err) {
      this.log(`[cluster] approvals tail failed: ${(err as Error).message}; retrying on the next wake-up`);
    } finally {
      this.pulling = false;
    }
  }

  /** Stops polling; the pool is the cluster node's (closed with it). */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function toApproval(r: ApprovalRowPg): StoredApproval {
  return approvalFromRow(r, PG_COLUMNS);
}
