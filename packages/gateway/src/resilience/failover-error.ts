import type { ErrorClass } from "@tiller/ai";
import type { FailoverAttempt } from "./types.js";

/** A model call failed in a way that failover handles; carries where and why. */
export class FailoverError extends Error {
  readonly reason: ErrorClass;
  readonly provider: string;
  readonly model: string;
  readonly profileId?: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** Every try made before giving up (empty for a single failure). */
  readonly attempts: FailoverAttempt[];

  constructor(
    message: string,
    fields: {
      reason: ErrorClass;
      provider: string;
      model: string;
      profileId?: string;
      status?: number;
      retryAfterMs?: number;
      attempts?: FailoverAttempt[];
    },
  ) {
    super(message);
    this.name = "FailoverError";
    this.reason = fields.reason;
    this.provider = fields.provider;
    this.model = fields.model;
    this.profileId = fields.profileId;
    this.status = fields.status;
    this.retryAfterMs = fields.retryAfterMs;
    this.attempts = fields.attempts ?? [];
  }
}

export function isFailoverError(err: unknown): err is FailoverError {
  return err instanceof FailoverError;
}
