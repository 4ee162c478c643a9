/**
 * One client connection: handshake state, the per-connection event seq, subscriptions, and a bounded send
 * path. A client that stops reading never stalls a run or another client, and what the gateway holds for it
 * stays bounded. Every frame goes out through one write path (`admit`), which measures the client's backlog:
 * the bytes the gateway has queued for it and the socket has not taken (`ws.bufferedAmount`). What the kernel's
 * socket buffers hold is not in it; the OS bounds those per socket (a few MB on loopback, `tcp_wmem`), so a
 * client can stop reading for megabytes before its backlog grows at all. Over `maxBufferedBytes`, droppable
 * frames (stream deltas, ticks) are skipped (an event's seq still advances, so the client sees the gap);
 * responses, lifecycle, tool and final events still go out; past 2× the limit the connection is closed 1013
 * whatever the frame. So the gateway holds at most 2× the limit and two frames per connection (see `backlog`).
 */
import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { ErrorShape, ResponseFrame } from "../protocol/frames.js";
import type { Challenge, HandshakeResult } from "../protocol/handshake.js";
import type { TextView } from "../protocol/schema/events.js";
import type { BusEvent } from "../run/event-bus.js";
import type { SubscriptionIndex } from "./subscriptions.js";

import { viewReadsText } from "./text-view.js";

export { CAP_DELTA_ONLY } from "./text-view.js";
/** Client capability: receive agent/chat events of every session, not only the ones it touched. */
export const CAP_ALL_EVENTS = "tiller.all-events";
/**
 * The reference's capability: events only of the sessions the connection subscribed to
 * (`sessions.messages.subscribe`, `sessions.subscribe`) or sent a message to; reading a session
 * (`chat.history`) does not subscribe it.
 */
export const CAP_SESSION_SCOPED_EVENTS = "session-scoped-events";

export class Connection {
  readonly connId = randomUUID();
  readonly challenge: Challenge = { nonce: randomUUID(), ts: Date.now() };
  hello: HandshakeResult | undefined;
  caps = new Set<string>();
  /** What this connection receives of a run's text (set at connect by `textViewOf`). */
  view: TextView = "chat";
  /** It reads the cumulative copies of a reply's text, so runs it follows build them. */
  get readsText(): boolean {
    return !this.closed && viewReadsText(this.view);
  }
  /** Session keys whose events this connection receives. */
  readonly sessionKeys = new Set<string>();
  allSessions = false;
  private seq = 0;
  droppedEvents = 0;
  private corked = false;
  /** Sizes of the frames over `maxBufferedBytes` queued and not yet written, oldest first (see `backlog`). */
  private readonly bigFramesInFlight: number[] = [];
  closed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly maxBufferedBytes: number,
    private readonly index: SubscriptionIndex<Connection>,
  ) {}

  /** Follow a session's agent/chat events from now on. */
  subscribe(sessionKey: string): void {
    if (this.sessionKeys.has(sessionKey)) return;
    this.sessionKeys.add(sessionKey);
    this.index.add(sessionKey, this);
  }

  /** Stop following a session's events. */
  unsubscribe(sessionKey: string): void {
    if (!this.sessionKeys.delete(sessionKey)) return;
    this.index.remove(this, [sessionKey], false);
  }

  /** The connection read a session: follow it, unless it asked to follow only what it subscribed to. */
  touch(sessionKey: string): void {
    if (!this.caps.has(CAP_SESSION_SCOPED_EVENTS)) this.subscribe(sessionKey);
  }

  /** Follow every session's events. */
  subscribeAll(): void {
    this.allSessions = true;
    this.index.addAll(this);
  }

  /** Drops every subscription (on close). */
  unsubscribeAll(): void {
    this.index.remove(this, this.sessionKeys);
    this.sessionKeys.clear();
    this.allSessions = false;
  }

  get scopes(): readonly string[] {
    return this.hello?.scopes ?? [];
  }

  /** Sends a bus event as an `event` frame with this connection's next seq. */
  sendEvent(ev: BusEvent): void {
    if (this.closed) return;
    // The event as this connection's text view has it, if at all (see TextView); seq counts only what it receives.
    const payload = ev.jsonFor(this.view, this.droppedEvents > 0);
    if (payload === undefined) return;
    const seq = ++this.seq;
    if (!this.admit(ev.droppable)) {
      if (!this.closed) this.droppedEvents++;
      return;
    }
    this.write(`{"type":"event","event":"${ev.event}","payload":${payload},"seq":${seq}}`);
  }

  /** A broadcast event (approvals) in this connection's numbered stream; `json` is the payload, serialized once. */
  sendBroadcast(event: string, json: string): void {
    if (!this.admit(false)) return;
    this.write(`{"type":"event","event":"${event}","payload":${json},"seq":${++this.seq}}`);
  }

  /**
   * An event frame outside the numbered stream (connect.challenge, tick, shutdown). `droppable`: a frame a
   * backlogged client does without (a tick: its queued frames keep the connection alive anyway).
   */
  sendUnsequenced(event: string, payload: unknown, droppable = false): void {
    if (!this.admit(droppable)) return;
    this.write(JSON.stringify({ type: "event", event, payload }));
  }

  respond(frame: ResponseFrame): void {
    this.sendRaw(JSON.stringify(frame));
  }

  respondError(id: string, error: ErrorShape): void {
    this.respond({ type: "res", id, ok: false, error });
  }

  /** A frame that is never dropped (a response): queued, or the connection is closed if the client is too slow. */
  sendRaw(text: string): void {
    if (this.admit(false)) this.write(text);
  }

  /**
   * The client's backlog as the bound counts it: what the gateway has queued for it, less the two oldest frames
   * over `maxBufferedBytes` still being written. The socket counts a frame as queued until all of it is written,
   * and a frame can be larger than the limit (a long reply's chat final and, right after it, the `agent` answer
   * with the same text; a history page): a client that reads must not be cut off, or lose deltas, for the frames
   * after them. A client that stopped reading gains two frames from it at most: the big ones stay in flight, and
   * what comes after them (a third big frame included) counts in full.
   */
  private backlog(): number {
    const inFlight = this.bigFramesInFlight;
    return this.ws.bufferedAmount - (inFlight[0] ?? 0) - (inFlight[1] ?? 0);
  }

  /**
   * Whether a frame may go out now: the one place the bound is kept (see the module doc). Over the limit a
   * droppable frame is refused; past twice the limit the connection is closed as too slow and nothing goes out.
   */
  private admit(droppable: boolean): boolean {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return false;
    const backlog = this.backlog();
    if (backlog <= this.maxBufferedBytes) return true;
    if (backlog > 2 * this.maxBufferedBytes) {
      // The close frame queues behind the backlog; a client that never reads it has its socket destroyed by ws
      // after its close timeout (30 s), which frees what was queued.
      this.close(1013, "slow consumer: send buffer over limit");
      return false;
    }
    return !droppable;
  }

  /** Queues an admitted frame; one over the limit is remembered until written (see `backlog`). */
  private write(text: string): void {
    this.cork();
    // Counted in UTF-16 units, never more than its UTF-8 bytes: the allowance errs toward the bound.
    if (text.length <= this.maxBufferedBytes) {
      this.ws.send(text);
      return;
    }
    // The socket writes frames in order, so the callbacks come oldest first.
    this.bigFramesInFlight.push(text.length);
    this.ws.send(text, () => {
      this.bigFramesInFlight.shift();
    });
  }

  /**
   * Coalesces the frames written by one callback (one fan-out of a run's events) into one socket write. The
   * uncork is a microtask, not the next loop turn: frames sent from a setImmediate (the event bridge's burst
   * flush) must not wait a whole extra turn of every other session's I/O.
   */
  private cork(): void {
    if (this.corked) return;
    const socket = (this.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!socket) return;
    this.corked = true;
    socket.cork();
    queueMicrotask(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /** Closes after pending frames are flushed. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch {
      this.ws.terminate();
    }
  }
}
