/**
 * Markdown that renders while it streams, at a cost bounded by the block being received.
 *
 * The text only grows while a reply streams. Top-level blocks that are followed by another block can no longer
 * change (a later line never turns a finished list or paragraph into something else), so they are rendered once,
 * kept as lines and never lexed again: each frame lexes only the text after the last finished block. The last
 * block is rendered as it is so far: an unclosed fence as an open code block, a table whose delimiter row has not
 * arrived as its raw rows, an unclosed `**` or backtick as if closed. Once the block is followed by another (or
 * the message ends) it is rendered for good.
 */
import { getCapabilities } from "@mariozechner/pi-tui";
import { Lexer, type Token } from "marked";
import { theme as activeTheme, type Theme } from "../theme.js";
import { renderBlock, renderBlocks } from "./blocks.js";
import type { HighlightCache } from "./highlight.js";

export interface StreamingMarkdownOptions {
  /** Defaults to the active theme, read at render time. */
  theme?: Theme;
  /** OSC 8 hyperlinks; defaults to what pi-tui detects for this terminal. */
  hyperlinks?: boolean;
  /** Columns of space left of every line. */
  paddingX?: number;
  /** Applied to every rendered line (thinking is shown dim and italic); lines of finished blocks are styled once. */
  lineStyle?: (line: string) => string;
}

interface FrozenBlock {
  token: Token;
  lines: string[];
}

export class StreamingMarkdown {
  private text = "";
  /** Characters of `text` covered by frozen blocks. */
  private frozenTo = 0;
  private frozen: FrozenBlock[] = [];
  private frozenWidth = -1;
  /** Whether more text may come; the last block is final once this is false. */
  private streaming = true;
  private cache: { width: number; lines: string[] } | undefined;
  /** Highlighting of the code block being received, reused by the next frame. */
  private codeCache: HighlightCache = { code: "", lines: [] };
  private options: StreamingMarkdownOptions;
  /** Characters lexed so far (for tests and the bench: must stay proportional to the text, not quadratic). */
  lexedChars = 0;

  constructor(options: StreamingMarkdownOptions = {}) {
    this.options = options;
  }

  /** The whole text so far. Cheap: lexing waits for the next render. */
  setText(text: string): void {
    const next = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
    if (next === this.text) return;
    // A rewrite before the frozen part (not a pure append) starts over.
    if (next.length < this.frozenTo || !next.startsWith(this.text.slice(0, this.frozenTo))) this.reset();
    this.text = next;
    this.cache = undefined;
  }

  /** No more text will come: the last block is rendered as complete. */
  finish(): void {
    if (!this.streaming) return;
    this.streaming = false;
    this.cache = undefined;
  }

  invalidate(): void {
    this.frozenWidth = -1;
    this.cache = undefined;
  }

  private reset(): void {
    this.frozen = [];
    this.frozenTo = 0;
    this.frozenWidth = -1;
  }

  private ctx() {
    const theme = this.options.theme ?? activeTheme;
    const hyperlinks = this.options.hyperlinks ?? getCapabilities().hyperlinks;
    return { theme, hyperlinks };
  }

  private style(lines: string[]): string[] {
    const f = this.options.lineStyle;
    return f ? lines.map((l) => (l ? f(l) : l)) : lines;
  }

  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const pad = this.options.paddingX ?? 0;
    const inner = Math.max(1, width - 2 * pad);
    const ctx = this.ctx();
    if (this.frozenWidth !== inner) {
      // Width or theme changed: re-render the frozen blocks from their tokens (no re-lexing).
      for (const f of this.frozen) f.lines = this.style(renderBlock(f.token, inner, ctx));
      this.frozenWidth = inner;
    }
    const tail = this.text.slice(this.frozenTo);
    this.lexedChars += tail.length;
    let tokens = lex(tail);
    // Freeze every block followed by another one; keep the last (and trailing blank lines) live.
    const sum = tokens.reduce((n, t) => n + t.raw.length, 0);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]!.type === "space") last--;
    if (sum === tail.length && last > 0) {
      for (const t of tokens.slice(0, last)) {
        this.frozenTo += t.raw.length;
        if (t.type !== "space" && t.type !== "def")
          this.frozen.push({ token: t, lines: this.style(renderBlock(t, inner, ctx)) });
      }
      tokens = tokens.slice(last);
    }
    const live = tokens.filter((t) => t.type !== "space" && t.type !== "def");
    const lines: string[] = [];
    for (const f of this.frozen) {
      if (lines.length > 0) lines.push("");
      for (const l of f.lines) lines.push(l);
    }
    if (live.length > 0) {
      if (lines.length > 0) lines.push("");
      const streaming = this.streaming;
      const liveTokens = streaming ? live.map(provisional) : live;
      const blockCtx = { ...ctx, streaming, ...(streaming ? { codeCache: this.codeCache } : {}) };
      for (const l of this.style(renderBlocks(liveTokens, inner, blockCtx))) lines.push(l);
    }
    const out = pad > 0 ? lines.map((l) => " ".repeat(pad) + l) : lines;
    this.cache = { width, lines: out };
    return out;
  }
}

function lex(src: string): Token[] {
  if (!src) return [];
  try {
    return Lexer.lex(src, { gfm: true });
  } catch {
    // marked never throws on text, but a bug there must not take the UI down: show the text as it is.
    return [{ type: "paragraph", raw: src, text: src, tokens: [{ type: "text", raw: src, text: src }] } as Token];
  }
}

/**
 * The still-growing last block as it should look now. A paragraph of `|` rows is a table waiting for its
 * delimiter row: shown raw. Unclosed `**` or backtick: lexed as if closed, so the emphasis shows at once instead
 * of flashing literal markers.
 */
function provisional(t: Token): Token {
  if (t.type !== "paragraph") return t;
  const raw = t.raw;
  if (/^\s*\|/.test(raw) && raw.split("\n").every((l) => !l.trim() || /^\s*\|/.test(l))) {
    return { type: "text", raw, text: raw.replace(/\n+$/, "") } as Token;
  }
  let fixed = raw.replace(/\n+$/, "");
  if ((fixed.match(/`/g)?.length ?? 0) % 2 === 1) fixed += "`";
  const outside = fixed.replace(/`[^`]*`/g, "");
  if ((outside.match(/\*\*/g)?.length ?? 0) % 2 === 1) fixed += "**";
  if (fixed === raw.replace(/\n+$/, "")) return t;
  // Only when the closed text is still one block; otherwise show it as it is rather than lose part of it.
  const again = lex(fixed).filter((x) => x.type !== "space");
  return again.length === 1 ? again[0]! : t;
}
