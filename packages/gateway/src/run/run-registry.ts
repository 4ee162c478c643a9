/**
 * Every run the gateway accepted: dedupe by idempotency key (runId), completion waiters for the second
 * `agent` response and `agent.wait`, and the persisted ledger for runs that ended before a restart.
 * Finished runs stay in memory for DEDUPE_TTL_MS (at most DEDUPE_MAX); older ones are read from SQLite. A
 * finished run's record keeps only what dedupe and waiters need: the message, images and reply payloads are
 * released at its end (the payloads are in the ledger, read back when a repeated request asks for them), so a
 * thousand remembered runs cost a thousand small records, not a thousand replies.
 */
import type { RunRow, SessionStore } from "../store/session-store.js";
import type { RunOutcome, RunRequest } from "./run-types.js";
import type { Turn } from "./turn.js";

export const DEDUPE_TTL_MS = 5 * 60_000;
export const DEDUPE_MAX = 1000;

export interface RunRecord {
  /** Once the run is done, only its identity (runId, sessionKey, agentId, acceptedAt, source); message "". */
  request: RunRequest;
  status: "accepted" | "running" | "done";
  startedAt?: number;
  turn?: Turn;
  /** Once done: how it ended, its `result.payloads` left empty (`whenDone` reads them back from the ledger). */
  outcome?: RunOutcome;
  finishedAt?: number;
}

/** agent.wait's answer. `timeout` without endedAt: the wait expired; with endedAt: the run timed out. */
export interface WaitResult {
  runId: string;
  status: "ok" | "error" | "timeout";
  startedAt?: number;
  endedAt?: number;
  error?: string;
  interrupted?: boolean;
}

type Waiter = (outcome: RunOutcome) => void;

export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly finishedOrder: string[] = [];
  private readonly held = new Map<string, (outcome: RunOutcome) => void>();

  constructor(private readonly store: SessionStore) {}

  /** The live or recently finished record of `runId`. */
  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  /** A run the ledger knows (any age), or undefined. */
  ledger(runId: string): RunRow | undefined {
    return this.store.getRun(runId);
  }

  /** Registers a new run; returns false (and does nothing) if the runId is already known. */
  accept(request: RunRequest): boolean {
    if (this.runs.has(request.runId) || this.store.getRun(request.runId)) return false;
    this.runs.set(request.runId, { request, status: "accepted" });
    this.store.runAccepted(request.runId, request.sessionKey, request.acceptedAt);
    return true;
  }

  /**
   * Takes back a run the ledger marked interrupted at start-up because it will go on (it waits for an approval
   * decided after the restart): `agent.wait` on its runId waits for its real end again. False when it is live.
   */
  reopen(request: RunRequest): boolean {
    const live = this.runs.get(request.runId);
    if (live && live.status !== "done") return false;
    this.runs.set(request.runId, { request, status: "accepted" });
    this.store.runReopened(request.runId, request.sessionKey, request.acceptedAt);
    return true;
  }

  started(runId: string, turn: Turn, at: number): void {
    const r = this.runs.get(runId);
    if (!r) return;
    r.status = "running";
    r.turn = turn;
    r.startedAt = at;
  }

  /**
   * The next `finish` of `runId` goes to `onEnd` instead of ending the run: a placement that records ends
   * elsewhere (the cluster's ledger) finishes it afterwards with the recorded outcome.
   */
  hold(runId: string, onEnd: (outcome: RunOutcome) => void): void {
    this.held.set(runId, onEnd);
  }

  /** Records the outcome, persists it and wakes every waiter. */
  finish(runId: string, outcome: RunOutcome): void {
    const hold = this.held.get(runId);
    if (hold) {
      this.held.delete(runId);
      hold(outcome);
      return;
    }
    const r = this.runs.get(runId);
    if (r) {
      if (r.status === "done") return;
      r.status = "done";
      r.turn = undefined;
      r.finishedAt = Date.now();
      this.store.runEnded({
        runId,
        sessionKey: r.request.sessionKey,
        status: outcome.status,
        acceptedAt: r.request.acceptedAt,
        startedAt: outcome.startedAt,
        endedAt: outcome.endedAt,
        error: outcome.error,
        summary: outcome.summary,
        result: outcome.result,
      });
      // The waiters below get the whole outcome; the record keeps none of the reply or the prompt.
      r.outcome = { ...outcome, result: { ...outcome.result, payloads: [] } };
      const { runId: id, sessionKey, agentId, acceptedAt, source } = r.request;
      r.request = { runId: id, sessionKey, agentId, acceptedAt, source, message: "" };
      this.finishedOrder.push(runId);
      this.prune();
    }
    const ws = this.waiters.get(runId);
    if (ws) {
      this.waiters.delete(runId);
      for (const w of ws) w(outcome);
    }
  }

  /** Resolves with the outcome when the run ends (at once if it already has). */
  whenDone(runId: string): Promise<RunOutcome> {
    const r = this.runs.get(runId);
    if (r?.outcome) return Promise.resolve(this.withPayloads(runId, r.outcome));
    return new Promise((resolve) => this.addWaiter(runId, resolve));
  }

  /** agent.wait: the run's end, or `timeout` after `timeoutMs` (the run goes on). */
  wait(runId: string, timeoutMs: number): Promise<WaitResult> {
    const r = this.runs.get(runId);
    if (r?.outcome) return Promise.resolve(toWait(runId, r.outcome));
    if (!r) {
      const row = this.store.getRun(runId);
      if (row && row.status !== "accepted" && row.status !== "running") return Promise.resolve(rowToWait(row));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = (outcome) => {
        clearTimeout(timer);
        resolve(toWait(runId, outcome));
      };
      const timer = setTimeout(() => {
        this.waiters.get(runId)?.delete(waiter);
        const live = this.runs.get(runId);
        resolve({ runId, status: "timeout", ...(live?.startedAt ? { startedAt: live.startedAt } : {}) });
      }, timeoutMs);
      this.addWaiter(runId, waiter);
    });
  }

  /** Runs not finished yet. */
  active(): RunRecord[] {
    return [...this.runs.values()].filter((r) => r.status !== "done");
  }

  /** Active runs of one session. */
  activeForSession(sessionKey: string): RunRecord[] {
    return this.active().filter((r) => r.request.sessionKey === sessionKey);
  }

  /** A finished run's outcome with its reply payloads, read back from the ledger. */
  private withPayloads(runId: string, outcome: RunOutcome): RunOutcome {
    let recorded: RunOutcome["result"] | undefined;
    try {
      recorded = this.store.getRun(runId)?.result as RunOutcome["result"] | undefined;
    } catch {
      // The index is closed (the gateway is stopping): the outcome without its payloads is all there is.
    }
    return recorded?.payloads ? { ...outcome, result: { ...outcome.result, payloads: recorded.payloads } } : outcome;
  }

  private addWaiter(runId: string, w: Waiter): void {
    let set = this.waiters.get(runId);
    if (!set) {
      set = new Set();
      this.waiters.set(runId, set);
    }
    set.add(w);
  }

  private prune(): void {
    const cutoff = Date.now() - DEDUPE_TTL_MS;
    while (this.finishedOrder.length > 0) {
      const id = this.finishedOrder[0] as string;
      const r = this.runs.get(id);
      if (r && this.finishedOrder.length <= DEDUPE_MAX && (r.finishedAt ?? 0) > cutoff) break;
      this.finishedOrder.shift();
      this.runs.delete(id);
    }
  }
}

function toWait(runId: string, o: RunOutcome): WaitResult {
  return {
    runId,
    status: o.status === "ok" ? "ok" : o.status === "timeout" ? "timeout" : "error",
    startedAt: o.startedAt,
    endedAt: o.endedAt,
    ...(o.status !== "ok" && o.error ? { error: o.error } : {}),
  };
}

function rowToWait(row: RunRow): WaitResult {
  return {
    runId: row.runId,
    status: row.status === "ok" ? "ok" : row.status === "timeout" ? "timeout" : "error",
    ...(row.startedAt ? { startedAt: row.startedAt } : {}),
    ...(row.endedAt ? { endedAt: row.endedAt } : {}),
    ...(row.error && row.status !== "ok" ? { error: row.error } : {}),
    ...(row.status === "interrupted" ? { interrupted: true } : {}),
  };
}
