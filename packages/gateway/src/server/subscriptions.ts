/**
 * Which connections receive the events of which session: an index by session key, so fan-out costs the
 * number of interested connections, not the number of connections.
 */
import type { BusEvent } from "../run/event-bus.js";

export interface Subscriber {
  sendEvent(ev: BusEvent): void;
  /** It reads the cumulative copies of a reply's text (see `viewReadsText`). */
  readonly readsText: boolean;
}

export class SubscriptionIndex<C extends Subscriber> {
  private readonly bySession = new Map<string, Set<C>>();
  private readonly everything = new Set<C>();

  add(sessionKey: string, conn: C): void {
    let set = this.bySession.get(sessionKey);
    if (!set) {
      set = new Set();
      this.bySession.set(sessionKey, set);
    }
    set.add(conn);
  }

  addAll(conn: C): void {
    this.everything.add(conn);
  }

  /** Removes a connection from the given sessions (and, unless `all` is false, from "every session"). */
  remove(conn: C, sessionKeys: Iterable<string>, all = true): void {
    if (all) this.everything.delete(conn);
    for (const key of sessionKeys) {
      const set = this.bySession.get(key);
      if (!set) continue;
      set.delete(conn);
      if (set.size === 0) this.bySession.delete(key);
    }
  }

  /** Whether a connection that follows `sessionKey` reads the cumulative text (the bus's TextInterest). */
  readsText(sessionKey: string): boolean {
    for (const c of this.everything) if (c.readsText) return true;
    const set = this.bySession.get(sessionKey);
    if (set) for (const c of set) if (c.readsText) return true;
    return false;
  }

  deliver(ev: BusEvent): void {
    const set = this.bySession.get(ev.sessionKey);
    if (set) for (const c of set) if (!this.everything.has(c)) c.sendEvent(ev);
    for (const c of this.everything) c.sendEvent(ev);
  }
}
