/**
 * Cooldown ladder for a failing profile: 30 s, then 1 min, then 5 min (cap). Billing failures disable the
 * profile instead: 5 h, doubling per failure, capped at 24 h. Counters reset after a day without failure.
 */
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
