/**
 * Output limits shared by the coding tools. Two independent limits, whichever is hit first wins:
 * a line count and a byte count (UTF-8). Truncation keeps whole lines, except when a single line
 * alone is larger than the byte limit at the tail (then its end is kept).
 */

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Longest match line grep shows before cutting it. */
export const GREP_MAX_LINE_LENGTH = 500;

/** What a truncation kept and why. Field names match pi's `TruncationResult`. */
export interface TruncationResult {
  content: string;
  truncated: boolean;
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
  /** Tail truncation only: the kept first line is the end of a longer line. */
  lastLinePartial: boolean;
  /** Head truncation only: the first line alone is over the byte limit, so nothing was kept. */
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

export interface TruncationOptions {
  maxLines?: number;
  maxBytes?: number;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function splitLines(content: string): string[] {
  // A trailing newline ends the last line; it does not start an empty one.
  const lines = content.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function result(
  content: string,
  lines: string[],
  kept: number,
  by: "lines" | "bytes" | null,
  totalBytes: number,
  maxLines: number,
  maxBytes: number,
  extra: Partial<TruncationResult> = {},
): TruncationResult {
  return {
    content,
    truncated: by !== null,
    truncatedBy: by,
    totalLines: content === "" && lines.length === 1 && lines[0] === "" ? 0 : lines.length,
    totalBytes,
    outputLines: kept,
    outputBytes: Buffer.byteLength(content, "utf8"),
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines,
    maxBytes,
    ...extra,
  };
}

/** Number of lines; a trailing newline ends the last line rather than starting an empty one. */
export function countLines(content: string): number {
  if (content === "") return 0;
  let n = 0;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) n++;
  return content.endsWith("\n") ? n : n + 1;
}

/** Char offset where 0-based line `line` starts (content.length when past the end). */
export function lineStartOffset(content: string, line: number): number {
  let pos = 0;
  for (let i = 0; i < line; i++) {
    const nl = content.indexOf("\n", pos);
    if (nl === -1) return content.length;
    pos = nl + 1;
  }
  return pos;
}

/** Keep the first lines (file reads: the reader continues with an offset). Scans only what it keeps. */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = Buffer.byteLength(content, "utf8");
  const totalLines = countLines(content);
  const base = { totalLines, totalBytes, lastLinePartial: false, maxLines, maxBytes };
  if (totalLines <= maxLines && totalBytes <= maxBytes) {
    const r = {
      ...base,
      content,
      truncated: false,
      truncatedBy: null,
      outputLines: totalLines,
      outputBytes: totalBytes,
    };
    return { ...r, firstLineExceedsLimit: false };
  }
  let pos = 0;
  let end = 0;
  let bytes = 0;
  let kept = 0;
  let by: "lines" | "bytes" = "lines";
  while (kept < maxLines && pos < content.length) {
    const nl = content.indexOf("\n", pos);
    const lineEnd = nl === -1 ? content.length : nl;
    const size = Buffer.byteLength(content.slice(pos, lineEnd), "utf8") + (kept > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      by = "bytes";
      break;
    }
    bytes += size;
    kept++;
    end = lineEnd;
    pos = lineEnd + 1;
  }
  return {
    ...base,
    content: content.slice(0, end),
    truncated: true,
    truncatedBy: by,
    outputLines: kept,
    outputBytes: bytes,
    firstLineExceedsLimit: kept === 0,
  };
}

/** Keep the last lines (command output: errors and results are at the end). */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = Buffer.byteLength(content, "utf8");
  const lines = splitLines(content);
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    const r = result(content, lines, lines.length, null, totalBytes, maxLines, maxBytes);
    r.outputLines = r.totalLines;
    return r;
  }
  let bytes = 0;
  let kept = 0;
  let by: "lines" | "bytes" = "lines";
  for (let i = lines.length - 1; i >= 0; i--) {
    if (kept >= maxLines) break;
    const size = Buffer.byteLength(lines[i]!, "utf8") + (kept > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      by = "bytes";
      break;
    }
    bytes += size;
    kept++;
  }
  if (kept === 0) {
    // The last line alone is too big: keep its end, cut on a character boundary.
    const last = Buffer.from(lines[lines.length - 1]!, "utf8");
    let start = last.length - maxBytes;
    while (start < last.length && (last[start]! & 0xc0) === 0x80) start++;
    const out = last.subarray(start).toString("utf8");
    const r = result(out, lines, 1, "bytes", totalBytes, maxLines, maxBytes, { lastLinePartial: true });
    r.totalLines = lines.length;
    return r;
  }
  const out = lines.slice(lines.length - kept).join("\n");
  const r = result(out, lines, kept, by, totalBytes, maxLines, maxBytes);
  r.totalLines = lines.length;
  return r;
}

/** Cut one line to `maxChars`, marking the cut. */
export function truncateLine(line: string, maxChars = GREP_MAX_LINE_LENGTH): { text: string; wasTruncated: boolean } {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
