/**
 * Cooldown ladder for a failing profile: 30 s, then 1 min, then 5 min (cap). Billing failures disable the
 * profile instead: 5 h, doubling per failure, capped at 24 h. Counters reset after a day without failure.
 */
import type { ProfileFailureReason, ProfileUsage } from "./types.js";

export const COOLDOWN_STEPS_MS = [30_000, 60_000, 300_000] as const;
export const BILLING_BASE_MS = 5 * 60 * 60 * 1000;
export const BILLING_MAX_MS = 24 * 60 * 60 * 1000;
export const FAILURE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Cooldown after the `errorCount`-th consecutive failure (1-based). */
export function cooldownMs(errorCount: number): number {
  const step = Math.min(Math.max(errorCount, 1), COOLDOWN_STEPS_MS.length) - 1;
  return COOLDOWN_STEPS_MS[step] as number;
}

/** Disable time after the `billingFailures`-th billing failure (1-based). */
export function billingDisableMs(billingFailures: number): number {
  const doubled = BILLING_BASE_MS * 2 ** Math.max(billingFailures - 1, 0);
  return Math.min(doubled, BILLING_MAX_MS);
}

/**
 * A profile's usage after one more failure at `now`: billing disables it (5 h doubling), any other reason puts
 * it in cooldown (the ladder, or the provider's Retry-After when longer); counters older than the failure window
 * start over. Pure, so the file store and the cluster's shared table apply the same rule. `until` is when the
 * profile is usable again.
 */
export function usageAfterFailure(
  prev: ProfileUsage,
  reason: ProfileFailureReason,
  now: number,
  retryAfterMs?: number,
): { usage: ProfileUsage; until: number } {
  const stale = prev.lastFailureAt !== undefined && now - prev.lastFailureAt > FAILURE_WINDOW_MS;
  const u: ProfileUsage = stale ? { ...prev, errorCount: 0, billingFailures: 0 } : { ...prev };
  u.lastFailureAt = now;
  let until: number;
  if (reason === "billing") {
    u.billingFailures += 1;
    until = now + billingDisableMs(u.billingFailures);
    u.disabledUntil = until;
    u.disabledReason = reason;
  } else {
    u.errorCount += 1;
    // A provider that names its wait (Retry-After) is believed when it asks for longer than the ladder.
    until = now + Math.max(cooldownMs(u.errorCount), Math.min(retryAfterMs ?? 0, BILLING_MAX_MS));
    u.cooldownUntil = until;
    u.cooldownReason = reason;
  }
  return { usage: u, until };
}
