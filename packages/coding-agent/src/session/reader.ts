/**
 * Streaming reader for session files. The file is read in chunks, each chunk is decoded once and split on
 * newlines, and each line is parsed once — memory stays at one chunk plus the parsed entries, and the cost is
 * one pass at about the speed of `JSON.parse`. A malformed line is skipped with a warning (a torn last line is
 * what a crash mid-write leaves). Parsed files are cached by (path, inode, size, mtime): reopening an unchanged
 * file costs a `stat`, and a file that only grew is parsed from where the cache stopped.
 */
import { closeSync, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import type { FileEntry, SessionEntry, SessionHeader } from "./types.js";

/** Result of reading a session file. `entries` excludes the header. */
export interface ParsedSessionFile {
  header: SessionHeader;
  entries: SessionEntry[];
  warnings: string[];
  /** Bytes covered by complete lines (the offset an incremental read resumes from). */
  parsedBytes: number;
  /** False when the file ends without a newline (a torn or unterminated last line): the next append starts one. */
  endsWithNewline: boolean;
}

/** Thrown when a file is not a session file at all (empty, or line 1 is not a header). */
export class SessionFileError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "SessionFileError";
  }
}

// Small chunks: a chunk decodes to a string that dies young. Multi-megabyte chunk strings land in V8's large-object
// space, and 100 MB of them bring on old-generation collections that mark every entry parsed so far (about 20%
// more CPU on a 100 MB session). A line longer than a chunk grows the buffer.
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 10;

/** Called with each run of entries a read adds to `list` (`list[from]` to `list[to - 1]`), in order. */
export type OnEntries = (list: readonly SessionEntry[], from: number, to: number) => void;

interface ParseState {
  header: SessionHeader | undefined;
  entries: SessionEntry[];
  warnings: string[];
  lineNo: number;
}

/** What a line that is not a plain entry line means: an empty line, the header, a bad or torn line. */
function parseOtherLine(state: ParseState, line: string, path: string, torn: boolean): void {
  if (line.length === 0 || (line.length < 8 && line.trim().length === 0)) return;
  let value: FileEntry;
  try {
    value = JSON.parse(line) as FileEntry;
  } catch {
    state.warnings.push(
      torn
        ? `${path}: skipped a torn last line (${line.length} chars, no newline): the write was interrupted`
        : `${path}: skipped malformed line ${state.lineNo}`,
    );
    return;
  }
  if (state.header === undefined && state.entries.length === 0) {
    if (value === null || typeof value !== "object" || value.type !== "session" || typeof value.id !== "string")
      throw new SessionFileError(`${path}: not a session file (line 1 is not a session header)`, path);
    state.header = value;
    return;
  }
  if (value === null || typeof value !== "object" || typeof value.type !== "string" || value.type === "session") {
    state.warnings.push(`${path}: skipped line ${state.lineNo}: not a session entry`);
    return;
  }
  state.entries.push(value as SessionEntry);
}

/**
 * Parses the lines of `text` (complete lines, the last one without its newline) onto `state`. After the header, a
 * line that parses to an object with a string `type` other than "session" is an entry, taken here without a call;
 * every other line goes through `parseOtherLine`, which parses it again (a bad line is rare; the common one costs a
 * call less).
 */
function parseLines(state: ParseState, text: string, path: string): void {
  const entries = state.entries;
  let start = 0;
  for (;;) {
    let nl = text.indexOf("\n", start);
    const last = nl < 0;
    if (last) nl = text.length;
    state.lineNo++;
    let value: unknown;
    if (state.header !== undefined && nl - start >= 8) {
      try {
        value = JSON.parse(text.slice(start, nl));
      } catch {
        value = undefined;
      }
    }
    if (
      value !== null &&
      typeof value === "object" &&
      typeof (value as { type?: unknown }).type === "string" &&
      (value as { type: string }).type !== "session"
    )
      entries.push(value as SessionEntry);
    else parseOtherLine(state, text.slice(start, nl), path, false);
    if (last) return;
    start = nl + 1;
  }
}

/**
 * Parses `path` from byte `from` (a line start) to its end. `state` carries header and entries when resuming.
 * Returns the offset after the last complete line and whether the file ended on a newline.
 */
function parseFrom(
  fd: number,
  path: string,
  from: number,
  size: number,
  state: ParseState,
  onEntries: OnEntries | undefined,
): { parsedBytes: number; endsWithNewline: boolean } {
  let buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size - from, 1)));
  let filled = 0;
  let pos = from;
  let parsedBytes = from;
  while (pos < size) {
    if (filled === buf.length) {
      // One line longer than the buffer: grow it rather than splitting the line.
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const n = readSync(fd, buf, filled, Math.min(buf.length - filled, size - pos), pos);
    if (n === 0) break;
    filled += n;
    pos += n;
    const lastNl = buf.lastIndexOf(NEWLINE, filled - 1);
    if (lastNl < 0) continue;
    // A newline byte never occurs inside a multi-byte UTF-8 sequence, so the cut is a character boundary.
    const before = state.entries.length;
    parseLines(state, buf.toString("utf8", 0, lastNl), path);
    if (onEntries && state.entries.length > before) onEntries(state.entries, before, state.entries.length);
    parsedBytes += lastNl + 1;
    buf.copy(buf, 0, lastNl + 1, filled);
    filled -= lastNl + 1;
  }
  if (filled > 0) {
    const tail = buf.toString("utf8", 0, filled);
    const before = state.warnings.length;
    const entriesBefore = state.entries.length;
    state.lineNo++;
    parseOtherLine(state, tail, path, true);
    if (onEntries && state.entries.length > entriesBefore)
      onEntries(state.entries, entriesBefore, state.entries.length);
    // An unterminated but complete last line counts as parsed; a torn one is left for the next writer to fence.
    if (state.warnings.length === before) parsedBytes += filled;
    return { parsedBytes, endsWithNewline: false };
  }
  return { parsedBytes, endsWithNewline: true };
}

interface CacheRecord {
  ino: number;
  size: number;
  mtimeMs: number;
  file: ParsedSessionFile;
}

const cache = new Map<string, CacheRecord>();
let cacheLimitFiles = 16;
// File bytes, not heap: parsed entries take about 2-3x their file size, and they stay alive while cached.
let cacheLimitBytes = 128 * 1024 * 1024;
let cachedBytes = 0;
/** Counters for tests and benchmarks. */
export const sessionCacheStats = { hits: 0, partialHits: 0, misses: 0 };

/** Bounds of the parsed-file cache (files and total file bytes). `0` files disables it. */
export function setSessionCacheLimits(limits: { files?: number; bytes?: number }): void {
  if (limits.files !== undefined) cacheLimitFiles = limits.files;
  if (limits.bytes !== undefined) cacheLimitBytes = limits.bytes;
  evict();
}

export function clearSessionCache(): void {
  cache.clear();
  cachedBytes = 0;
}

function evict(): void {
  while (cache.size > 0 && (cache.size > cacheLimitFiles || cachedBytes > cacheLimitBytes)) {
    const oldest = cache.keys().next().value as string;
    forget(oldest);
  }
}

/** Drops the cached parse of `path` (the next read parses it again). */
export function forgetSessionFile(path: string): void {
  forget(resolve(path));
}

function forget(key: string): void {
  const rec = cache.get(key);
  if (!rec) return;
  cachedBytes -= rec.size;
  cache.delete(key);
}

/**
 * Records the parsed state of a file whose content is known (after a writer appended to it). The entries
 * array is taken over: the caller must not mutate it afterwards.
 */
export function rememberSessionFile(path: string, file: ParsedSessionFile, stats: Stats): void {
  if (cacheLimitFiles <= 0 || stats.size > cacheLimitBytes) return;
  const key = resolve(path);
  forget(key);
  cache.set(key, { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, file });
  cachedBytes += stats.size;
  evict();
}

function copyOf(file: ParsedSessionFile): ParsedSessionFile {
  return { ...file, entries: file.entries.slice(), warnings: file.warnings.slice() };
}

/**
 * Reads and parses a session file (through the cache). Throws `SessionFileError` when the file is not a session
 * file, and the fs error when it cannot be read. The returned arrays belong to the caller.
 * `onEntries`, when given, is called with the entries of the result in runs, in order, as they are parsed (a run per
 * chunk of the file; entries taken from the cache first, in one run): cheap bookkeeping then runs while the entries
 * are still in the CPU cache. It must not store entries into long-lived tables (a `Map` of every entry): see
 * `IdHashSet` for why. It reads its list only from `from` to `to`, during the call (the list may not be the
 * returned one). When the read throws, some entries may have been passed already.
 */
export function readSessionFile(path: string, onEntries?: OnEntries): ParsedSessionFile {
  const key = resolve(path);
  const fd = openSync(key, "r");
  try {
    const st = fstatSync(fd);
    const rec = cache.get(key);
    if (rec && rec.ino === st.ino) {
      if (rec.size === st.size && rec.mtimeMs === st.mtimeMs) {
        sessionCacheStats.hits++;
        cache.delete(key);
        cache.set(key, rec);
        const file = copyOf(rec.file);
        if (onEntries) onEntries(file.entries, 0, file.entries.length);
        return file;
      }
      const resumeAt = rec.file.parsedBytes;
      if (st.size > rec.size && rec.file.endsWithNewline && resumeAt > 0 && lastByteIs(fd, resumeAt - 1, NEWLINE)) {
        sessionCacheStats.partialHits++;
        const state: ParseState = {
          header: rec.file.header,
          entries: rec.file.entries.slice(),
          warnings: rec.file.warnings.slice(),
          lineNo: Number.NaN,
        };
        if (onEntries) onEntries(state.entries, 0, state.entries.length);
        const end = parseFrom(fd, key, resumeAt, st.size, state, onEntries);
        const file: ParsedSessionFile = {
          header: rec.file.header,
          entries: state.entries,
          warnings: state.warnings,
          ...end,
        };
        rememberSessionFile(key, file, st);
        return copyOf(file);
      }
    }
    sessionCacheStats.misses++;
    const state: ParseState = { header: undefined, entries: [], warnings: [], lineNo: 0 };
    const end = parseFrom(fd, key, 0, st.size, state, onEntries);
    if (!state.header) throw new SessionFileError(`${key}: empty file, no session header`, key);
    const file: ParsedSessionFile = { header: state.header, entries: state.entries, warnings: state.warnings, ...end };
    rememberSessionFile(key, file, st);
    return copyOf(file);
  } finally {
    closeSync(fd);
  }
}

function lastByteIs(fd: number, offset: number, byte: number): boolean {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, offset) === 1 && one[0] === byte;
}
