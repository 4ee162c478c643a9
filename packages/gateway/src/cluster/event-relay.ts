/**
 * Cross-node event delivery. Choice: a table the subscriber's node tails (cluster_run_events), with NOTIFY
 * only as a wake-up naming the session (md5 of its key). Why not events in NOTIFY payloads: a payload is capped
 * at 8000 bytes (an assistant event with the cumulative text exceeds it), and notifications sent while a
 * listener is reconnecting are gone, which would leave holes in `seq`. From the table a subscriber reads
 * everything after its cursor, in order, after any outage; the cost is one insert per batch of events.
 */
import { lastEventId, readSessionEvents } from "./event-log.js";
import { keyHash } from "./hash.js";
import { CHANNEL_EVENTS, type ClusterListener } from "./listener.js";
import type { ClusterPool } from "./pool.js";
import type { ClusterRunEvent } from "./types.js";

interface Subscription {
  sessionKey: string;
  cursor: number;
  listener: (event: ClusterRunEvent) => void;
  /** A read is in flight; `again` asks for one more after it (a notification arrived meanwhile). */
  reading: boolean;
  again: boolean;
  closed: boolean;
}

export class EventRelay {
  private readonly byHash = new Map<string, Set<Subscription>>();
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly pool: ClusterPool,
    listener: ClusterListener,
    safetyPollMs: number,
    private readonly log: (line: string) => void = () => {},
  ) {
    listener.on(CHANNEL_EVENTS, (hash) => {
      for (const s of this.byHash.get(hash) ?? []) void this.pull(s);
    });
    listener.onReconnect(() => this.pullAll());
    // Notifications are hints; this catches any lost between a reconnect and its LISTEN.
    this.timer = setInterval(() => void this.sweep(), safetyPollMs);
    this.timer.unref();
  }

  /**
   * Delivers every event of `sessionKey` after `fromId` (default: from now on), in order, whichever node
   * executes the run. Returns the unsubscribe function.
   */
  async subscribe(
    sessionKey: string,
    listener: (event: ClusterRunEvent) => void,
    fromId?: number,
  ): Promise<() => void> {
    const cursor = fromId ?? (await lastEventId(this.pool, sessionKey));
    const sub: Subscription = { sessionKey, cursor, listener, reading: false, again: false, closed: false };
    const hash = keyHash(sessionKey);
    let set = this.byHash.get(hash);
    if (!set) {
      set = new Set();
      this.byHash.set(hash, set);
    }
    set.add(sub);
    void this.pull(sub);
    return () => {
      sub.closed = true;
      const s = this.byHash.get(hash);
      s?.delete(sub);
      if (s?.size === 0) this.byHash.delete(hash);
    };
  }

  /**
   * The safety poll: one statement finds the followed sessions with events past their cursors, and only those
   * are read, so following many quiet sessions costs one query per period, not one per session.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping || this.byHash.size === 0) return;
    this.sweeping = true;
    try {
      const subs = [...this.byHash.values()].flatMap((set) => [...set]);
      const keys = [...new Set(subs.map((s) => s.sessionKey))];
      const { rows } = await this.pool.query<{ session_key: string; id: string }>(
        `SELECT session_key, max(id) AS id FROM cluster_run_events WHERE session_key = ANY($1::text[])
         GROUP BY session_key`,
        [keys],
      );
      const newest = new Map(rows.map((r) => [r.session_key, Number(r.id)]));
      for (const s of subs) if ((newest.get(s.sessionKey) ?? 0) > s.cursor) void this.pull(s);
    } catch {
      // the next period tries again
    } finally {
      this.sweeping = false;
    }
  }

  private pullAll(): void {
    for (const set of this.byHash.values()) for (const s of set) void this.pull(s);
  }

  private async pull(sub: Subscription): Promise<void> {
    if (sub.reading) {
      sub.again = true;
      return;
    }
    sub.reading = true;
    try {
      do {
        sub.again = false;
        const events = await readSessionEvents(this.pool, sub.sessionKey, sub.cursor);
        for (const e of events) {
          if (sub.closed) return;
          sub.cursor = e.id;
          sub.listener(e);
        }
        if (events.length === 1000) sub.again = true;
      } while (sub.again && !sub.closed);
    } catch (err) {
      this.log(`[cluster] event tail of ${sub.sessionKey} failed: ${(err as Error).message}; retrying on next wake-up`);
    } finally {
      sub.reading = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const set of this.byHash.values()) for (const s of set) s.closed = true;
    this.byHash.clear();
  }
}
