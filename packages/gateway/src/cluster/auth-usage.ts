/**
 * Auth-profile routing state shared by every node: cooldowns, disables, failure counters and each session's
 * sticky profile, in PostgreSQL instead of auth-profiles.json. The credentials themselves stay in each node's
 * file (secrets are not copied into the database). A failure is a read-modify-write under a row lock, so
 * failures reported by several nodes at once all count (the ladder climbs once per failure, none is lost); the
 * rule is the same pure function the file store applies.
 */
import { usageAfterFailure } from "../resilience/cooldown-policy.js";
import type { ProfileFailureReason, ProfileUsage } from "../resilience/types.js";
import type { ClusterPool } from "./pool.js";

const EMPTY: ProfileUsage = { errorCount: 0, billingFailures: 0 };

export class ClusterAuthUsage {
  constructor(
    private readonly pool: ClusterPool,
    private readonly clock: () => number = Date.now,
  ) {}

  async usage(profileId: string): Promise<ProfileUsage> {
    const { rows } = await this.pool.query<{ usage: ProfileUsage }>(
      "SELECT usage FROM cluster_auth_usage WHERE profile_id = $1",
      [profileId],
    );
    return rows[0]?.usage ?? { ...EMPTY };
  }

  /** When the profile becomes usable again, or undefined when it is usable now. */
  async unavailableUntil(profileId: string, now = this.clock()): Promise<number | undefined> {
    const u = await this.usage(profileId);
    const until = Math.max(u.cooldownUntil ?? 0, u.disabledUntil ?? 0);
    return until > now ? until : undefined;
  }

  /** Records a failure cluster-wide; returns when the profile is usable again. */
  async markFailure(profileId: string, reason: ProfileFailureReason, retryAfterMs?: number): Promise<number> {
    return this.pool.tx(async (db) => {
      const now = this.clock();
      await db.query(
        `INSERT INTO cluster_auth_usage (profile_id, usage, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (profile_id) DO NOTHING`,
        [profileId, JSON.stringify(EMPTY), now],
      );
      const { rows } = await db.query<{ usage: ProfileUsage }>(
        "SELECT usage FROM cluster_auth_usage WHERE profile_id = $1 FOR UPDATE",
        [profileId],
      );
      const { usage, until } = usageAfterFailure(rows[0]?.usage ?? { ...EMPTY }, reason, now, retryAfterMs);
      await db.query("UPDATE cluster_auth_usage SET usage = $2, updated_at = $3 WHERE profile_id = $1", [
        profileId,
        JSON.stringify(usage),
        now,
      ]);
      return until;
    });
  }

  /** A successful call: clears the failure ladder and pins the profile to the session. */
  async markSuccess(profileId: string, sessionKey?: string): Promise<void> {
    const now = this.clock();
    await this.pool.tx(async (db) => {
      await db.query(
        `INSERT INTO cluster_auth_usage (profile_id, usage, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (profile_id) DO UPDATE SET updated_at = $3,
           usage = (cluster_auth_usage.usage - 'cooldownUntil' - 'cooldownReason')
                   || jsonb_build_object('errorCount', 0, 'lastUsed', $3::bigint)`,
        [profileId, JSON.stringify({ ...EMPTY, lastUsed: now }), now],
      );
      if (sessionKey) {
        await db.query(
          `INSERT INTO cluster_session_profiles (session_key, profile_id, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (session_key) DO UPDATE SET profile_id = $2, updated_at = $3`,
          [sessionKey, profileId, now],
        );
      }
    });
  }

  /** The profile the session used last (sticky choice), if any. */
  async sessionProfile(sessionKey: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ profile_id: string }>(
      "SELECT profile_id FROM cluster_session_profiles WHERE session_key = $1",
      [sessionKey],
    );
    return rows[0]?.profile_id;
  }
}
