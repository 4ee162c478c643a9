/**
 * In-process FIFO lanes with a concurrency cap each. A run passes two lanes: its session lane
 * (`session:<key>`, cap 1, so one run per session) and then a global lane (`main`, `subagent`, `cron`).
 * A slot is released in `finally`, so a task that ends in any way (ok, throw, abort) frees its lane;
 * idle session lanes are deleted so the map does not grow with the number of sessions ever seen.
 */

/** Thrown to tasks still waiting when their lane is cleared (interrupt, shutdown). */
export class LaneClearedError extends Error {
  constructor(lane: string, reason: string) {
    super(`lane ${lane} cleared: ${reason}`);
    this.name = "LaneClearedError";
  }
}

interface Waiter {
  start: () => void;
  fail: (err: Error) => void;
}

interface Lane {
  max: number;
  active: number;
  queue: Waiter[];
  head: number;
}

export interface LaneStats {
  lane: string;
  active: number;
  queued: number;
  max: number;
}

export class CommandLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly caps = new Map<string, number>();
  private draining = false;

  /** Sets a lane's cap (≥ 1). Unconfigured lanes have cap 1. Raising it starts waiting tasks at once. */
  setConcurrency(lane: string, max: number): void {
    const cap = Math.max(1, Math.floor(max));
    this.caps.set(lane, cap);
    const l = this.lanes.get(lane);
    if (l) {
      l.max = cap;
      this.pump(lane, l);
    }
  }

  /** Runs `task` when `lane` has a free slot; resolves or rejects with the task's outcome. */
  run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    if (this.draining) return Promise.reject(new LaneClearedError(lane, "gateway is shutting down"));
    const l = this.lane(lane);
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        l.active++;
        let p: Promise<T>;
        try {
          p = task();
        } catch (err) {
          p = Promise.reject(err);
        }
        // The slot is released before the caller is resumed, so a caller that awaits sees its lane free.
        const release = (): void => {
          l.active--;
          this.pump(lane, l);
        };
        p.then(
          (value) => {
            release();
            resolve(value);
          },
          (err: unknown) => {
            release();
            reject(err);
          },
        );
      };
      l.queue.push({ start, fail: reject });
      this.pump(lane, l);
    });
  }

  /** Rejects every task still waiting in `lane` (running ones are not touched). Returns how many. */
  clear(lane: string, reason = "cleared"): number {
    const l = this.lanes.get(lane);
    if (!l) return 0;
    const waiting = l.queue.slice(l.head);
    l.queue = [];
    l.head = 0;
    for (const w of waiting) w.fail(new LaneClearedError(lane, reason));
    this.pump(lane, l);
    return waiting.length;
  }

  /** New work is refused from now on (shutdown). */
  drain(): void {
    this.draining = true;
    for (const name of [...this.lanes.keys()]) this.clear(name, "gateway is shutting down");
  }

  stats(lane: string): LaneStats {
    const l = this.lanes.get(lane);
    return {
      lane,
      active: l?.active ?? 0,
      queued: l ? l.queue.length - l.head : 0,
      max: l?.max ?? this.caps.get(lane) ?? 1,
    };
  }

  /** Lanes with work, for status and diagnostics. */
  busy(): LaneStats[] {
    return [...this.lanes.keys()].map((k) => this.stats(k));
  }

  private lane(name: string): Lane {
    let l = this.lanes.get(name);
    if (!l) {
      l = { max: this.caps.get(name) ?? 1, active: 0, queue: [], head: 0 };
      this.lanes.set(name, l);
    }
    return l;
  }

  private pump(name: string, l: Lane): void {
    while (l.active < l.max && l.head < l.queue.length) {
      const next = l.queue[l.head] as Waiter;
      l.queue[l.head] = undefined as unknown as Waiter;
      l.head++;
      next.start();
    }
    if (l.head > 256 && l.head * 2 > l.queue.length) {
      l.queue = l.queue.slice(l.head);
      l.head = 0;
    }
    if (l.active === 0 && l.head >= l.queue.length && !this.caps.has(name)) this.lanes.delete(name);
  }
}

/** The session lane of a session key. */
export function sessionLane(sessionKey: string): string {
  return `session:${sessionKey}`;
}

/** Global lane for a run's `lane` param: cron work goes to `cron`, subagents to `subagent`, else `main`. */
export function globalLane(requested?: string): string {
  if (requested === "cron" || requested === "subagent" || requested === "nested") return requested;
  return "main";
}
