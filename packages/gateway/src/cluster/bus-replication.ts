/**
 * A run's events as clients on every node see them. The executing node's event bus assigns the seqs (gap-free
 * per run and audience, as on a single node) and each bus event is written, unchanged, to the cluster's event
 * log (stream `bus`); a node whose clients follow the session tails the log (EventRelay) and hands the same
 * events to its own connections. So a client sees the same run, the same seqs, whichever node it talks to. A
 * run ended by the reaper (its node died) gets one last lifecycle event, numbered after the last one relayed.
 */
import type { AgentEventPayload, ChatEventPayload } from "../protocol/schema/events.js";
import { type Audience, BusEvent, type BusListener, EventBus, type TextInterest } from "../run/event-bus.js";
import type { ClusterRunEvent } from "./types.js";

/** The cluster event stream carrying bus events. */
export const BUS_STREAM = "bus";

/** One bus event as stored in cluster_run_events.data. */
export interface ReplicatedBusEvent {
  /** The node that executed the run (its own clients got the event from its bus). */
  n: string;
  e: "agent" | "chat";
  p: AgentEventPayload | ChatEventPayload;
  d: boolean;
  a: Audience;
  l: number;
}

export function encodeBusEvent(nodeId: string, ev: BusEvent): ReplicatedBusEvent {
  return { n: nodeId, e: ev.event, p: ev.payload, d: ev.droppable, a: ev.audience, l: ev.liteSeq };
}

/** An event bus that can also deliver events that were emitted on another node. */
export class ForwardingBus extends EventBus {
  private readonly forwardTo = new Set<BusListener>();

  override subscribe(listener: BusListener, readsText?: TextInterest): () => void {
    this.forwardTo.add(listener);
    const off = super.subscribe(listener, readsText);
    return () => {
      this.forwardTo.delete(listener);
      off();
    };
  }

  /** Delivers an event of a run executing elsewhere to this node's listeners (its connections). */
  forward(ev: BusEvent): void {
    for (const l of this.forwardTo) {
      try {
        l(ev);
      } catch {
        // as EventBus: a broken listener never stalls the relay
      }
    }
  }
}

/** Turns tailed cluster events into bus events for this node's connections. */
export class BusReplayer {
  /** Per remote run: the last seq of each audience relayed here (for the reaper's final event). */
  private readonly seqs = new Map<string, { full: number; lite: number }>();

  constructor(
    private readonly nodeId: string,
    private readonly bus: ForwardingBus,
  ) {}

  handle(e: ClusterRunEvent): void {
    if (e.stream === BUS_STREAM) {
      const r = e.data as ReplicatedBusEvent;
      if (r.n === this.nodeId) return; // this node's clients had it from the bus itself
      if (r.e === "agent") {
        const s = this.seqs.get(e.runId) ?? { full: 0, lite: 0 };
        if (r.a !== "lite") s.full = (r.p as AgentEventPayload).seq;
        if (r.a !== "full") s.lite = r.l;
        this.seqs.set(e.runId, s);
        const p = r.p as AgentEventPayload;
        if (p.stream === "lifecycle" && (p.data.phase === "end" || p.data.phase === "error")) this.seqs.delete(e.runId);
      }
      this.bus.forward(new BusEvent(r.e, e.sessionKey, r.p, r.d, r.a, r.l));
      return;
    }
    const data = e.data as { interrupted?: boolean; error?: string } | null;
    if (e.stream === "lifecycle" && data?.interrupted) {
      const s = this.seqs.get(e.runId) ?? { full: 0, lite: 0 };
      this.seqs.delete(e.runId);
      const payload: AgentEventPayload = {
        runId: e.runId,
        seq: s.full + 1,
        stream: "lifecycle",
        ts: e.ts,
        data: { phase: "error", interrupted: true, error: data.error ?? "interrupted" },
        sessionKey: e.sessionKey,
      };
      this.bus.forward(new BusEvent("agent", e.sessionKey, payload, false, "all", s.lite + 1));
    }
  }
}
