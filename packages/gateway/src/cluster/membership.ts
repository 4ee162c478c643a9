/**
 * Node membership with leases. A node joins with a fresh epoch (a database sequence) and renews its lease every
 * heartbeat; the lease end is computed by the database clock. A heartbeat that finds its row gone or its epoch
 * changed means the node was declared dead (a partition outlasted its lease): it is fenced, must drop what it
 * runs, and rejoins under a new epoch. A node that cannot reach the database for a whole lease fences itself
 * by its own monotonic clock, measured from the last renewal it *sent*, which is never later than what the
 * database saw, so it has stopped before its peers take its sessions over.
 */
import { hostname } from "node:os";
import type { ClusterPool } from "./pool.js";
import type { ClusterNodeInfo, LeaseTiming } from "./types.js";

export const DEFAULT_LEASE: LeaseTiming = { leaseMs: 5000, heartbeatMs: 1000, reapGraceMs: 1000, reapIntervalMs: 1000 };

export interface ExpiredNode {
  nodeId: string;
  epoch: number;
}

export class NodeMembership {
  private currentEpoch: number | undefined;
  /** performance.now() when the last successful renewal was sent. */
  private renewedSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  private stopped = false;

  constructor(
    private readonly pool: ClusterPool,
    readonly nodeId: string,
    private readonly timing: LeaseTiming,
    private readonly hooks: {
      /** Called once each time this node loses its lease (it must abort its runs). */
      onFenced: (epoch: number) => void;
      /** Called after each (re)join, before any claim: runs held under older epochs must be ended. */
      onJoined: (epoch: number) => Promise<void>;
    },
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The epoch while the lease is believed valid, else undefined (fenced: claim nothing, write nothing). */
  get epoch(): number | undefined {
    if (this.currentEpoch === undefined) return undefined;
    if (performance.now() - this.renewedSentAt >= this.timing.leaseMs) {
      this.fence("no lease renewal reached the database within the lease");
      return undefined;
    }
    return this.currentEpoch;
  }

  /** Joins (or rejoins) under a new epoch and starts the heartbeat. */
  async join(): Promise<number> {
    const sentAt = performance.now();
    const { rows } = await this.pool.query<{ epoch: string }>(
      `INSERT INTO cluster_nodes (node_id, epoch, host, pid, lease_until)
       VALUES ($1, nextval('cluster_node_epoch'), $2, $3, now() + $4 * interval '1 millisecond')
       ON CONFLICT (node_id) DO UPDATE SET epoch = nextval('cluster_node_epoch'), host = EXCLUDED.host,
         pid = EXCLUDED.pid, started_at = now(), heartbeat_at = now(), lease_until = EXCLUDED.lease_until
       RETURNING epoch`,
      [this.nodeId, hostname(), process.pid, this.timing.leaseMs],
    );
    const epoch = Number(rows[0]?.epoch);
    await this.hooks.onJoined(epoch);
    this.currentEpoch = epoch;
    this.renewedSentAt = sentAt;
    this.schedule();
    return epoch;
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => {
      // The lease check runs on every tick by itself: a renewal stuck connecting must not delay the fencing.
      void this.epoch;
      void this.beat();
    }, this.timing.heartbeatMs);
    this.timer.unref();
  }

  /** One renewal. Errors are expected while the database is away; the lease check above handles them. */
  private async beat(): Promise<void> {
    if (this.beating || this.stopped) return;
    this.beating = true;
    try {
      if (this.currentEpoch === undefined) {
        await this.join();
        this.log(`[cluster] node ${this.nodeId} rejoined with epoch ${this.currentEpoch}`);
        return;
      }
      const sentAt = performance.now();
      // No retries here: a renewal that cannot get through must not hide the lease running out.
      const { rowCount } = await this.pool.queryOnce(
        `UPDATE cluster_nodes SET heartbeat_at = now(), lease_until = now() + $3 * interval '1 millisecond'
         WHERE node_id = $1 AND epoch = $2 AND lease_until > now()`,
        [this.nodeId, this.currentEpoch, this.timing.leaseMs],
        this.timing.heartbeatMs * 2,
      );
      if (rowCount === 1) this.renewedSentAt = sentAt;
      else this.fence("the cluster declared this node dead (its lease expired)");
    } catch {
      void this.epoch; // fences once the lease has run out without a renewal
    } finally {
      this.beating = false;
    }
  }

  private fence(reason: string): void {
    const epoch = this.currentEpoch;
    if (epoch === undefined) return;
    this.currentEpoch = undefined;
    this.log(`[cluster] node ${this.nodeId} fenced at epoch ${epoch}: ${reason}`);
    this.hooks.onFenced(epoch);
  }

  /** Nodes whose lease ended more than reapGraceMs ago, removed from membership in this call. */
  async reapExpired(): Promise<ExpiredNode[]> {
    const { rows } = await this.pool.query<{ node_id: string; epoch: string }>(
      `DELETE FROM cluster_nodes WHERE lease_until < now() - $1 * interval '1 millisecond' RETURNING node_id, epoch`,
      [this.timing.reapGraceMs],
    );
    return rows.map((r) => ({ nodeId: r.node_id, epoch: Number(r.epoch) }));
  }

  async list(): Promise<ClusterNodeInfo[]> {
    const { rows } = await this.pool.query<{ node_id: string; epoch: string; host: string; pid: number; ms: number }>(
      `SELECT node_id, epoch, host, pid, (extract(epoch FROM lease_until - now()) * 1000)::float8 AS ms
       FROM cluster_nodes ORDER BY node_id`,
    );
    return rows.map((r) => ({
      nodeId: r.node_id,
      epoch: Number(r.epoch),
      host: r.host,
      pid: r.pid,
      leaseRemainingMs: r.ms,
    }));
  }

  /** Leaves the cluster (clean shutdown): peers need not wait for the lease to expire. */
  async leave(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const epoch = this.currentEpoch;
    this.currentEpoch = undefined;
    if (epoch !== undefined) {
      await this.pool.query("DELETE FROM cluster_nodes WHERE node_id = $1 AND epoch = $2", [this.nodeId, epoch]);
    }
  }
}
