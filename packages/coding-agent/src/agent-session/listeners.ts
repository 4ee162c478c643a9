/** Delivering session events to the session's listeners (AgentSession's `subscribe`). */
import {
  type AgentSessionEventListener,
  isTillerOnlyEvent,
  type TillerSessionEvent,
  type TillerSessionEventListener,
} from "./events.js";

/** A subscribed listener; `tillerEvents`: it asked for Tiller's additions too (events.ts). */
interface SessionListener {
  fn: TillerSessionEventListener;
  tillerEvents: boolean;
}

/** A session's listeners, in subscription order. */
export class SessionListeners {
  // Replaced on change, never edited: an emit in progress keeps iterating the list it started with.
  private list: readonly SessionListener[] = [];

  /** Adds `listener` (pi's events only unless `tillerEvents`); returns the unsubscribe function. */
  add(listener: AgentSessionEventListener | TillerSessionEventListener, tillerEvents: boolean): () => void {
    // A pi listener is kept as taking every event: `emit` hands it pi's events only.
    const entry: SessionListener = { fn: listener as TillerSessionEventListener, tillerEvents };
    this.list = [...this.list, entry];
    return () => {
      this.list = this.list.filter((l) => l !== entry);
    };
  }

  clear(): void {
    this.list = [];
  }

  /**
   * Calls each listener with `event`; an event Tiller adds to pi's union goes only to the listeners that asked
   * for those. A listener that throws is logged and the others still run. Returns the promise of the async
   * listeners, undefined when none is async.
   */
  emit(event: TillerSessionEvent): Promise<void> | undefined {
    const tillerOnly = isTillerOnlyEvent(event);
    let pending: Promise<unknown>[] | undefined;
    for (const l of this.list) {
      if (tillerOnly && !l.tillerEvents) continue;
      try {
        const r = l.fn(event);
        if (r && typeof (r as Promise<void>).then === "function") (pending ??= []).push(r as Promise<void>);
      } catch (err) {
        console.error(`[tiller] a session listener failed on ${event.type}:`, err);
      }
    }
    return pending ? Promise.all(pending).then(() => undefined) : undefined;
  }
}

/**
 * `pending` as a promise that never rejects: a listener's failure is logged, as a synchronous throw is. What
 * `steer`, `followUp` and `setModel` return, so a caller that does not await them leaves nothing unhandled.
 */
export function settled(pending: Promise<unknown> | undefined, what: string): Promise<void> {
  if (!pending) return Promise.resolve();
  return pending.then(
    () => undefined,
    (err: unknown) => console.error(`[tiller] a session listener failed on ${what}:`, err),
  );
}
