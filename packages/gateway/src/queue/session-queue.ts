/**
 * What happens to a message that reaches a session: it starts a turn at once when the session is idle;
 * while a turn is active the session's queue mode decides —
 *   steer     inject into the running loop at its next boundary (follow-up if it cannot take input),
 *   followup  its own turn after the active one,
 *   collect   queued, then after `debounceMs` of quiet every queued message is merged into one turn,
 *   interrupt abort the active turn, drop the queue, run the newest message.
 * A message may carry its own mode (`queueMode` on agent / chat.send), which wins over the session's.
 * The queue is capped; over the cap `drop` decides: old (drop the oldest), new (refuse the newcomer),
 * summarize (drop the oldest but carry a one-line summary of each into the next turn, whose outcome the
 * dropped requests then share). Turns pass the session lane — the one place a session is kept to one turn at
 * a time — and then the global lane. The text of a steered message is handed to the running turn (and from
 * there to the agent's own queue); nothing here keeps a copy of it.
 */
import type { QueueSettings } from "../config/config-types.js";
import { type CommandLanes, globalLane, sessionLane } from "../lanes/command-lanes.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import { type AbortReason, Turn } from "../run/turn.js";
import { DROP_REASONS } from "./drop-reasons.js";

export interface SessionQueueDeps {
  lanes: CommandLanes;
  /** Runs a turn to its outcome (never rejects). */
  execute(turn: Turn): Promise<RunOutcome>;
  /** A turn got its lane slots and is starting. */
  onStart(turn: Turn): void;
  /** A request is answered (its turn ended, or it was dropped). */
  finish(request: RunRequest, outcome: RunOutcome): void;
  settings(sessionKey: string): QueueSettings;
}

/** What `submit` did with a request. */
export type SubmitResult = "started" | "steered" | "queued" | "dropped";

interface SessionState {
  key: string;
  /** The session's current turn: running, or built and waiting for its lanes. Steer, interrupt and abort act on it. */
  active?: Turn;
  /** Requests waiting for a later turn (each has a task waiting in the session lane). */
  pending: RunRequest[];
  /** Requests dropped under `summarize`, answered by the next turn. */
  summarized: RunRequest[];
  lastEnqueueAt: number;
}

const SUMMARY_CHARS = 160;

export class SessionQueues {
  private readonly sessions = new Map<string, SessionState>();

  constructor(private readonly deps: SessionQueueDeps) {}

  submit(req: RunRequest): SubmitResult {
    const state = this.state(req.sessionKey);
    if (!state.active && state.pending.length === 0 && state.summarized.length === 0) {
      const turn = new Turn(req, [req], req.message);
      // Built now, so a message that comes while it waits for its lanes is steered into its prompt.
      state.active = turn;
      this.schedule(state, turn);
      return "started";
    }
    const settings = this.deps.settings(req.sessionKey);
    // The message's own mode (agent / chat.send `queueMode`) wins over the session's.
    switch (req.queueMode ?? settings.mode) {
      case "interrupt": {
        state.active?.abort("aborted");
        for (const p of state.pending.splice(0)) this.drop(p, DROP_REASONS.interrupt);
        for (const p of state.summarized.splice(0)) this.drop(p, DROP_REASONS.interrupt);
        this.enqueue(state, [req]);
        return "queued";
      }
      case "steer":
        if (state.active && state.pending.length === 0 && state.active.steer(req)) return "steered";
        break;
      default:
        break;
    }
    this.enqueue(state, [req]);
    const dropped = this.enforceCap(state, settings);
    return dropped === req ? "dropped" : "queued";
  }

  /**
   * Aborts the session's active turn (when `runId` is absent or belongs to it) and removes `runId` from
   * the queue. Returns the runIds that were aborted.
   */
  abort(sessionKey: string, runId?: string, reason: AbortReason = "aborted"): string[] {
    const state = this.sessions.get(sessionKey);
    if (!state) return [];
    const ids: string[] = [];
    const active = state.active;
    if (active && !active.finished && (!runId || active.members.some((m) => m.runId === runId))) {
      active.abort(reason);
      ids.push(...active.members.map((m) => m.runId));
    }
    if (runId) {
      const i = state.pending.findIndex((p) => p.runId === runId);
      if (i >= 0) {
        const [p] = state.pending.splice(i, 1);
        this.drop(p as RunRequest, "aborted before it started", "aborted");
        ids.push(runId);
      }
    }
    return ids;
  }

  /** Aborts everything (shutdown). */
  abortAll(reason: AbortReason): void {
    for (const key of [...this.sessions.keys()]) {
      const state = this.sessions.get(key) as SessionState;
      for (const p of state.pending.splice(0)) this.drop(p, "gateway shutting down", "aborted");
      for (const p of state.summarized.splice(0)) this.drop(p, "gateway shutting down", "aborted");
      state.active?.abort(reason);
    }
  }

  /** The active turn of a session, if any. */
  active(sessionKey: string): Turn | undefined {
    return this.sessions.get(sessionKey)?.active;
  }

  /** Number of queued (not yet started) requests of a session. */
  pendingCount(sessionKey: string): number {
    const s = this.sessions.get(sessionKey);
    return s ? s.pending.length + s.summarized.length : 0;
  }

  private state(key: string): SessionState {
    let s = this.sessions.get(key);
    if (!s) {
      s = { key, pending: [], summarized: [], lastEnqueueAt: 0 };
      this.sessions.set(key, s);
    }
    return s;
  }

  /** Queues requests for a later turn: each gets a task in the session lane, which builds that turn when it runs. */
  private enqueue(state: SessionState, requests: RunRequest[], front = false): void {
    if (front) state.pending.unshift(...requests);
    else state.pending.push(...requests);
    state.lastEnqueueAt = Date.now();
    for (let i = 0; i < requests.length; i++) this.schedule(state);
  }

  /**
   * One task in the session lane — the only thing that keeps a session to one turn at a time. It runs `built`, or
   * (queued requests) builds the turn from what waits when its turn comes, so collect can merge everything that
   * came meanwhile; a task that finds nothing waiting (taken by an earlier merge, aborted, dropped) just ends.
   */
  private schedule(state: SessionState, built?: Turn): void {
    this.deps.lanes
      .run(sessionLane(state.key), async () => {
        const turn = built ?? (await this.take(state));
        if (!turn) return this.forgetIfIdle(state);
        state.active = turn;
        let outcome: RunOutcome;
        try {
          outcome = await this.deps.lanes.run(globalLane(turn.primary.lane), () => {
            this.deps.onStart(turn);
            return this.deps.execute(turn);
          });
        } catch (err) {
          outcome = failedOutcome(err, turn);
        }
        this.end(state, turn, outcome);
      })
      .catch((err: unknown) => {
        // The lane refused the task (shutdown): a turn already built is answered, never left waiting.
        if (built && !built.finished) this.end(state, built, failedOutcome(err, built));
      });
  }

  private end(state: SessionState, turn: Turn, outcome: RunOutcome): void {
    turn.finished = true;
    if (state.active === turn) state.active = undefined;
    for (const m of turn.members) this.deps.finish(m, outcome);
    // Steered too late for the loop (it had ended): they run next, in the order they came.
    if (turn.unreached.length > 0) this.enqueue(state, turn.unreached, true);
    this.forgetIfIdle(state);
  }

  /** The next turn from what waits: after collect's quiet period, every queued message merged; else the oldest. */
  private async take(state: SessionState): Promise<Turn | undefined> {
    for (;;) {
      if (state.pending.length === 0 && state.summarized.length === 0) return undefined;
      const settings = this.deps.settings(state.key);
      const wait = modeOf(state, settings) === "collect" ? settings.debounceMs - (Date.now() - state.lastEnqueueAt) : 0;
      if (wait <= 0) break;
      await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
    }
    const settings = this.deps.settings(state.key);
    const taken = modeOf(state, settings) === "collect" ? state.pending.splice(0) : state.pending.splice(0, 1);
    const dropped = state.summarized.splice(0);
    const prompt = turnPrompt(taken, dropped);
    const primary = taken[0] ?? (dropped[0] as RunRequest);
    const members = [...taken, ...dropped.filter((d) => d !== primary)];
    return new Turn(primary, members.includes(primary) ? members : [primary, ...members], prompt);
  }

  private enforceCap(state: SessionState, settings: QueueSettings): RunRequest | undefined {
    let droppedNew: RunRequest | undefined;
    while (state.pending.length > settings.cap) {
      if (settings.drop === "new") {
        droppedNew = state.pending.pop() as RunRequest;
        this.drop(droppedNew, DROP_REASONS.new(settings.cap));
      } else if (settings.drop === "old") {
        this.drop(state.pending.shift() as RunRequest, DROP_REASONS.old(settings.cap));
      } else {
        state.summarized.push(state.pending.shift() as RunRequest);
      }
    }
    return droppedNew;
  }

  private drop(req: RunRequest, why: string, status: RunOutcome["status"] = "error"): void {
    const now = Date.now();
    this.deps.finish(req, {
      status,
      summary: why,
      error: why,
      startedAt: now,
      endedAt: now,
      result: {
        payloads: [],
        meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } },
      },
    });
  }

  private forgetIfIdle(state: SessionState): void {
    if (state.active || state.pending.length > 0 || state.summarized.length > 0) return;
    if (this.sessions.get(state.key) === state) this.sessions.delete(state.key);
  }
}

/**
 * The prompt of a turn taken from the queue: the messages taken (`mergePrompt`), after a one-line summary of
 * each request dropped under drop:summarize (the cluster builds its turns with it too).
 */
export function turnPrompt(taken: RunRequest[], dropped: RunRequest[]): string {
  const prompt = mergePrompt(taken);
  if (dropped.length === 0) return prompt;
  const lines = dropped.map((d) => `- ${oneLine(d.message)}`);
  return `[${dropped.length} queued message(s) were dropped because the queue was full. Summary:]\n${lines.join("\n")}\n\n${prompt}`;
}

/** The prompt of a collect turn: the messages queued meanwhile, numbered (the cluster's collect uses it too). */
export function mergePrompt(items: RunRequest[]): string {
  if (items.length === 1) return (items[0] as RunRequest).message;
  const parts = items.map((r, i) => `---\nQueued #${i + 1}\n${r.message}`);
  return `[Queued messages while agent was busy]\n\n${parts.join("\n\n")}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 1)}…` : flat;
}

function failedOutcome(err: unknown, turn: Turn): RunOutcome {
  const now = Date.now();
  const message = err instanceof Error ? err.message : String(err);
  return {
    status: turn.abortReason ? "aborted" : "error",
    summary: message,
    error: message,
    startedAt: now,
    endedAt: now,
    result: { payloads: [], meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } } },
  };
}

/** The mode the next waiting message is taken by: its own (`queueMode`), else the session's. */
function modeOf(state: SessionState, settings: QueueSettings): QueueSettings["mode"] {
  const first = state.pending[0] ?? state.summarized[0];
  return first?.queueMode ?? settings.mode;
}
