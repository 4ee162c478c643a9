/**
 * Collects a command's output in bounded memory. It keeps a tail (enough for the 2,000-line / 50 KB view)
 * and, once the output outgrows those limits, writes everything to a temp file so nothing is lost.
 */
import { createWriteStream, mkdtempSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, type TruncationResult, truncateTail } from "./truncate.js";

// CSI / OSC escape sequences and other control characters that only garble a model's view.
// biome-ignore lint/complexity/useRegexLiterals: kept as a string for readability of the escapes.
const ANSI = new RegExp(
  "\\u001b\\[[0-?]*[ -/]*[@-~]|\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)|\\u001b[@-Z\\\\-_]",
  "g",
);
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Strip terminal escapes, carriage returns (CRLF becomes LF) and other control characters. */
export function sanitizeOutput(text: string): string {
  return text.replace(ANSI, "").replace(/\r/g, "").replace(CONTROL, "");
}

export interface OutputSinkOptions {
  maxLines?: number;
  maxBytes?: number;
  /** Prefix of the spill file name. */
  spillPrefix?: string;
}

/** Snapshot of what a sink holds. */
export interface OutputSnapshot {
  text: string;
  truncation: TruncationResult;
  /** Set once the output outgrew the limits. */
  fullOutputPath?: string;
}

export class OutputSink {
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly decoder = new StringDecoder("utf8");
  private tail = "";
  private totalBytes = 0;
  private totalLines = 0;
  private spill: WriteStream | undefined;
  private spillPath: string | undefined;
  private readonly prefix: string;

  constructor(options: OutputSinkOptions = {}) {
    this.maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.prefix = options.spillPrefix ?? "tiller-output";
  }

  /** Append raw bytes from the process. */
  write(chunk: Buffer | string): void {
    const raw = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    if (raw === "") return;
    const text = sanitizeOutput(raw);
    this.totalBytes += Buffer.byteLength(text, "utf8");
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.totalLines++;
    this.tail += text;
    if (!this.spill && (this.totalBytes > this.maxBytes || this.totalLines > this.maxLines)) {
      // The tail still holds everything at this point: memory is trimmed only after the spill starts.
      const dir = mkdtempSync(path.join(tmpdir(), `${this.prefix}-`));
      this.spillPath = path.join(dir, "output.log");
      this.spill = createWriteStream(this.spillPath);
      this.spill.on("error", () => {}); // A full disk must not crash the run; the tail is still returned.
      this.spill.write(this.tail);
    } else if (this.spill) {
      this.spill.write(text);
    }
    // Amortized trimming: only when the tail is 4x the byte limit, cut it back to 2x (lines fit in that too
    // unless they are tiny, in which case the line limit applies to what is kept).
    if (this.spill && this.tail.length > this.maxBytes * 4) {
      this.tail = this.tail.slice(this.tail.length - this.maxBytes * 2);
    }
  }

  /** The current view: the tail truncated to the limits. */
  snapshot(): OutputSnapshot {
    const truncation = truncateTail(this.tail, { maxLines: this.maxLines, maxBytes: this.maxBytes });
    if (this.spill) {
      truncation.truncated = true;
      truncation.truncatedBy ??= this.totalBytes > this.maxBytes ? "bytes" : "lines";
      truncation.totalBytes = this.totalBytes;
      const endsOpen = this.tail.length > 0 && !this.tail.endsWith("\n");
      truncation.totalLines = this.totalLines + (endsOpen ? 1 : 0);
    }
    return { text: truncation.content, truncation, fullOutputPath: this.spillPath };
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Flush the decoder and close the spill file. */
  async finish(): Promise<OutputSnapshot> {
    const rest = this.decoder.end();
    if (rest) this.write(rest);
    const spill = this.spill;
    if (spill) await new Promise<void>((resolve) => spill.end(() => resolve()));
    return this.snapshot();
  }
}
