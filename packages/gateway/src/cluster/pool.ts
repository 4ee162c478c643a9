/**
 * The cluster's connection pool: node-postgres `Pool` plus retries. Every query and transaction is retried on
 * transient errors (server restarting, connection cut) for up to `retryForMs`, so a PostgreSQL that is away for
 * a few seconds makes callers wait, not fail. Transactions are retried whole, so their bodies must be safe to
 * run twice (the cluster's are: inserts use ON CONFLICT, updates check the state they move from). An error on
 * an idle pooled connection (the server went away) is logged, never thrown into the event loop.
 */
import pg from "pg";
import { isTransientPgError, retryDelayMs, sleep } from "./transient-errors.js";

/** What the cluster's statements need: a pooled client inside a transaction, or the retrying pool itself. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface ClusterPoolOptions {
  url: string;
  /** Connections of this pool (default 10). */
  max?: number;
  retryForMs?: number;
  log?: (line: string) => void;
  /** A query with no answer after this long fails (default 15 s; the cluster's statements take milliseconds). */
  queryTimeoutMs?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
}

const ignore = (): void => {};

/**
 * A client that always hears its own 'error' event. pg emits one when the server cuts a connection (a restart's
 * 57P01) even between queries; without a listener at that moment the process would crash. The failure still
 * rejects the queries in flight and marks the client unusable, so the pool drops it and the retry reconnects.
 */
class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", ignore);
  }
}

export class ClusterPool {
  private readonly pool: pg.Pool;
  private readonly retryForMs: number;
  private readonly log: (line: string) => void;
  private closed = false;

  constructor(readonly options: ClusterPoolOptions) {
    this.retryForMs = options.retryForMs ?? 30_000;
    this.log = options.log ?? (() => {});
    this.pool = new pg.Pool({
      Client: GuardedClient,
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      // A silent network partition must end a query with an error (then retried), never hang it forever.
      query_timeout: options.queryTimeoutMs ?? 15_000,
      keepAlive: true,
      application_name: options.applicationName ?? "tiller-gateway",
    });
    this.pool.on("error", (err) => this.log(`[cluster] idle connection lost: ${err.message}`));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** One statement, retried on transient errors. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return this.retry(() => this.pool.query<R>(text, values));
  }

  /**
   * One statement, not retried, failing after `timeoutMs` without an answer (heartbeats: a late success is
   * worth less than knowing it failed, and a stalled one must not hold up the next).
   */
  async queryOnce<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[],
    timeoutMs: number,
  ): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>({ text, values, query_timeout: timeoutMs } as pg.QueryConfig);
  }

  /** `fn` inside BEGIN … COMMIT on one connection; rolled back on error, retried whole on transient errors. */
  async tx<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    return this.retry(async () => {
      const client = await this.pool.connect();
      // A checked-out client whose connection dies emits 'error'; unheard, that would crash the process. The
      // failure also rejects the query in flight (or the next one), which is what the retry acts on.
      client.on("error", ignore);
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const value = await fn(client);
        await client.query("COMMIT");
        return value;
      } catch (err) {
        broken = err as Error;
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.off("error", ignore);
        // A connection that failed mid-transaction may be dead: destroy it rather than hand it out again.
        client.release(broken && isTransientPgError(broken) ? broken : undefined);
      }
    });
  }

  /**
   * A dedicated connection (advisory session locks); connecting is retried. The caller must `release` it
   * through the function returned with it, which also removes the error guard.
   */
  async connect(): Promise<{ client: pg.PoolClient; release: (err?: Error) => void }> {
    const client = await this.retry(() => this.pool.connect());
    client.on("error", ignore);
    return {
      client,
      release: (err) => {
        client.off("error", ignore);
        client.release(err);
      },
    };
  }

  private async retry<T>(op: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryForMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (this.closed || !isTransientPgError(err) || Date.now() >= deadline) throw err;
        if (attempt === 0) this.log(`[cluster] database unavailable (${(err as Error).message}); retrying`);
        await sleep(retryDelayMs(attempt));
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
