/**
 * The gateway's event bus for run events. `agent` events get a per-run `seq` rising by one with no gaps;
 * `chat` events reuse the seq of the agent event they mirror (as the reference does). Listeners are the
 * connections' fan-out; each event's payload is serialized once, lazily, and shared by every connection.
 */
import type { AgentEventPayload, AgentStream, ChatEventPayload } from "../protocol/schema/events.js";

export type { AgentEventPayload, ChatEventPayload, ChatState } from "../protocol/schema/events.js";

/**
 * Who an event is for. `lite`: clients with tiller.delta-only (every burst of text, delta only); `full`:
 * reference-protocol clients (text coalesced at a bounded rate, with the cumulative text); `all`: everyone. Each
 * audience has its own per-run seq, gap-free in what that audience receives.
 */
export type Audience = "all" | "full" | "lite";

/** One event as delivered to connections. `json()` / `jsonLite()` cache the payload's JSON. */
export class BusEvent {
  private cached: string | undefined;
  private cachedLite: string | undefined;
  constructor(
    readonly event: "agent" | "chat",
    readonly sessionKey: string,
    /** The payload as full-audience clients see it (its seq is theirs). */
    readonly payload: AgentEventPayload | ChatEventPayload,
    /** Stream deltas may be dropped for a slow client; lifecycle, final and tool events never are. */
    readonly droppable: boolean,
    readonly audience: Audience = "all",
    /** The seq delta-only clients see for this event (agent events). */
    readonly liteSeq: number = (payload as { seq: number }).seq,
  ) {}

  json(): string {
    if (this.cached === undefined) this.cached = JSON.stringify(this.payload);
    return this.cached;
  }

  /**
   * For delta-only clients: their seq, and for assistant events the delta without the cumulative text, so their
   * traffic stays linear in the reply length. Chat events are the same for everyone.
   */
  jsonLite(): string {
    if (this.event !== "agent") return this.json();
    const p = this.payload as AgentEventPayload;
    if (this.cachedLite === undefined) {
      if (p.stream === "assistant") {
        // Built by hand: this runs once per burst, and copying the payload to drop one key costs more.
        this.cachedLite = `{"runId":${JSON.stringify(p.runId)},"seq":${this.liteSeq},"stream":"assistant","ts":${p.ts},"data":{"delta":${JSON.stringify(p.data.delta)}},"sessionKey":${JSON.stringify(p.sessionKey)}}`;
      } else {
        this.cachedLite = this.liteSeq === p.seq ? this.json() : JSON.stringify({ ...p, seq: this.liteSeq });
      }
    }
    return this.cachedLite;
  }
}

export type BusListener = (event: BusEvent) => void;

export class EventBus {
  /** Per run: the last seq of each audience. */
  private readonly seqByRun = new Map<string, { full: number; lite: number }>();
  private readonly listeners = new Set<BusListener>();

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Emits an `agent` event for an audience; returns its full-audience seq (what chat events mirror). */
  emitAgent(
    runId: string,
    sessionKey: string,
    stream: AgentStream,
    data: Record<string, unknown>,
    droppable = false,
    audience: Audience = "all",
  ): number {
    let seqs = this.seqByRun.get(runId);
    if (!seqs) {
      seqs = { full: 0, lite: 0 };
      this.seqByRun.set(runId, seqs);
    }
    if (audience !== "lite") seqs.full++;
    if (audience !== "full") seqs.lite++;
    const payload: AgentEventPayload = { runId, seq: seqs.full, stream, ts: Date.now(), data, sessionKey };
    this.dispatch(new BusEvent("agent", sessionKey, payload, droppable, audience, seqs.lite));
    return seqs.full;
  }

  emitChat(payload: ChatEventPayload, droppable = false): void {
    this.dispatch(new BusEvent("chat", payload.sessionKey, payload, droppable));
  }

  /** The last seq of a run (0 when none). */
  lastSeq(runId: string): number {
    return this.seqByRun.get(runId)?.full ?? 0;
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
