/**
 * Reading what the model sees at a session's leaf from the END of the file, newest first, without reading the
 * rest: a history page (`chat.history`) then costs the bytes of its own entries, not the transcript's length.
 *
 * Why a backward walk and not an index of entry offsets: entries are only ever appended, and every entry's parent
 * was written before it, so the branch at the leaf (the last entry of the file) is found by reading backwards and
 * keeping each line whose id is the wanted parent. That needs no state between calls, no pass over the whole file
 * on the first request after a start, and no memory per session; a `BranchPosition` (line offset + wanted parent
 * id) resumes the walk exactly where a page stopped. Lines of abandoned branches are skipped by a byte search for
 * the wanted id, without decoding or parsing them.
 *
 * Same rules as `contextOfPath` (path-context.ts): behind the latest compaction on the branch only its kept
 * entries (from `firstKeptEntryId`) are context; a malformed line is skipped (a torn last line is what a crash
 * mid-append leaves), and so is a line that is not a session entry. A page's cost includes the lines of abandoned
 * branches it walks past (byte-searched only). Files older than format v3 (v1 has no ids, v2 roles that the
 * migration renames) are not walked: `SessionTail.canWalk` says so, and the caller reads those whole. A corrupt
 * file whose parent follows its child, or repeats an id, can read differently from the whole-file context.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import { entryMessage } from "./path-context.js";
import { SessionFileError } from "./reader.js";
import { linesBackward, type ReadAt, type TailLine } from "./tail-lines.js";
import type { BranchPosition, BranchStep, CompactionEntry, SessionEntry, SessionHeader } from "./types.js";

const NEWLINE = 10;

/** Bytes read and lines parsed by every `SessionTail` of this process (for tests and benchmarks). */
export const sessionTailStats = { bytesRead: 0, linesParsed: 0 };

/** Thrown by `SessionTail.walk` for a position that is not a line start of this file (another or a shorter file). */
export class BranchPositionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BranchPositionError";
  }
}

/** One open session file, read from its end. Close it when done. */
export class SessionTail {
  readonly header: SessionHeader;
  /** File size when opened: what the walks see (later appends are not). */
  readonly size: number;
  private constructor(
    private readonly fd: number,
    readonly path: string,
  ) {
    this.size = fstatSync(fd).size;
    this.header = this.readHeader();
  }

  /** Opens `path`; throws `SessionFileError` when it is not a session file and the fs error when unreadable. */
  static open(path: string): SessionTail {
    const fd = openSync(path, "r");
    try {
      return new SessionTail(fd, path);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** False for files older than format v3: read those whole (`readSessionFile` migrates them). */
  get canWalk(): boolean {
    return (this.header.version ?? 1) >= 3;
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * Calls `visit` with each context message of the branch at the leaf, newest first, starting after `from` (a
   * `step.resume` of an earlier walk of this file) or at the leaf. `visit` returns false to stop. Returns true
   * when the walk reached the start of the context (nothing older is left), false when `visit` stopped it.
   */
  walk(from: BranchPosition | undefined, visit: (step: BranchStep) => boolean): boolean {
    if (from && !this.isLineStart(from.offset))
      throw new BranchPositionError(`offset ${from.offset} is not a line start of ${this.path} (${this.size} bytes)`);
    let keptFrom = from?.keptFrom;
    // Without a position the walk starts at the leaf: the last entry of the file.
    for (const found of this.branch(from ? from.offset : this.size, from ? from.nextId : undefined)) {
      const e = found.entry;
      if (keptFrom === undefined && e.type === "compaction") {
        // The latest compaction on the branch: older entries are context only from its first kept entry on,
        // and only when that entry is on the branch (else nothing older is).
        const c = e as CompactionEntry;
        if (!this.onBranch(found.start, e.parentId, c.firstKeptEntryId)) return true;
        keptFrom = c.firstKeptEntryId;
        continue;
      }
      const last = keptFrom !== undefined && e.id === keptFrom;
      const message = entryMessage(e);
      if (message) {
        const resume: BranchPosition = {
          offset: found.start,
          nextId: last ? null : e.parentId,
          ...(keptFrom !== undefined ? { keptFrom } : {}),
        };
        if (!visit({ entry: e, message: message as AgentMessage, resume })) return false;
      }
      if (last) return true;
    }
    return true;
  }

  /** Whether `id` is on the branch that continues before `offset` with the entry `nextId`. */
  private onBranch(offset: number, nextId: string | null, id: string): boolean {
    for (const found of this.branch(offset, nextId)) if (found.entry.id === id) return true;
    return false;
  }

  /**
   * The entries of the branch, newest first: `nextId`, its parent, … found in the lines before `offset`;
   * `nextId` undefined: starting with the last entry there (the leaf).
   */
  private *branch(
    offset: number,
    nextId: string | null | undefined,
  ): Generator<{ entry: SessionEntry; start: number }> {
    let want = nextId;
    if (want === null) return;
    for (const line of linesBackward(this.readAt, offset)) {
      if (line.bytes.length === 0) continue;
      // A byte search first: lines of other branches are never decoded.
      if (want !== undefined && line.bytes.indexOf(want) < 0) continue;
      const entry = this.parse(line);
      if (!entry || typeof entry.id !== "string" || (want !== undefined && entry.id !== want)) continue;
      yield { entry, start: line.start };
      want = entry.parentId;
      if (want === null) return;
    }
  }

  private parse(line: TailLine): SessionEntry | undefined {
    sessionTailStats.linesParsed++;
    let v: unknown;
    try {
      v = JSON.parse(line.bytes.toString("utf8"));
    } catch {
      return undefined; // malformed or torn
    }
    if (v === null || typeof v !== "object") return undefined;
    const e = v as { type?: unknown; id?: unknown };
    if (typeof e.type !== "string" || e.type === "session" || line.start === 0) return undefined;
    return v as SessionEntry;
  }

  private isLineStart(offset: number): boolean {
    if (!Number.isInteger(offset) || offset <= 0 || offset > this.size) return false;
    const one = Buffer.alloc(1);
    return this.read(one, 0, 1, offset - 1) === 1 && one[0] === NEWLINE;
  }

  private readHeader(): SessionHeader {
    let buf = Buffer.allocUnsafe(Math.min(4096, Math.max(this.size, 1)));
    let filled = 0;
    for (;;) {
      const n = this.read(buf, filled, Math.min(buf.length - filled, this.size - filled), filled);
      filled += n;
      const nl = buf.subarray(0, filled).indexOf(NEWLINE);
      if (nl >= 0 || filled >= this.size || n === 0) {
        const text = buf.toString("utf8", 0, nl >= 0 ? nl : filled);
        let v: SessionHeader | undefined;
        try {
          v = JSON.parse(text) as SessionHeader;
        } catch {
          v = undefined;
        }
        if (!v || typeof v !== "object" || v.type !== "session" || typeof v.id !== "string")
          throw new SessionFileError(`${this.path}: not a session file (line 1 is not a session header)`, this.path);
        return v;
      }
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
    }
  }

  private readonly readAt: ReadAt = (buf, at, len, position) => this.read(buf, at, len, position);

  private read(buf: Buffer, at: number, len: number, position: number): number {
    if (len <= 0) return 0;
    const n = readSync(this.fd, buf, at, len, position);
    sessionTailStats.bytesRead += n;
    return n;
  }
}
