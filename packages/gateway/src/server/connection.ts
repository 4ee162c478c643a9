/**
 * One client connection: handshake state, the per-connection event seq, subscriptions, and a bounded send
 * path. A slow client never stalls a run: when its socket buffer is over `maxBufferedBytes`, droppable
 * events (stream deltas) are skipped for it (seq still advances, so the client sees the gap); responses and
 * lifecycle/final events are always queued; past 2× the limit the connection is closed as too slow.
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
    const buffered = this.ws.bufferedAmount;
    if (buffered > this.maxBufferedBytes) {
      if (buffered > 2 * this.maxBufferedBytes) {
        this.close(1013, "slow consumer: send buffer over limit");
        return;
      }
      if (ev.droppable) {
        this.droppedEvents++;
        return;
      }
    }
    this.sendRaw(`{"type":"event","event":"${ev.event}","payload":${payload},"seq":${seq}}`);
  }

  /** A broadcast event (approvals) in this connection's numbered stream; `json` is the payload, serialized once. */
  sendBroadcast(event: string, json: string): void {
    if (this.closed) return;
    this.sendRaw(`{"type":"event","event":"${event}","payload":${json},"seq":${++this.seq}}`);
  }

  /** An event frame outside the numbered stream (connect.challenge, tick). */
  sendUnsequenced(event: string, payload: unknown): void {
    this.sendRaw(JSON.stringify({ type: "event", event, payload }));
  }

  respond(frame: ResponseFrame): void {
    this.sendRaw(JSON.stringify(frame));
  }

  respondError(id: string, error: ErrorShape): void {
    this.respond({ type: "res", id, ok: false, error });
  }

  sendRaw(text: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.cork();
    this.ws.send(text);
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
