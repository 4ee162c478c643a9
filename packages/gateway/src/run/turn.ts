/**
 * A turn: the unit the session queue schedules and the runner executes. It carries one or more requests
 * (collect merges several, steer adds to a running one) and owns the abort controller of the run.
 */
import type { EmbeddedSession } from "./embedded-session.js";
import type { RunRequest } from "./run-types.js";

export type AbortReason = "timeout" | "aborted" | "shutdown";

export class Turn {
  readonly controller = new AbortController();
  abortReason: AbortReason | undefined;
  /** Set while the engine runs; steering goes straight into it. */
  private session: EmbeddedSession | undefined;
  private readonly pendingSteer: string[] = [];
  started = false;
  finished = false;
  /** The engine has returned; no more input can reach this turn. */
  engineDone = false;

  constructor(
    /** The request whose runId names the run's events. */
    readonly primary: RunRequest,
    /** Every request answered by this turn, the primary first. */
    readonly members: RunRequest[],
    /** The text sent to the model. */
    public prompt: string,
  ) {}

  get runId(): string {
    return this.primary.runId;
  }

  get sessionKey(): string {
    return this.primary.sessionKey;
  }

  /** Aborts the run; the first reason wins. */
  abort(reason: AbortReason): void {
    if (this.finished) return;
    if (!this.abortReason) this.abortReason = reason;
    this.controller.abort();
    this.session?.abort();
  }

  /**
   * Adds a message to this turn: injected at the next boundary when the engine is running, appended to the
   * prompt when the run has not started. Returns false when the turn is past the point of taking input
   * (its loop is ending): the caller queues the message as a follow-up instead.
   */
  steer(request: RunRequest): boolean {
    if (this.finished || this.controller.signal.aborted) return false;
    if (this.session) {
      if (!this.session.steer(request.message)) return false;
    } else if (this.started) {
      if (this.engineDone) return false;
      this.pendingSteer.push(request.message);
    } else {
      this.prompt = `${this.prompt}\n\n${request.message}`;
    }
    this.members.push(request);
    return true;
  }

  /**
   * Called by the runner once the engine is open, before it is prompted. Returns the messages steered in
   * while the session was opening: the runner appends them to the prompt.
   */
  attach(session: EmbeddedSession): string[] {
    this.session = session;
    return this.pendingSteer.splice(0);
  }

  detach(): void {
    this.session = undefined;
    this.engineDone = true;
  }
}
