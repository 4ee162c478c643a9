/**
 * The failed-auth limiter (`gateway.auth.rateLimit`): per client address, `maxAttempts` wrong credentials
 * within `windowMs` lock the address out for `lockoutMs`, answered 429 with Retry-After. A success clears the
 * address's count. Memory stays bounded: expired entries are swept once the table grows.
 */
import type { AuthRateLimit } from "../config/config-types.js";

interface Bucket {
  windowStart: number;
  failures: number;
  lockedUntil: number;
}

const SWEEP_AT = 10_000;

export class AuthRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly settings: AuthRateLimit) {}

  /** Milliseconds until `key` may try again; 0 when it is not locked out. */
  retryAfterMs(key: string, now = Date.now()): number {
    const b = this.buckets.get(key);
    return b && b.lockedUntil > now ? b.lockedUntil - now : 0;
  }

  /** Records a wrong credential; returns the lockout left (0 while under the limit). */
  fail(key: string, now = Date.now()): number {
    let b = this.buckets.get(key);
    if (!b || now - b.windowStart >= this.settings.windowMs) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      b = { windowStart: now, failures: 0, lockedUntil: b?.lockedUntil ?? 0 };
      this.buckets.set(key, b);
    }
    b.failures++;
    if (b.failures >= this.settings.maxAttempts) {
      b.lockedUntil = now + this.settings.lockoutMs;
      b.failures = 0;
      b.windowStart = now;
    }
    return this.retryAfterMs(key, now);
  }

  succeed(key: string): void {
    this.buckets.delete(key);
  }

  private sweep(now: number): void {
    for (const [k, b] of this.buckets) {
      if (b.lockedUntil <= now && now - b.windowStart >= this.settings.windowMs) this.buckets.delete(k);
    }
  }
}
