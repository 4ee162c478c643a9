/**
 * Reply deltas for the open HTTP streams: one bus listener for the whole API, and listeners indexed by session,
 * so each run event costs a map lookup plus its own session's streams, not a call per open stream.
 */
import type { AgentEventPayload, BusEvent, EventBus } from "../run/event-bus.js";

/** Gets an `assistant` event of a session: its run id and text delta. */
export type DeltaListener = (runId: string, delta: string) => void;

const NO_TEXT = (): boolean => false;

export class DeltaFanout {
  private readonly bySession = new Map<string, Set<DeltaListener>>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly bus: EventBus) {}

  /** Follows the `assistant` deltas of `sessionKey`; returns the unsubscribe. */
  listen(sessionKey: string, listener: DeltaListener): () => void {
    // The HTTP streams read only the deltas: they never make a run build the cumulative text.
    if (!this.unsubscribe) this.unsubscribe = this.bus.subscribe((ev) => this.dispatch(ev), NO_TEXT);
    let set = this.bySession.get(sessionKey);
    if (!set) {
      set = new Set();
      this.bySession.set(sessionKey, set);
    }
    set.add(listener);
    return () => {
      const s = this.bySession.get(sessionKey);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.bySession.delete(sessionKey);
    };
  }

  private dispatch(ev: BusEvent): void {
    // Every burst of text reaches the `lite` audience once; `full` events re-send it coalesced for reference clients.
    if (ev.event !== "agent" || ev.audience === "full") return;
    const set = this.bySession.get(ev.sessionKey);
    if (!set) return;
    const p = ev.payload as AgentEventPayload;
    if (p.stream !== "assistant") return;
    const delta = p.data.delta;
    if (typeof delta !== "string" || !delta) return;
    for (const l of set) l(p.runId, delta);
  }
}
