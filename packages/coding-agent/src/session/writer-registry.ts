/**
 * One writer per session file per process. Every writing `SessionManager` of a file shares its writer: the first
 * holder takes the cross-process lock (`lock.ts`) and, at its first append, the one append-mode descriptor; later
 * holders only count a reference. So `create(f)` then `open(f)` in one process never fails with the process's
 * own lock, and appends from all holders are whole lines in one order (each is one `write` on the shared
 * descriptor, on the single JS thread). The descriptor is fsynced and closed, and the lock released, when the
 * last holder releases. Read-only opens never come here.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { acquireSessionLock, releaseSessionLock } from "./lock.js";
import type { SessionWriterHandle } from "./types.js";

class SharedWriter {
  refs = 0;
  everShared = false;
  fd: number | undefined;

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
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
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
      if (!released && writer.fd !== undefined) fsyncSync(writer.fd);
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
