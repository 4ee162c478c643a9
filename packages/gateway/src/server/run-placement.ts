/**
 * Where the runs of the gateway execute: the one seam the core submits to. `LocalPlacement` is the single-node
 * gateway (SQLite ledger, this process's session queues and lanes); the cluster's placement (src/cluster)
 * accepts into PostgreSQL and lets whichever node claims the run execute it. Methods and the HTTP API only ever
 * call `GatewayCore.submit / waitRun / abortRuns`, which forward here.
 */
import type { WaitResult } from "../run/run-registry.js";
import type { RunRequest } from "../run/run-types.js";
import type { SessionEntry, SessionPatch } from "../store/session-store.js";

/** Where a session's queue stands: its active run (running, or accepted and waiting for a lane slot), and the rest. */
export interface SessionQueueState {
  activeRunId?: string;
  /** Requests waiting behind the active run (summarized ones included), as `SessionQueues.pendingCount`. */
  queued: number;
}

/** A session patch as sessions.patch sends it: `null` clears an override. */
export type SharedSessionPatch = { [K in keyof SessionPatch]?: SessionPatch[K] | null };

import type { GatewayCore } from "./gateway-core.js";

/** Contract of a run placement. */
export interface RunPlacement {
  /**
   * Accepts a request. `ack` is called exactly once, when the request is accepted durably (local: at once;
   * cluster: after its COMMIT) and before any event of its run can reach a client; then the request is
   * registered in `core.runs`, so `core.runs.whenDone(runId)` resolves with its outcome wherever it executes.
   * Resolves false for a runId already known (an idempotent retry: no second run; `ack` is still called).
   * Rejects only when the request could not be accepted at all (ack not called).
   */
  submit(req: RunRequest, ack?: () => void): Promise<boolean>;
  /** agent.wait: the run's end (wherever it executes), or `timeout` after `timeoutMs`. */
  wait(runId: string, timeoutMs: number): Promise<WaitResult>;
  /**
   * Aborts the session's active run (or only `runId`, queued or running), wherever it executes. Resolves with
   * the runIds that were aborted.
   */
  abort(sessionKey: string, runId?: string): Promise<string[]>;
  /**
   * The session now uses `sessionId` (sessions.reset, /new, sessions.delete): a placement that shares the session
   * index records it, so the session's next run on any node starts the new transcript.
   */
  sessionReset?(sessionKey: string, sessionId: string): Promise<void>;
  /** sessions.patch was applied here: a placement that shares the session index applies it there too. */
  sessionPatched?(sessionKey: string, agentId: string, patch: SharedSessionPatch): Promise<void>;
  /** sessions.list from a shared index (every node's sessions), newest first; absent: this process's store. */
  listSessions?(limit: number, offset: number): Promise<{ sessions: SessionEntry[]; count: number }>;
  /**
   * The queue state of these sessions where a placement decides runs outside this process (a cluster: its
   * PostgreSQL queue), for sessions.list / describe and /status; a key absent from the map is idle. Absent: this
   * process's session queues are the truth.
   */
  queueState?(sessionKeys: string[]): Promise<Map<string, SessionQueueState>>;
  /** A session gained (true) or lost (false) its last subscribed connection on this process. */
  watchSession?(sessionKey: string, watching: boolean): void;
  /** Stops taking work; called by `GatewayCore.shutdown` after local runs were aborted. */
  close(): Promise<void>;
}

/** Builds the placement for a core (called once, in the core's constructor). */
export type RunPlacementFactory = (core: GatewayCore) => RunPlacement;

/** The single-node gateway: today's session queues and lanes in this process. */
export class LocalPlacement implements RunPlacement {
  constructor(private readonly core: GatewayCore) {}

  submit(req: RunRequest, ack?: () => void): Promise<boolean> {
    // The ack goes first: the queue may start the run (and emit its first events) synchronously.
    ack?.();
    return Promise.resolve(this.core.submitLocal(req));
  }

  wait(runId: string, timeoutMs: number): Promise<WaitResult> {
    return this.core.runs.wait(runId, timeoutMs);
  }

  abort(sessionKey: string, runId?: string): Promise<string[]> {
    return Promise.resolve(this.core.queues.abort(sessionKey, runId));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
