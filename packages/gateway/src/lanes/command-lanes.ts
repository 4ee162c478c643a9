/**
 * In-process FIFO lanes with a concurrency cap each. A run passes two lanes: its session lane
 * (`session:<key>`, cap 1, so one run per session) and then a global lane (`main`, `subagent`, `cron`).
 * A slot is released in `finally`, so a task that ends in any way (ok, throw, abort) frees its lane;
 * idle session lanes are deleted so the map does not grow with the number of sessions ever seen.
 * At most `startsPerTick` tasks (all lanes together) start in one event-loop turn; the rest start on the next
 * turns (setImmediate), so a burst of runs arriving together (each with milliseconds of synchronous set-up) does
 * not hold back the deltas of the runs already streaming. FIFO order within a lane is unchanged.
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

/**
 * Default most task starts in one event-loop turn: two runs (each starts in its session lane, then a global lane),
 * each with ~2–5 ms of synchronous set-up (owner lock and transcript files, prompt). More per turn lengthens the
 * turn every streaming run waits for; fewer delays the start of the last run of a burst.
 */
export const DEFAULT_STARTS_PER_TICK = 4;

export interface CommandLanesOptions {
  /** Most tasks started in one event-loop turn, all lanes together (≥ 1; default 4). */
  startsPerTick?: number;
}

export class CommandLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly caps = new Map<string, number>();
  private draining = false;
  private readonly startsPerTick: number;
  /** Starts in the current turn; reset by the turn's setImmediate. */
  private startedThisTick = 0;
  private tickScheduled = false;
  /** Lanes holding a task that had a free slot but no start budget left this turn, in the order they waited. */
  private readonly deferred = new Set<string>();

  constructor(options: CommandLanesOptions = {}) {
    this.startsPerTick = Math.max(1, Math.floor(options.startsPerTick ?? DEFAULT_STARTS_PER_TICK));
  }

  /** Sets a lane's cap (≥ 1). Unconfigured lanes have cap 1. Raising it starts waiting tasks (this turn, within the start budget). */
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

  /** Counts a start against this turn's budget; the first start of a turn schedules the turn's reset. */
  private countStart(): void {
    this.startedThisTick++;
    if (this.tickScheduled) return;
    this.tickScheduled = true;
    setImmediate(() => {
      this.tickScheduled = false;
      this.startedThisTick = 0;
      // Lanes that waited for budget, oldest first; a lane still short of budget is re-added by pump.
      const waiting = [...this.deferred];
      this.deferred.clear();
      for (const name of waiting) {
        const l = this.lanes.get(name);
        if (l) this.pump(name, l);
      }
    });
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
      if (this.startedThisTick >= this.startsPerTick) {
        this.deferred.add(name);
        break;
      }
      this.countStart();
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
