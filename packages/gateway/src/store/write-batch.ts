/**
 * Index writes of one event-loop turn, committed in one SQLite transaction. Runs that end together (a burst of
 * sessions finishing in the same turn) would otherwise commit one transaction each — the WAL append, the lock
 * and the statement work all in that turn, in front of every other session's deltas. Queued writes are
 * committed at the turn's end (setImmediate), before any read of the store (`flush()`, so readers in this process
 * always see them) and when the store closes (a stop by signal loses none). What a crash (SIGKILL, power loss)
 * can lose is the writes of the turn in flight, as before it could lose the write in flight.
 */
import type Database from "better-sqlite3";

export class WriteBatch {
  private queued: (() => void)[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly commit: (writes: (() => void)[]) => void;

  constructor(
    private readonly db: Database.Database,
    /** Told of a write that failed (the others of its turn are still committed). */
    private readonly onError: (err: unknown) => void,
    /** Told after each commit. */
    private readonly onCommit: () => void = () => {},
  ) {
    this.commit = db.transaction((writes: (() => void)[]) => {
      for (const write of writes) {
        try {
          write();
        } catch (err) {
          // One bad write (a constraint, a row deleted meanwhile) must not undo the turn's other writes.
          this.onError(err);
        }
      }
    });
  }

  /** Queues `write` (statement runs only, no reads) for the end of this turn. */
  add(write: () => void): void {
    this.queued.push(write);
    if (!this.scheduled) {
      this.scheduled = setImmediate(() => this.flush());
      // A queued write never keeps the process alive on its own; close() commits it.
      this.scheduled.unref();
    }
  }

  /** Commits what is queued now (a no-op when nothing is). */
  flush(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    if (this.queued.length === 0 || !this.db.open) return;
    const writes = this.queued;
    this.queued = [];
    this.commit(writes);
    this.onCommit();
  }
}
