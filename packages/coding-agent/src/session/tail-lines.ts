/**
 * Reading a file's lines from its end backwards, in chunks: what the session listing (the latest name in a file's
 * tail) and the backward branch walk (`SessionTail`) share. Only the bytes of the lines taken are read, each once.
 */

/** One line read backwards: a view of its bytes (valid until the next line is taken) and where it starts. */
export interface TailLine {
  /** File offset of the line's first byte. */
  start: number;
  bytes: Buffer;
}

/** `readSync`'s shape: reads `len` bytes at file offset `position` into `buf` at `at`, returns the count. */
export type ReadAt = (buf: Buffer, at: number, len: number, position: number) => number;

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 10;

/**
 * The lines that end before byte `end`, last first; the bytes after the last newline count as a line (a torn or
 * unterminated last line). With `floor` > 0 only lines that start after it are taken (the one reaching back to it
 * counts as cut and ends the walk); with `floor` 0 the walk ends with the file's first line. A line longer than a
 * chunk doubles the read, so a long line costs its length, not its length squared.
 */
export function* linesBackward(read: ReadAt, end: number, floor = 0): Generator<TailLine> {
  let pos = end; // buf holds the file bytes [pos, lineEnd)
  let buf = Buffer.alloc(0);
  let lineEnd = end;
  for (;;) {
    const have = lineEnd - pos;
    const nl = have > 0 ? buf.lastIndexOf(NEWLINE, have - 1) : -1;
    if (nl >= 0) {
      yield { start: pos + nl + 1, bytes: buf.subarray(nl + 1, have) };
      lineEnd = pos + nl;
      continue;
    }
    if (pos <= floor) {
      if (floor === 0 && have > 0) yield { start: 0, bytes: buf.subarray(0, have) };
      return;
    }
    const n = Math.min(Math.max(CHUNK_BYTES, have), pos - floor);
    const next = Buffer.allocUnsafe(n + have);
    if (read(next, 0, n, pos - n) !== n) throw new Error("the file shrank while it was read");
    buf.copy(next, n, 0, have);
    buf = next;
    pos -= n;
  }
}
