/**
 * A turn: the unit the session queue schedules and the runner executes. It carries one or more requests
 * (collect merges several, steer adds to a running one) and owns the abort controller of the run.
 *
 * Steering text has one owner at a time: the turn's prompt while the run has not started; the request itself
 * while the run is starting and its session is not open yet; from then on the agent's own queue, until the loop
 * takes it. What the loop never took goes back to the session queue (`unreached`), so it is neither lost nor
 * delivered twice.
 */
import type { EmbeddedSession } from "./embedded-session.js";
import type { RunRequest } from "./run-types.js";

export type AbortReason = "timeout" | "aborted" | "shutdown";

export class Turn {
  readonly controller = new AbortController();
  abortReason: AbortReason | undefined;
  /** Set while the agent runs: steering goes straight into its queue. */
  private session: EmbeddedSession | undefined;
  /** Requests steered in after the run started and before its session opened (handed over on `attach`). */
  private readonly beforeOpen: RunRequest[] = [];
  started = false;
  finished = false;
  /** The engine has returned; no more input can reach this turn. */
  private engineDone = false;
  /** Steered requests the agent's loop never took (it ended first): the session queue runs them next. */
  readonly unreached: RunRequest[] = [];

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

  /**
   * Aborts the run; the first reason wins. Only the signal fires here: the run stage turns it into the session's
   * abort, so the abort has one path.
   */
  abort(reason: AbortReason): void {
    if (this.finished) return;
    if (!this.abortReason) this.abortReason = reason;
    this.controller.abort();
  }

  /**
   * Adds a message to this turn: into the agent's queue while the loop runs, handed to it when it opens while the
   * run is starting, appended to the prompt when the run has not started. Returns false when the turn is past
   * the point of taking input (its loop is over): the caller queues the message as a follow-up instead.
   */
  steer(request: RunRequest): boolean {
    if (this.finished || this.controller.signal.aborted || this.engineDone) return false;
    if (this.session) {
      if (!this.session.isStreaming) return false;
      this.session.steer(request.message, request.images);
    } else if (this.started) {
      this.beforeOpen.push(request);
    } else {
      this.prompt = `${this.prompt}\n\n${request.message}`;
    }
    this.members.push(request);
    return true;
  }

  /**
   * Called by the run stage once the session is open, before it is prompted: messages steered in while it opened
   * go into the agent's queue, which the loop reads right after the prompt (they join the first model request).
   */
  attach(session: EmbeddedSession): void {
    this.session = session;
    for (const r of this.beforeOpen.splice(0)) session.steer(r.message, r.images);
  }

  /**
   * Called when the loop is over. Takes back what the agent's queue still holds (steered after the loop's last
   * boundary): those requests leave this turn's members and wait in `unreached` for the session queue. An
   * aborted turn keeps them: they were aborted with it.
   */
  detach(): void {
    const session = this.session;
    this.session = undefined;
    this.engineDone = true;
    if (!session) return;
    const left = session.clearQueue();
    if (this.controller.signal.aborted) return;
    for (const text of [...left.steering, ...left.followUp]) {
      // Never the primary: its text is the prompt itself.
      const i = this.members.findIndex((m, k) => k > 0 && m.message === text);
      if (i < 0) continue;
      const [request] = this.members.splice(i, 1);
      this.unreached.push(request as RunRequest);
    }
  }
}
