/**
 * Auth-profile routing state shared by a cluster's gateways: the keys stay in each node's auth-profiles.json
 * (secrets are never copied into the database), while cooldowns and disables also go to `cluster_auth_usage`
 * (ClusterAuthUsage, one row lock per failure) and are read back from there, so a key one node saw rate-limited
 * is skipped by every node. The failover path asks synchronously (`order`, `usage`), so this keeps a snapshot of
 * the shared rows, refreshed every second and after each write of its own; a failure is applied locally at once
 * (this node's next try already avoids the key) and recorded in the database in the background.
 */
import { AuthProfileStore } from "../resilience/auth-profile-store.js";
import type { ProfileFailureReason, ProfileUsage } from "../resilience/types.js";
import type { ClusterAuthUsage } from "./auth-usage.js";
import type { ClusterPool } from "./pool.js";

const REFRESH_MS = 1000;

export class ClusterAuthProfileStore extends AuthProfileStore {
  private shared = new Map<string, ProfileUsage>();
  private readonly timer: NodeJS.Timeout;
  private refreshing: Promise<void> | undefined;

  constructor(
    path: string,
    private readonly cluster: { pool: ClusterPool; authUsage: ClusterAuthUsage },
    private readonly log: (line: string) => void = () => {},
  ) {
    super(path);
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
    void this.refresh();
  }

  /**
   * Reads every shared row (a handful: one per key in use). A call while a read is in flight waits for that read,
   * so awaiting it once at start-up means the first run already sees the cluster's cooldowns.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    try {
      const { rows } = await this.cluster.pool.query<{ profile_id: string; usage: ProfileUsage }>(
        "SELECT profile_id, usage FROM cluster_auth_usage",
      );
      this.shared = new Map(rows.map((r) => [r.profile_id, r.usage]));
    } catch {
      // The database is away: the last snapshot and this node's own state still apply; the next tick retries.
    }
  }

  /** This node's state with the cluster's cooldowns and disables over it (the later of the two wins). */
  override usage(id: string): ProfileUsage {
    const local = super.usage(id);
    const s = this.shared.get(id);
    if (!s) return local;
    const later = (a?: number, b?: number): number | undefined =>
      a === undefined ? b : b === undefined ? a : Math.max(a, b);
    const cooldownUntil = later(local.cooldownUntil, s.cooldownUntil);
    const disabledUntil = later(local.disabledUntil, s.disabledUntil);
    return {
      ...local,
      errorCount: Math.max(local.errorCount, s.errorCount),
      billingFailures: Math.max(local.billingFailures, s.billingFailures),
      ...(cooldownUntil !== undefined
        ? { cooldownUntil, cooldownReason: local.cooldownReason ?? s.cooldownReason }
        : {}),
      ...(disabledUntil !== undefined
        ? { disabledUntil, disabledReason: local.disabledReason ?? s.disabledReason }
        : {}),
    };
  }

  override markFailure(id: string, reason: ProfileFailureReason, retryAfterMs?: number): number {
    const until = super.markFailure(id, reason, retryAfterMs);
    this.cluster.authUsage
      .markFailure(id, reason, retryAfterMs)
      .then(() => this.refresh())
      .catch((err: unknown) => this.log(`[cluster] auth profile ${id}: failure not shared: ${(err as Error).message}`));
    return until;
  }

  override markSuccess(id: string, sessionKey?: string): void {
    const had = this.shared.get(id);
    super.markSuccess(id, sessionKey);
    // Only a cleared failure is written to the database; a healthy call stays off it (as off the file).
    if (had && (had.errorCount > 0 || had.cooldownUntil !== undefined)) {
      this.shared.set(id, { ...had, errorCount: 0, cooldownUntil: undefined, cooldownReason: undefined });
      this.cluster.authUsage
        .markSuccess(id, sessionKey)
        .catch((err: unknown) =>
          this.log(`[cluster] auth profile ${id}: success not shared: ${(err as Error).message}`),
        );
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
