/**
 * Splits streamed text into reply blocks. A block is emitted once the buffer holds `minChars` and a break of the
 * preferred kind lies in [minChars, maxChars]; once the buffer is past `maxChars` the best lesser break is used
 * (paragraph, then line, then sentence, then whitespace), and a hard break as the last resort. Breaks never fall
 * inside a code fence: a forced break there closes the fence and reopens it (same marker and info) in the next
 * block. Hard breaks never split a surrogate pair or a grapheme cluster.
 *
 * Cost is linear: the scan resumes where it stopped and never reads past `maxChars`; after a block is cut only
 * the (shorter than `maxChars`) remainder is scanned again.
 */

export type BreakPreference = "paragraph" | "newline" | "sentence";

export interface BlockChunkerOptions {
  /** Do not emit a (non-final) block shorter than this. */
  minChars: number;
  /** Never emit a block longer than this (plus a closing fence line when a fence must be split). */
  maxChars: number;
  breakPreference?: BreakPreference;
}

export const DEFAULT_BLOCK_CHUNKING: Required<BlockChunkerOptions> = {
  minChars: 800,
  maxChars: 1200,
  breakPreference: "paragraph",
};

interface Fence {
  char: string;
  len: number;
  /** The opening line as written (indentation, marker, info string). */
  openLine: string;
}

type Kind = "para" | "line" | "sentence" | "space";
const ORDER: Record<BreakPreference, Kind[]> = {
  paragraph: ["para", "line", "sentence", "space"],
  newline: ["line", "sentence", "space"],
  sentence: ["sentence", "space"],
};
const SENTENCE_END = new Set([".", "!", "?"]);
const CJK_SENTENCE_END = new Set(["。", "！", "？", "…", "｡"]);
/** Text needed past maxChars before a hard break, so the grapheme at the cut is complete. */
const GRAPHEME_MARGIN = 32;
const FENCE_START = /^ {0,3}(`{3,}|~{3,})/;
let segmenter: Intl.Segmenter | undefined;

export class BlockChunker {
  private readonly min: number;
  private readonly max: number;
  private readonly order: Kind[];
  private buf = "";
  // Scan state over `buf`.
  private pos = 0;
  private lineStart = 0;
  private lineClassified = false;
  private lineBlank = true;
  private fence: Fence | null = null;
  /** A fence line that ends past maxChars starts here: a hard break must not cut inside it. */
  private stalledAt = -1;
  private cand: Record<Kind, number> = { para: 0, line: 0, sentence: 0, space: 0 };
  /** Last line start inside a fence: where a fence that must be split is closed and reopened. */
  private fenceLine = 0;

  constructor(options: BlockChunkerOptions) {
    const max = Math.max(1, Math.floor(options.maxChars));
    this.max = max;
    this.min = Math.min(max, Math.max(0, Math.floor(options.minChars)));
    this.order = ORDER[options.breakPreference ?? "paragraph"];
  }

  /** Characters buffered and not yet emitted. */
  get pendingLength(): number {
    return this.buf.length;
  }

  append(text: string): void {
    this.buf += text;
  }

  /** Blocks that are ready now; text that may still grow into a better block stays buffered. */
  drain(): string[] {
    return this.run(false);
  }

  /** Emits everything buffered (still split at maxChars), e.g. at text_end or message_end. */
  flush(): string[] {
    return this.run(true);
  }

  reset(): void {
    this.buf = "";
    this.resetScan();
  }

  private resetScan(): void {
    this.pos = 0;
    this.lineStart = 0;
    this.lineClassified = false;
    this.lineBlank = true;
    this.fence = null;
    this.stalledAt = -1;
    this.cand = { para: 0, line: 0, sentence: 0, space: 0 };
    this.fenceLine = 0;
  }

  private run(force: boolean): string[] {
    const out: string[] = [];
    for (;;) {
      if (this.buf.length === 0) break;
      const full = this.buf.length > this.max;
      this.scan(force || full);
      if (!force && this.buf.length < this.min) break;
      const top = this.cand[this.order[0] as Kind];
      if (top >= this.min && top > 0 && !(force && this.buf.length <= this.max)) {
        this.cutAt(top, out);
        continue;
      }
      if (full) {
        const found = this.order.map((k) => this.cand[k]);
        const lesser = found.find((p) => p >= this.min && p > 0) ?? found.find((p) => p > 0);
        if (lesser !== undefined) this.cutAt(lesser, out);
        else if (this.fenceLine > 0) this.hardBreak(out, this.fenceLine);
        else if (force || this.buf.length > this.max + GRAPHEME_MARGIN) this.hardBreak(out, this.max);
        else break; // Wait: the grapheme at the cut may still be growing.
        continue;
      }
      if (force) {
        const rest = this.buf.trimEnd();
        if (rest.trim().length > 0) out.push(rest);
        this.reset();
      }
      break;
    }
    return out;
  }

  /** Emits buf[0, p) and keeps the rest (without the newlines that formed the break). */
  private cutAt(p: number, out: string[]): void {
    const block = this.buf.slice(0, p).trimEnd();
    let rest = this.buf.slice(p);
    let skip = 0;
    while (skip < rest.length && rest[skip] === "\n") skip++;
    if (skip > 0) rest = rest.slice(skip);
    if (block.trim().length > 0) out.push(block);
    this.buf = rest;
    this.resetScan();
  }

  private hardBreak(out: string[], at: number): void {
    let cut = at;
    if (this.stalledAt > 0 && this.stalledAt < cut) cut = this.stalledAt;
    cut = graphemeBoundaryAtOrBefore(this.buf, cut);
    const fence = this.fence;
    if (fence && this.stalledAt === cut) {
      // The fence's closing line straddles maxChars: keep it with its block rather than leave an empty fence.
      const nl = this.buf.indexOf("\n", cut);
      const end = nl < 0 ? this.buf.length : nl;
      out.push(this.buf.slice(0, end).trimEnd());
      this.buf = this.buf.slice(nl < 0 ? end : nl + 1);
      this.resetScan();
      return;
    }
    if (fence) {
      const head = this.buf.slice(0, cut);
      const reopen = `${fence.openLine}\n`;
      if (reopen.length < cut) {
        const closing = `${head.endsWith("\n") ? "" : "\n"}${fence.char.repeat(fence.len)}`;
        out.push(head + closing);
        this.buf = reopen + this.buf.slice(cut);
        this.resetScan();
        return;
      }
    }
    const block = this.buf.slice(0, cut);
    if (block.trim().length > 0) out.push(block.trimEnd());
    this.buf = this.buf.slice(cut);
    this.resetScan();
  }

  /** Advances the scan up to maxChars. `final` classifies an unfinished last line instead of waiting for it. */
  private scan(final: boolean): void {
    const buf = this.buf;
    const limit = Math.min(buf.length, this.max);
    while (this.pos < limit) {
      const i = this.pos;
      if (i === this.lineStart && !this.lineClassified) {
        if (!this.classifyLine(final)) return;
        if (this.pos !== i) continue;
      }
      const ch = buf[i] as string;
      if (ch === "\n") {
        if (this.fence === null) {
          this.record("line", i + 1);
          if (this.lineBlank && this.lineStart > 0) this.record("para", i + 1);
        } else if (i + 1 <= this.max && i + 1 > this.fence.openLine.length + 1) {
          this.fenceLine = i + 1;
        }
        this.lineStart = i + 1;
        this.lineClassified = false;
        this.lineBlank = true;
      } else if (this.fence === null) {
        if (ch === " " || ch === "\t") {
          this.record("space", i + 1);
          if (i > 0 && SENTENCE_END.has(buf[i - 1] as string)) this.record("sentence", i + 1);
        } else {
          this.lineBlank = false;
          if (CJK_SENTENCE_END.has(ch)) this.record("sentence", i + 1);
        }
      } else if (ch !== " " && ch !== "\t") {
        this.lineBlank = false;
      }
      this.pos = i + 1;
    }
  }

  private record(kind: Kind, p: number): void {
    if (p <= this.max) this.cand[kind] = p;
  }

  /**
   * Decides whether the line at `pos` opens or closes a fence. Returns false when it cannot tell yet (an unfinished
   * line that may be a fence marker) or when a fence line runs past maxChars (scan stalls there).
   */
  private classifyLine(final: boolean): boolean {
    const buf = this.buf;
    const start = this.pos;
    let j = start;
    while (j < buf.length && j - start < 3 && buf[j] === " ") j++;
    const c = buf[j];
    if (j >= buf.length || ((c === "`" || c === "~") && buf.indexOf("\n", j) < 0 && !final)) {
      // Unfinished line that may still become a fence marker: wait for more text.
      if (final) this.lineClassified = true;
      return final;
    }
    this.lineClassified = true;
    const nl = buf.indexOf("\n", j);
    const end = nl < 0 ? buf.length : nl;
    const line = buf.slice(start, end);
    const m = FENCE_START.exec(line);
    if (!m) return true;
    const marker = m[1] as string;
    const rest = line.slice(m[0].length);
    let isFenceLine = false;
    if (this.fence === null) {
      if (!(marker[0] === "`" && rest.includes("`"))) {
        this.fence = { char: marker[0] as string, len: marker.length, openLine: line.trimEnd() };
        isFenceLine = true;
      }
    } else if (marker[0] === this.fence.char && marker.length >= this.fence.len && rest.trim() === "") {
      this.fence = null;
      isFenceLine = true;
    }
    if (!isFenceLine) return true;
    const after = nl < 0 ? buf.length : nl + 1;
    if (after > this.max) {
      this.stalledAt = start;
      return false;
    }
    // Skip the marker line; its newline ends a line (a break point once the fence is closed).
    this.pos = after;
    this.lineStart = after;
    this.lineClassified = false;
    this.lineBlank = true;
    if (nl >= 0 && this.fence === null) this.record("line", after);
    return true;
  }
}

/**
 * The largest grapheme boundary in (0, cut]; when one grapheme is longer than `cut`, the first boundary after it
 * (a block may then exceed maxChars rather than split a grapheme).
 */
export function graphemeBoundaryAtOrBefore(text: string, cut: number): number {
  if (cut >= text.length) return text.length;
  const from = Math.max(0, cut - 64);
  const to = Math.min(text.length, cut + 64);
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let best = 0;
  let after = 0;
  for (const seg of segmenter.segment(text.slice(from, to))) {
    const idx = from + seg.index;
    // The window's own start is not a real boundary unless it is the text's start.
    if (idx === from) continue;
    if (idx <= cut) best = idx;
    else {
      after = idx;
      break;
    }
  }
  if (best > 0) return best;
  if (after > 0) return after;
  // A grapheme longer than the window: at least keep surrogate pairs whole.
  const code = text.charCodeAt(cut - 1);
  return code >= 0xd800 && code <= 0xdbff ? cut + 1 : cut;
}
