/**
 * The gateway's event bus for run events. `agent` events get a per-run `seq` rising by one with no gaps;
 * `chat` events reuse the seq of the agent event they mirror (as the reference does). Listeners are the
 * connections' fan-out; each event's payload is serialized once, lazily, and shared by every connection.
 */
import type { AgentEventPayload, AgentStream, ChatEventPayload, TextView } from "../protocol/schema/events.js";

export type { AgentEventPayload, ChatEventPayload, ChatState } from "../protocol/schema/events.js";

/**
 * Which run events an event was emitted for. `lite`: the `deltas` view (every burst of text, delta only);
 * `full`: the other views (text coalesced at a bounded rate); `all`: everyone. Each audience has its own per-run
 * seq, gap-free in what that audience receives.
 */
export type Audience = "all" | "full" | "lite";

/**
 * One event as delivered to connections. `jsonFor(view)` is its payload as a connection with that text view
 * receives it (see `TextView`): each variant is built once, lazily, and shared by every connection of the view.
 * The variants derive from the payload (and `answered`, which a relay from another cluster node does not carry:
 * such a final keeps its text, which costs bytes, never text).
 */
export class BusEvent {
  private cached: string | undefined;
  private cachedLite: string | undefined;
  private cachedLean: string | undefined;
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
    /** A chat final whose text the run's `agent` answer also carries (see RunAddress.answered). */
    readonly answered = false,
  ) {}

  /**
   * The payload's JSON for a connection with `view`, or undefined when the event is not for that view.
   * `missedEvents`: the connection has skipped droppable events, so it cannot rebuild the text from deltas.
   */
  jsonFor(view: TextView, missedEvents: boolean): string | undefined {
    if (this.audience === (view === "deltas" ? "full" : "lite")) return undefined;
    if (this.event === "chat") {
      const p = this.payload as ChatEventPayload;
      if (p.state === "delta") return view === "chat" || view === "snapshots" ? this.json() : undefined;
      // The answer view's client reads the `agent` answer, which carries the reply, as did the deltas it got.
      if (p.state === "final" && view === "answer" && this.answered && !missedEvents) return this.jsonLean();
      return this.json();
    }
    if (view === "deltas") return this.jsonLite();
    return view === "snapshots" ? this.json() : this.jsonLean();
  }

  /** The payload as emitted (the `snapshots` view's). */
  json(): string {
    if (this.cached === undefined) this.cached = JSON.stringify(this.payload);
    return this.cached;
  }

  /**
   * For delta-only clients: their seq, and for assistant events the delta without the cumulative text, so their
   * traffic stays linear in the reply length. Chat events are the same for everyone.
   */
  private jsonLite(): string {
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

  /**
   * Without the reply's text copies the view does not read: an `assistant` event without its cumulative `text`
   * (the `answer` and `chat` views), a chat final without `message` (the `answer` view).
   */
  private jsonLean(): string {
    if (this.cachedLean === undefined) {
      if (this.event === "chat") {
        const { message: _whole, ...rest } = this.payload as ChatEventPayload;
        this.cachedLean = JSON.stringify(rest);
      } else {
        const p = this.payload as AgentEventPayload;
        if (p.stream !== "assistant" || p.data.text === undefined) this.cachedLean = this.json();
        else {
          const { text: _cumulative, ...data } = p.data;
          this.cachedLean = JSON.stringify({ ...p, data });
        }
      }
    }
    return this.cachedLean;
  }
}

export type BusListener = (event: BusEvent) => void;

/**
 * Whether a listener would read the cumulative copies of a session's reply text (the `assistant` events' `text`,
 * the chat deltas' `message`) if a run of that session sent them now. A run's event bridge asks before it joins
 * the text for them, so a run that no such reader follows never builds them. Asked per coalesced event, so the
 * answer may change mid-run (a client that connects then gets correct snapshots from its first event on).
 */
export type TextInterest = (sessionKey: string) => boolean;

/** For a listener that says nothing: it may read anything (a relay to other nodes, a test). */
const READS_EVERYTHING: TextInterest = () => true;

export class EventBus {
  /** Per run: the last seq of each audience. */
  private readonly seqByRun = new Map<string, { full: number; lite: number }>();
  private readonly listeners = new Map<BusListener, TextInterest>();

  /** `readsText`: when the listener reads the cumulative text (see TextInterest); unset, always. */
  subscribe(listener: BusListener, readsText: TextInterest = READS_EVERYTHING): () => void {
    this.listeners.set(listener, readsText);
    return () => this.listeners.delete(listener);
  }

  /** Whether any listener would read the cumulative text of `sessionKey`'s reply now (see TextInterest). */
  readsText(sessionKey: string): boolean {
    for (const reads of this.listeners.values()) if (reads(sessionKey)) return true;
    return false;
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

  /** Emits a `chat` event; `answered`: a final whose text the run's `agent` answer also carries. */
  emitChat(payload: ChatEventPayload, droppable = false, answered = false): void {
    this.dispatch(new BusEvent("chat", payload.sessionKey, payload, droppable, "all", payload.seq, answered));
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
    for (const l of this.listeners.keys()) {
      try {
        l(ev);
      } catch {
        // A broken listener (closed socket) must never stall a run.
      }
    }
  }
}
