/**
 * One writer per session file per process. Every writing `SessionManager` of a file shares its writer: the first
 * holder takes the cross-process lock (`lock.ts`) and, at its first append, the one append-mode descriptor; later
 * holders only count a reference. So `create(f)` then `open(f)` in one process never fails with the process's
 * own lock, and appends from all holders are whole lines in one order (each is one `write` on the shared
 * descriptor, on the single JS thread). `sync()` (each turn end) fsyncs on libuv's thread pool, so one session's
 * durability work never blocks the event loop every other session streams on; the data is already written (in
 * the OS), the fsync only makes it survive a power loss. When the last holder releases, what was written since
 * the last sync is fsynced there and then, the descriptor is closed once no fsync is in flight on it, and the lock
 * is released. Read-only opens never come here.
 */
import { closeSync, fstatSync, fsync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { acquireSessionLock, releaseSessionLock } from "./lock.js";
import type { SessionWriterHandle } from "./types.js";

class SharedWriter {
  refs = 0;
  everShared = false;
  fd: number | undefined;
  /** Written since the last fsync was started. */
  private dirty = false;
  /** fsyncs in flight on the thread pool; the descriptor stays open until they are done. */
  private syncing = 0;
  private closeWhenSynced: number | undefined;

  constructor(readonly file: string) {}

  append(text: string, header: () => string): void {
    let out = text;
    if (this.fd === undefined) {
      // "a+": appends always go to the end; reading is only for the last byte (a torn line to fence off).
      const fd = openSync(this.file, "a+", 0o600);
      try {
        const size = fstatSync(fd).size;
        if (size === 0) out = `${header()}${out}`;
        else if (!endsWithNewline(fd, size)) out = `\n${out}`;
      } catch (err) {
        closeSync(fd);
        throw err;
      }
      this.fd = fd;
    }
    writeSync(this.fd, out);
    this.dirty = true;
  }

  /** Starts an fsync of what was written so far, off the event loop (a no-op when nothing new was written). */
  sync(): void {
    const fd = this.fd;
    if (fd === undefined || !this.dirty) return;
    this.dirty = false;
    this.syncing++;
    fsync(fd, (err) => {
      this.syncing--;
      // A failed fsync leaves the data unsynced: the close fsyncs again (and reports the error there).
      if (err && this.fd === fd) this.dirty = true;
      if (this.syncing === 0 && this.closeWhenSynced === fd) {
        this.closeWhenSynced = undefined;
        try {
          closeSync(fd);
        } catch {
          // Nothing to report it to: the data is written and was just synced.
        }
      }
    });
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      // Usually a no-op: the turn end already started the fsync of everything written.
      if (this.dirty) fsyncSync(fd);
      this.dirty = false;
    } finally {
      if (this.syncing > 0) this.closeWhenSynced = fd;
      else closeSync(fd);
    }
  }
}

function endsWithNewline(fd: number, size: number): boolean {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, size - 1) === 1 && one[0] === 0x0a;
}

const writers = new Map<string, SharedWriter>();

/**
 * A share of `file`'s writer: the existing one of this process, or a new one (taking the file's lock, which throws
 * `SessionLockedError` when another live process holds it).
 */
export function acquireSessionWriter(path: string): SessionWriterHandle {
  const file = resolve(path);
  let w = writers.get(file);
  if (w) w.everShared = true;
  else {
    acquireSessionLock(file);
    w = new SharedWriter(file);
    writers.set(file, w);
  }
  w.refs++;
  const writer = w;
  let released = false;
  return {
    file,
    get holders() {
      return released ? 0 : writer.refs;
    },
    get shared() {
      return writer.everShared;
    },
    append(text, header) {
      if (released) throw new Error(`session writer of ${file} was released`);
      writer.append(text, header);
    },
    sync() {
      if (!released) writer.sync();
    },
    stat() {
      return !released && writer.fd !== undefined ? fstatSync(writer.fd) : undefined;
    },
    release() {
      if (released) return;
      released = true;
      writer.refs--;
      if (writer.refs > 0) return;
      writers.delete(file);
      try {
        writer.close();
      } finally {
        releaseSessionLock(file);
      }
    },
  };
}

/** Session files this process has open for writing (each counted once, however many holders share it). */
export function openSessionWriterCount(): number {
  return writers.size;
}

/** The session files this process has open for writing, with their holder counts (for diagnostics). */
export function openSessionWriters(): { file: string; holders: number }[] {
  return [...writers.values()].map((w) => ({ file: w.file, holders: w.refs }));
}
