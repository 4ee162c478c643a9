/**
 * A subscription index that also says when a session gains its first or loses its last subscribed connection
 * on this process: a cluster node starts and stops tailing that session's events from the shared log there.
 */
import { type Subscriber, SubscriptionIndex } from "./subscriptions.js";

export class InterestIndex<C extends Subscriber> extends SubscriptionIndex<C> {
  private readonly interested = new Map<string, Set<C>>();

  constructor(private readonly onInterest: (sessionKey: string, watching: boolean) => void) {
    super();
  }

  override add(sessionKey: string, conn: C): void {
    super.add(sessionKey, conn);
    let set = this.interested.get(sessionKey);
    if (!set) {
      set = new Set();
      this.interested.set(sessionKey, set);
    }
    if (set.has(conn)) return;
    set.add(conn);
    if (set.size === 1) this.onInterest(sessionKey, true);
  }

  override remove(conn: C, sessionKeys: Iterable<string>, all = true): void {
    const keys = [...sessionKeys];
    super.remove(conn, keys, all);
    for (const key of keys) {
      const set = this.interested.get(key);
      if (!set?.delete(conn)) continue;
      if (set.size === 0) {
        this.interested.delete(key);
        this.onInterest(key, false);
      }
    }
  }
}
