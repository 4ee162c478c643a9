/**
 * The gateway's event bus for run events. `agent` events get a per-run `seq` rising by one with no gaps;
 * `chat` events reuse the seq of the agent event they mirror (as the reference does). Listeners are the
 * connections' fan-out; each event's payload is serialized once, lazily, and shared by every connection.
 */
import type { AgentEventPayload, AgentStream, ChatEventPayload } from "../protocol/schema/events.js";

export type { AgentEventPayload, ChatEventPayload, ChatState } from "../protocol/schema/events.js";

/** One event as delivered to connections. `json()` caches the payload's JSON. */
export class BusEvent {
  private cached: string | undefined;
  private cachedLite: string | undefined;
  constructor(
    readonly event: "agent" | "chat",
    readonly sessionKey: string,
    readonly payload: AgentEventPayload | ChatEventPayload,
    /** Stream deltas may be dropped for a slow client; lifecycle, final and tool events never are. */
    readonly droppable: boolean,
  ) {}
  json(): string {
    if (this.cached === undefined) this.cached = JSON.stringify(this.payload);
    return this.cached;
  }

  /**
   * For clients that asked for delta-only assistant events: the payload without the cumulative `text`, so
   * traffic stays linear in the reply length. Other events are unchanged.
   */
  jsonDeltaOnly(): string {
    const p = this.payload as AgentEventPayload;
    if (this.event !== "agent" || p.stream !== "assistant" || !("text" in p.data)) return this.json();
    if (this.cachedLite === undefined) {
      // Built by hand: this runs once per delta, and copying the payload to drop one key costs more.
      this.cachedLite = `{"runId":${JSON.stringify(p.runId)},"seq":${p.seq},"stream":"assistant","ts":${p.ts},"data":{"delta":${JSON.stringify(p.data.delta)}},"sessionKey":${JSON.stringify(p.sessionKey)}}`;
    }
    return this.cachedLite;
  }
}

export type BusListener = (event: BusEvent) => void;

export class EventBus {
  private readonly seqByRun = new Map<string, number>();
  private readonly listeners = new Set<BusListener>();

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Emits an `agent` event; returns its seq. */
  emitAgent(
    runId: string,
    sessionKey: string,
    stream: AgentStream,
    data: Record<string, unknown>,
    droppable = false,
  ): number {
    const seq = (this.seqByRun.get(runId) ?? 0) + 1;
    this.seqByRun.set(runId, seq);
    const payload: AgentEventPayload = { runId, seq, stream, ts: Date.now(), data, sessionKey };
    this.dispatch(new BusEvent("agent", sessionKey, payload, droppable));
    return seq;
  }

  emitChat(payload: ChatEventPayload, droppable = false): void {
    this.dispatch(new BusEvent("chat", payload.sessionKey, payload, droppable));
  }

  /** The last seq of a run (0 when none). */
  lastSeq(runId: string): number {
    return this.seqByRun.get(runId) ?? 0;
  }

  /** Forgets a finished run's counter. */
  endRun(runId: string): void {
    this.seqByRun.delete(runId);
  }

  private dispatch(ev: BusEvent): void {
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch {
        // A broken listener (closed socket) must never stall a run.
      }
    }
  }
}
