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
 * dropped requests then share). Turns pass the session lane and then the global lane.
 */
import type { QueueSettings } from "../config/config-types.js";
import { type CommandLanes, globalLane, sessionLane } from "../lanes/command-lanes.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import { type AbortReason, Turn } from "../run/turn.js";

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
  active?: Turn;
  pending: RunRequest[];
  /** Requests dropped under `summarize`, answered by the next turn. */
  summarized: RunRequest[];
  lastEnqueueAt: number;
  timer?: NodeJS.Timeout;
}

const SUMMARY_CHARS = 160;

export class SessionQueues {
  private readonly sessions = new Map<string, SessionState>();

  constructor(private readonly deps: SessionQueueDeps) {}

  submit(req: RunRequest): SubmitResult {
    const state = this.state(req.sessionKey);
    if (!state.active && state.pending.length === 0 && state.summarized.length === 0) {
      this.start(state, new Turn(req, [req], req.message));
      return "started";
    }
    const settings = this.deps.settings(req.sessionKey);
    // The message's own mode (agent / chat.send `queueMode`) wins over the session's.
    switch (req.queueMode ?? settings.mode) {
      case "interrupt": {
        state.active?.abort("aborted");
        for (const p of state.pending.splice(0)) this.drop(p, "superseded by a newer message (interrupt)");
        for (const p of state.summarized.splice(0)) this.drop(p, "superseded by a newer message (interrupt)");
        state.pending.push(req);
        state.lastEnqueueAt = Date.now();
        if (!state.active) this.drain(state);
        return "queued";
      }
      case "steer":
        if (state.active && state.pending.length === 0 && state.active.steer(req)) return "steered";
        break;
      default:
        break;
    }
    state.pending.push(req);
    state.lastEnqueueAt = Date.now();
    const dropped = this.enforceCap(state, settings);
    if (!state.active) this.drain(state);
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
      if (state.timer) clearTimeout(state.timer);
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

  private start(state: SessionState, turn: Turn): void {
    state.active = turn;
    const key = turn.sessionKey;
    this.deps.lanes
      .run(sessionLane(key), () =>
        this.deps.lanes.run(globalLane(turn.primary.lane), () => {
          this.deps.onStart(turn);
          return this.deps.execute(turn);
        }),
      )
      .catch((err: unknown): RunOutcome => failedOutcome(err, turn))
      .then((outcome) => {
        turn.finished = true;
        for (const m of turn.members) this.deps.finish(m, outcome);
        if (state.active === turn) state.active = undefined;
        this.drain(state);
      });
  }

  private drain(state: SessionState): void {
    if (state.active) return;
    if (state.pending.length === 0 && state.summarized.length === 0) {
      if (!state.timer) this.forget(state);
      return;
    }
    const first = (state.pending[0] ?? state.summarized[0]) as RunRequest;
    const settings = this.deps.settings(first.sessionKey);
    let taken: RunRequest[];
    if ((first.queueMode ?? settings.mode) === "collect") {
      const wait = settings.debounceMs - (Date.now() - state.lastEnqueueAt);
      if (wait > 0) {
        if (state.timer) clearTimeout(state.timer);
        state.timer = setTimeout(() => {
          state.timer = undefined;
          this.drain(state);
        }, wait);
        return;
      }
      taken = state.pending.splice(0);
    } else {
      taken = state.pending.splice(0, 1);
    }
    const dropped = state.summarized.splice(0);
    let prompt = mergePrompt(taken);
    if (dropped.length > 0) {
      const lines = dropped.map((d) => `- ${oneLine(d.message)}`);
      prompt = `[${dropped.length} queued message(s) were dropped because the queue was full. Summary:]\n${lines.join("\n")}\n\n${prompt}`;
    }
    const primary = taken[0] ?? (dropped[0] as RunRequest);
    const members = [...taken, ...dropped.filter((d) => d !== primary)];
    this.start(state, new Turn(primary, members.includes(primary) ? members : [primary, ...members], prompt));
  }

  private enforceCap(state: SessionState, settings: QueueSettings): RunRequest | undefined {
    let droppedNew: RunRequest | undefined;
    while (state.pending.length > settings.cap) {
      if (settings.drop === "new") {
        droppedNew = state.pending.pop() as RunRequest;
        this.drop(droppedNew, `queue full (cap ${settings.cap}): message dropped`);
      } else if (settings.drop === "old") {
        this.drop(state.pending.shift() as RunRequest, `queue full (cap ${settings.cap}): dropped for a newer message`);
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

  private forget(state: SessionState): void {
    if (this.sessions.get(state.key) === state) this.sessions.delete(state.key);
  }
}

function mergePrompt(items: RunRequest[]): string {
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
