/**
 * One pending wake-up that only ever moves earlier: `in(ms)` keeps the sooner of the pending one and the new one.
 * A node uses it to claim again when the soonest collect quiet period ends; the delay is a duration the database
 * reckoned, and it is measured here on the monotonic clock, so neither clock offset nor a wall-clock jump plays
 * a part.
 */
export class WakeTimer {
  private pending: { at: number; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly wake: () => void) {}

  in(ms: number): void {
    const at = performance.now() + ms;
    if (this.pending && this.pending.at <= at) return;
    this.clear();
    const timer = setTimeout(() => {
      this.pending = undefined;
      this.wake();
    }, ms + 1);
    timer.unref();
    this.pending = { at, timer };
  }

  clear(): void {
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = undefined;
  }
}
