/**
 * The words a request dropped from a session's queue is answered with, the same on a single node and in the
 * cluster (whose queue lives in PostgreSQL).
 */

/** Why a queued request was answered without a turn (the cluster's queue writes the same words). */
export const DROP_REASONS = {
  /** drop:new refused the newcomer. */
  new: (cap: number) => `queue full (cap ${cap}): message dropped`,
  /** drop:old dropped the oldest queued request. */
  old: (cap: number) => `queue full (cap ${cap}): dropped for a newer message`,
  interrupt: "superseded by a newer message (interrupt)",
} as const;
