/**
 * Checkpoints of the session index's write-ahead log, off the event loop. With `synchronous = NORMAL` a WAL commit
 * only appends to the log; the fsyncs happen at checkpoints, which SQLite would otherwise run inside whichever
 * commit crosses 1,000 WAL pages: on the event loop, stalling every session's deltas for the time a few MB take to
 * reach the disk. Here the connection's automatic checkpoints are off and a worker thread, with its own
 * connection to the same file, runs PASSIVE checkpoints (they never block the gateway's reads or writes): after a
 * commit, at most one in flight and one per CHECKPOINT_INTERVAL_MS. The worker starts at the first checkpoint (a short-lived store — a CLI reading the index
 * — never starts one) and never keeps the process alive. If the worker fails, the index goes back to SQLite's
 * own automatic checkpoints.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** Least time between two checkpoints: a busy gateway's log grows by at most what it commits in this time. */
export const CHECKPOINT_INTERVAL_MS = 1000;
/** SQLite's own automatic checkpoint (WAL pages), restored if the worker fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

// CommonJS (an eval worker); the driver's path comes from the gateway's own resolution.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
parentPort.on("message", () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage("done");
  } catch (err) {
    parentPort.postMessage("failed: " + String(err));
  }
});
`;

export class WalCheckpointer {
  private worker: Worker | undefined;
  private lastAt = 0;
  private inFlight = false;
  private failed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly onError: (err: unknown) => void,
  ) {
    db.pragma("wal_autocheckpoint = 0");
    // The first checkpoint comes an interval after the store opened: a short-lived store never starts the worker.
    this.lastAt = Date.now();
  }

  /** Told after each commit: asks the worker for a checkpoint when none is in flight and the interval has passed. */
  committed(): void {
    if (this.failed || this.inFlight) return;
    const now = Date.now();
    if (now - this.lastAt < CHECKPOINT_INTERVAL_MS) return;
    this.lastAt = now;
    this.inFlight = true;
    try {
      this.start().postMessage("checkpoint");
    } catch (err) {
      this.fail(err);
    }
  }

  /** Stops the worker; the connection's own close (the last one) checkpoints what is left. */
  close(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const w = new Worker(WORKER, { eval: true, workerData: { driver, file: this.file } });
    w.unref();
    w.on("message", (m: string) => {
      this.inFlight = false;
      if (m !== "done") this.fail(new Error(m));
    });
    w.on("error", (err) => this.fail(err));
    this.worker = w;
    return w;
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.onError(err);
    this.close();
    // SQLite checkpoints on its own again (in the committing call, as without this class).
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  }
}
