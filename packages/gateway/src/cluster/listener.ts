/**
 * One LISTEN connection per node. Notifications are only wake-up hints (the data is always read from tables),
 * because PostgreSQL drops them for a listener that is disconnected: after every reconnect `onReconnect`
 * handlers run so each consumer catches up from its own cursor. The connection is re-opened with backoff for as
 * long as the node runs.
 */
import pg from "pg";
import { retryDelayMs, sleep } from "./transient-errors.js";

export type NotifyHandler = (payload: string) => void;

export class ClusterListener {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<NotifyHandler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private closed = false;
  private connecting: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Connects and LISTENs on every channel that has a handler. Resolves once listening. */
  start(): Promise<void> {
    this.connecting ??= this.connectLoop().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  on(channel: string, handler: NotifyHandler): void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      this.client?.query(`LISTEN ${channel}`).catch(() => {}); // a failure reconnects, which LISTENs again
    }
    set.add(handler);
  }

  /** Runs after each reconnect (not the first connect): notifications may have been missed meanwhile. */
  onReconnect(handler: () => void): void {
    this.reconnectHandlers.add(handler);
  }

  private async connectLoop(): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      const client = new pg.Client({ connectionString: this.url, application_name: "tiller-gateway-listen" });
      try {
        client.on("error", () => {}); // 'end' follows and reconnects
        await client.connect();
        for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
        client.on("notification", (n) => {
          for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? "");
        });
        client.on("end", () => {
          if (this.client === client) this.client = undefined;
          if (!this.closed) void this.start().then(() => this.fireReconnect());
        });
        if (this.closed) {
          await client.end().catch(() => {});
          return;
        }
        this.client = client;
        return;
      } catch (err) {
        await client.end().catch(() => {});
        if (attempt === 0) this.log(`[cluster] listener cannot connect (${(err as Error).message}); retrying`);
        await sleep(retryDelayMs(attempt));
      }
    }
  }

  private fireReconnect(): void {
    for (const h of this.reconnectHandlers) h();
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}

/** Notification channels; payloads are md5 hex of a key, so they stay far below NOTIFY's 8000-byte cap. */
export const CHANNEL_QUEUED = "tiller_run_queued";
export const CHANNEL_ENDED = "tiller_run_ended";
export const CHANNEL_CONTROL = "tiller_run_control";
export const CHANNEL_EVENTS = "tiller_run_events";
/** Payload `change` (an approval changed state) or `presence` (a node's approver presence changed). */
export const CHANNEL_APPROVALS = "tiller_approvals";
