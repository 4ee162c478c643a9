/**
 * One gateway process in a cluster: it accepts runs for any session (committed before the ack), claims runs
 * within the cluster-wide caps and executes them, relays events of runs on any node to its subscribers, keeps
 * its lease, and ends the runs of dead peers as `interrupted`. All coordination goes through PostgreSQL (row
 * locks, an advisory lock for claims, leases, LISTEN/NOTIFY as wake-ups); nodes never talk to each other.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ClusterAuthUsage } from "./auth-usage.js";
import type { PendingEvent } from "./event-log.js";
import { insertRunEvents, pruneRunEvents } from "./event-log.js";
import { EventRelay } from "./event-relay.js";
import { keyHash } from "./hash.js";
import { CHANNEL_CONTROL, CHANNEL_ENDED, CHANNEL_QUEUED, ClusterListener } from "./listener.js";
import { DEFAULT_LEASE, NodeMembership } from "./membership.js";
import { migrate } from "./migrations.js";
import { ClusterPool } from "./pool.js";
import { RunQueue, TERMINAL } from "./run-queue.js";
import { ClusterSessionIndex } from "./session-index.js";
import { ClusterTranscripts } from "./transcripts.js";
import { isTransientPgError, retryDelayMs, sleep } from "./transient-errors.js";
import type {
  ClusterNodeInfo,
  ClusterNodeOptions,
  ClusterRunEvent,
  ClusterRunExecutor,
  ClusterRunOutcome,
  ClusterRunRecord,
  ClusterRunRequest,
  LeaseTiming,
  SubmitOptions,
  SubmitResult,
} from "./types.js";
import { WakeTimer } from "./wake-timer.js";

export const DEFAULT_LANE_CAPS: Readonly<Record<string, number>> = { main: 4, subagent: 8, cron: 1 };

/** Events are written in batches: the first event of a batch waits this long for company. */
const FLUSH_DELAY_MS = 15;

interface LocalRun {
  run: ClusterRunRecord;
  epoch: number;
  controller: AbortController;
  seq: number;
  buffer: PendingEvent[];
  flushTimer: NodeJS.Timeout | undefined;
  flushing: Promise<void>;
  done: Promise<void>;
  /** Last steering input seen, and the receiver (messages wait in `pendingSteers` until it registers). */
  inputCursor: number;
  steer: ((message: string) => void) | undefined;
  pendingSteers: string[];
}

interface Waiter {
  runId: string;
  resolve: (run: ClusterRunRecord) => void;
  /** Ends the wait now with the run's current state (timeout, close). */
  giveUp: () => Promise<void>;
}

export class ClusterNode {
  readonly nodeId: string;
  readonly pool: ClusterPool;
  readonly queue: RunQueue;
  readonly transcripts: ClusterTranscripts;
  readonly sessions: ClusterSessionIndex;
  readonly authUsage: ClusterAuthUsage;
  /** The node's LISTEN connection (wake-ups only; consumers read their tables). */
  readonly listener: ClusterListener;
  private readonly relay: EventRelay;
  private readonly membership: NodeMembership;
  private readonly timing: LeaseTiming;
  private readonly laneCaps: Record<string, number>;
  private readonly maxLocal: number;
  private readonly executor: ClusterRunExecutor | undefined;
  private readonly log: (line: string) => void;
  private readonly local = new Map<string, LocalRun>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private pumping = false;
  /** The claim in flight: close waits for it, so runs it claims are executed, not stranded. */
  private pumpDone: Promise<void> = Promise.resolve();
  private pumpAgain = false;
  /** Claims again when the soonest collect quiet period the last claim saw is over (every node with room does). */
  private readonly quietTimer = new WakeTimer(() => this.schedulePump());
  private reaping = false;
  private checkingControl = false;
  private checkingWaiters = false;
  private controlAgain = false;
  private closing = false;

  private constructor(private readonly options: ClusterNodeOptions) {
    this.nodeId = options.nodeId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? (() => {});
    this.timing = { ...DEFAULT_LEASE, ...options.lease };
    this.laneCaps = { ...DEFAULT_LANE_CAPS, ...options.laneCaps };
    this.maxLocal = options.maxLocalRuns ?? 8;
    this.executor = options.executor;
    this.pool = new ClusterPool({ url: options.url, retryForMs: options.retryForMs, log: this.log });
    this.queue = new RunQueue(this.pool);
    this.transcripts = new ClusterTranscripts(this.pool);
    this.sessions = new ClusterSessionIndex(this.pool);
    this.authUsage = new ClusterAuthUsage(this.pool);
    this.listener = new ClusterListener(options.url, this.log);
    const pollMs = options.pollMs ?? 500;
    this.relay = new EventRelay(this.pool, this.listener, pollMs * 2, this.log);
    this.membership = new NodeMembership(
      this.pool,
      this.nodeId,
      this.timing,
      {
        onFenced: () => {
          // Lost the lease: whatever runs here may already be another node's; stop it now.
          for (const l of this.local.values()) l.controller.abort(new Error("this node lost its cluster lease"));
        },
        onJoined: async () => {
          // Runs held under an older epoch of this node id (a previous process, or before a partition) end now.
          await this.sweep();
        },
      },
      this.log,
    );
  }

  /** Connects, applies migrations (once across the cluster), joins and starts claiming. */
  static async start(options: ClusterNodeOptions): Promise<ClusterNode> {
    const node = new ClusterNode(options);
    try {
      await node.init();
    } catch (err) {
      await node.close({ abortRuns: true }).catch(() => {});
      throw err;
    }
    return node;
  }

  private async init(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await migrate(this.pool);
        break;
      } catch (err) {
        if (!isTransientPgError(err) || attempt > 50) throw err;
        await sleep(retryDelayMs(attempt));
      }
    }
    this.listener.on(CHANNEL_QUEUED, () => this.schedulePump());
    this.listener.on(CHANNEL_ENDED, (hash) => {
      for (const w of this.waiters.get(hash) ?? []) void this.checkWaiter(hash, w);
    });
    this.listener.on(CHANNEL_CONTROL, (hash) => {
      for (const l of this.local.values()) if (keyHash(l.run.runId) === hash) void this.checkControl();
    });
    this.listener.onReconnect(() => {
      this.schedulePump();
      this.checkAllWaiters();
    });
    await this.listener.start();
    await this.membership.join();
    const pollMs = this.options.pollMs ?? 500;
    this.every(pollMs, () => {
      this.schedulePump();
      this.checkAllWaiters();
      void this.checkControl();
    });
    this.every(this.timing.reapIntervalMs, () => void this.reap());
    const keepMs = this.options.eventRetention?.keepMs ?? 3_600_000;
    this.every(this.options.eventRetention?.everyMs ?? 60_000, () => {
      pruneRunEvents(this.pool, keepMs).catch(() => {}); // the next round tries again
    });
    this.schedulePump();
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  /** The current lease epoch, or undefined while fenced. */
  get epoch(): number | undefined {
    return this.membership.epoch;
  }

  /** Runs executing on this node now. */
  get localRuns(): string[] {
    return [...this.local.keys()];
  }

  /**
   * Accepts a run (committed before this resolves) under its session's queue policy, this node's queue defaults
   * applying where the session has none; a known runId returns the existing run.
   */
  submit(request: ClusterRunRequest, opts: Omit<SubmitOptions, "defaults"> = {}): Promise<SubmitResult> {
    return this.queue.submit(request, this.nodeId, { ...opts, defaults: this.options.queueDefaults });
  }

  get(runId: string): Promise<ClusterRunRecord | undefined> {
    return this.queue.get(runId);
  }

  /** Resolves with the run once it has ended on whichever node, or with its current state after timeoutMs. */
  async wait(runId: string, timeoutMs: number): Promise<ClusterRunRecord | undefined> {
    const now = await this.queue.get(runId);
    if (!now || TERMINAL.has(now.status)) return now;
    const hash = keyHash(runId);
    return new Promise((resolve) => {
      let set = this.waiters.get(hash);
      if (!set) {
        set = new Set();
        this.waiters.set(hash, set);
      }
      const waiter: Waiter = {
        runId,
        resolve: (run) => {
          clearTimeout(timer);
          this.dropWaiter(hash, waiter);
          resolve(run);
        },
        giveUp: async () => {
          clearTimeout(timer);
          this.dropWaiter(hash, waiter);
          resolve(await this.queue.get(runId).catch(() => now));
        },
      };
      const timer = setTimeout(() => void waiter.giveUp(), timeoutMs);
      set.add(waiter);
      void this.checkWaiter(hash, waiter); // it may have ended between the read and the registration
    });
  }

  private dropWaiter(hash: string, w: Waiter): void {
    const set = this.waiters.get(hash);
    set?.delete(w);
    if (set?.size === 0) this.waiters.delete(hash);
  }

  private async checkWaiter(hash: string, w: Waiter): Promise<void> {
    try {
      const run = await this.queue.get(w.runId);
      if (run && TERMINAL.has(run.status) && this.waiters.get(hash)?.has(w)) w.resolve(run);
    } catch {
      // the next poll tries again
    }
  }

  /** The fallback poll: one statement for every waiter of this node, not one per waiter. */
  private checkAllWaiters(): void {
    if (this.waiters.size === 0 || this.checkingWaiters) return;
    this.checkingWaiters = true;
    const ids = [...new Set([...this.waiters.values()].flatMap((set) => [...set].map((w) => w.runId)))];
    this.queue
      .ended(ids)
      .then((ended) => {
        for (const run of ended) {
          for (const w of this.waiters.get(keyHash(run.runId)) ?? []) if (w.runId === run.runId) w.resolve(run);
        }
      })
      .catch(() => {}) // the next poll tries again
      .finally(() => {
        this.checkingWaiters = false;
      });
  }

  /**
   * Steers a running run from any node; false when it is not running (send the message as a new run then,
   * which queues behind the session's runs: a follow-up).
   */
  steer(runId: string, message: string, requestId?: string): Promise<boolean> {
    return this.queue.steer(runId, message, this.nodeId, requestId);
  }

  /** Aborts a run from any node (queued: ended at once; running: its node aborts it). */
  abort(runId: string): Promise<ClusterRunRecord | undefined> {
    return this.queue.requestAbort(runId);
  }

  /** Events of a session's runs, from any node, in order (`fromId` 0: from the first one). */
  subscribe(sessionKey: string, listener: (e: ClusterRunEvent) => void, fromId?: number): Promise<() => void> {
    return this.relay.subscribe(sessionKey, listener, fromId);
  }

  nodes(): Promise<ClusterNodeInfo[]> {
    return this.membership.list();
  }

  private schedulePump(): void {
    if (this.closing || !this.executor) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pumpDone = this.pump().finally(() => {
      this.pumping = false;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.schedulePump();
      }
    });
  }

  private async pump(): Promise<void> {
    const epoch = this.membership.epoch;
    const room = this.maxLocal - this.local.size;
    if (epoch === undefined || room <= 0 || this.closing) return;
    let claimed: ClusterRunRecord[];
    try {
      const result = await this.queue.claim(
        { nodeId: this.nodeId, epoch, room, laneCaps: this.laneCaps, queueDefaults: this.options.queueDefaults },
        new Set(this.local.keys()),
      );
      claimed = result.runs;
      if (result.nextQuietMs !== undefined) this.quietTimer.in(result.nextQuietMs);
    } catch (err) {
      this.log(`[cluster] claim failed: ${(err as Error).message}`);
      return;
    }
    for (const run of claimed) this.execute(run, run.nodeEpoch ?? epoch);
    if (claimed.length === room) this.pumpAgain = true; // there may be more
  }

  private execute(run: ClusterRunRecord, epoch: number): void {
    const executor = this.executor as ClusterRunExecutor;
    const controller = new AbortController();
    const l: LocalRun = {
      run,
      epoch,
      controller,
      seq: 0,
      buffer: [],
      flushTimer: undefined,
      flushing: Promise.resolve(),
      done: Promise.resolve(),
      inputCursor: 0,
      steer: undefined,
      pendingSteers: [],
    };
    const onSteer = (listener: (message: string) => void): void => {
      l.steer = listener;
      for (const m of l.pendingSteers.splice(0)) listener(m);
    };
    this.local.set(run.runId, l);
    // Steered before it was claimed (a message joined it while it waited for its lanes): read them now.
    if (run.steered) void this.checkControl();
    const emit = (stream: string, data: unknown): void => {
      l.buffer.push({ runId: run.runId, sessionKey: run.sessionKey, seq: ++l.seq, stream, ts: Date.now(), data });
      l.flushTimer ??= setTimeout(() => {
        l.flushTimer = undefined;
        this.flush(l);
      }, FLUSH_DELAY_MS);
    };
    l.done = (async () => {
      emit("lifecycle", { phase: "start", startedAt: run.startedAt });
      let outcome: ClusterRunOutcome;
      try {
        outcome = await executor(run, { signal: controller.signal, emit, onSteer, nodeId: this.nodeId });
      } catch (err) {
        outcome = controller.signal.aborted
          ? {
              status: "aborted",
              summary: "aborted",
              error: String((controller.signal.reason as Error)?.message ?? err),
            }
          : { status: "error", summary: "error", error: (err as Error)?.message ?? String(err) };
      }
      if (l.flushTimer) clearTimeout(l.flushTimer);
      l.flushTimer = undefined;
      await l.flushing;
      const phase = outcome.status === "error" ? "error" : "end";
      emit("lifecycle", { phase, status: outcome.status, ...(outcome.status === "aborted" ? { aborted: true } : {}) });
      if (l.flushTimer) clearTimeout(l.flushTimer);
      const last = l.buffer.splice(0);
      let recorded = false;
      try {
        recorded = await this.queue.finish(run, { nodeId: this.nodeId, epoch }, outcome, last);
      } catch (err) {
        this.log(`[cluster] run ${run.runId}: recording its end failed: ${(err as Error).message}`);
      }
      if (!recorded) this.log(`[cluster] run ${run.runId}: end not recorded, this node no longer owns it`);
    })().finally(() => {
      this.local.delete(run.runId);
      this.schedulePump();
    });
  }

  /** Writes a run's buffered events; batches of one run are written one after another, in order. */
  private flush(l: LocalRun): void {
    const batch = l.buffer.splice(0);
    if (batch.length === 0) return;
    l.flushing = l.flushing.then(async () => {
      try {
        const ok = await this.pool.tx((db) =>
          insertRunEvents(db, { nodeId: this.nodeId, epoch: l.epoch }, l.run.runId, l.run.sessionKey, batch),
        );
        if (!ok) l.controller.abort(new Error("the run was taken away from this node"));
      } catch (err) {
        // Only after retrying for retryForMs: the run cannot be relayed, so it is stopped, not left half-seen.
        l.controller.abort(new Error(`events could not be written: ${(err as Error).message}`));
      }
    });
  }

  /** Aborts and steering messages for the runs executing here (woken by NOTIFY, and polled). */
  private async checkControl(): Promise<void> {
    if (this.local.size === 0) return;
    if (this.checkingControl) {
      this.controlAgain = true; // a wake-up during a check: look once more after it
      return;
    }
    this.checkingControl = true;
    this.controlAgain = false;
    try {
      const ids = [...this.local.keys()];
      for (const id of await this.queue.abortsRequested(ids)) {
        this.local.get(id)?.controller.abort(new Error("aborted"));
      }
      const from = Math.min(...[...this.local.values()].map((l) => l.inputCursor));
      for (const input of await this.queue.inputs(ids, from)) {
        const l = this.local.get(input.runId);
        if (!l || input.id <= l.inputCursor) continue;
        l.inputCursor = input.id;
        if (l.steer) l.steer(input.message);
        else l.pendingSteers.push(input.message);
      }
    } catch {
      // the next poll tries again
    } finally {
      this.checkingControl = false;
      if (this.controlAgain) void this.checkControl();
    }
  }

  /** Removes expired peers from membership and ends the runs they held. */
  private async reap(): Promise<void> {
    if (this.reaping || this.closing) return;
    this.reaping = true;
    try {
      const gone = await this.membership.reapExpired();
      for (const n of gone) this.log(`[cluster] node ${n.nodeId} (epoch ${n.epoch}) lease expired; taking its runs`);
      await this.sweep();
    } catch (err) {
      if (!isTransientPgError(err)) this.log(`[cluster] reaper: ${(err as Error).message}`);
    } finally {
      this.reaping = false;
    }
  }

  private async sweep(): Promise<void> {
    const ended = await this.queue.interruptOrphans();
    for (const r of ended) await this.markInterruptedInTranscript(r);
  }

  /** The transcript says the run was cut, so a reader of the session knows why no reply follows. */
  private async markInterruptedInTranscript(run: ClusterRunRecord): Promise<void> {
    const sessionId = (await this.sessions.get(run.sessionKey))?.sessionId;
    if (!sessionId) return;
    const timestamp = new Date().toISOString();
    // A session whose first run was cut has no transcript yet: it starts with this entry (the message is kept).
    await this.transcripts.create({ type: "session", version: 3, id: sessionId, timestamp, cwd: "" }, run.sessionKey);
    await this.transcripts.appendChild(sessionId, ({ id, parentId }) => ({
      type: "custom",
      customType: "tiller.run_interrupted",
      id,
      parentId,
      timestamp,
      data: { runId: run.runId, nodeId: run.nodeId, error: run.error, message: run.request.message },
    }));
  }

  /**
   * Leaves the cluster. By default waits for this node's runs to end; `abortRuns` aborts them first (their end
   * is still recorded). Peers see the node gone at once, not after its lease.
   */
  async close(opts: { abortRuns?: boolean } = {}): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearInterval(t);
    this.quietTimer.clear();
    await this.pumpDone;
    if (opts.abortRuns) for (const l of this.local.values()) l.controller.abort(new Error("gateway is shutting down"));
    await Promise.all([...this.local.values()].map((l) => l.done));
    this.relay.close();
    await Promise.all([...this.waiters.values()].flatMap((set) => [...set].map((w) => w.giveUp())));
    await this.membership.leave().catch(() => {});
    await this.listener.close();
    await this.pool.close();
  }
}
