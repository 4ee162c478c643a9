/**
 * Strict JSON-lines framing for RPC: records end at LF (a trailing CR is dropped). Deliberately not node:readline,
 * which also splits on U+2028 / U+2029 — characters that are legal inside JSON strings.
 */
import { StringDecoder } from "node:string_decoder";

export interface JsonlReader {
  /** Feeds raw bytes (or text); calls `onLine` for every complete line. */
  push(chunk: Buffer | string): void;
  /** Flushes a last line that had no terminating LF. */
  end(): void;
}

export function createJsonlReader(onLine: (line: string) => void): JsonlReader {
  const decoder = new StringDecoder("utf8");
  // Parts of the line in progress: kept as a list so a huge line costs linear time, not quadratic.
  let parts: string[] = [];
  const emit = (line: string) => {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    onLine(text);
  };
  const feed = (text: string) => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      const piece = text.slice(start, nl);
      if (parts.length > 0) {
        parts.push(piece);
        emit(parts.join(""));
        parts = [];
      } else {
        emit(piece);
      }
      start = nl + 1;
    }
    if (start < text.length) parts.push(text.slice(start));
  };
  return {
    push(chunk) {
      feed(typeof chunk === "string" ? chunk : decoder.write(chunk));
    },
    end() {
      feed(decoder.end());
      if (parts.length > 0) {
        emit(parts.join(""));
        parts = [];
      }
    },
  };
}

/** One JSON value per line: `JSON.stringify` escapes LF inside strings, so a value never spans lines. */
export function toJsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
