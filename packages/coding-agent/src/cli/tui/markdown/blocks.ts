/**
 * Block-level Markdown from marked's tokens to terminal lines at a given width: headings, paragraphs, lists
 * (nested, ordered, tasks), block quotes, fenced code (highlighted), tables (box-drawn, columns shrunk and cells
 * wrapped to fit), rules. Every returned line is at most `width` columns wide, measured with pi-tui's
 * `visibleWidth` (wide CJK and emoji count two).
 */
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import type { Token, Tokens } from "marked";
import { type HighlightCache, highlightLines, highlightStreaming } from "./highlight.js";
import { expandTabs, type InlineOptions, renderInline } from "./inline.js";
import { wrapStyled } from "./wrap.js";

export interface BlockContext extends InlineOptions {
  /** The block is the last one of a message still streaming (an open fence gets no closing border). */
  streaming?: boolean;
  /** Highlighting kept between frames for the streaming block (see highlightStreaming). */
  codeCache?: HighlightCache;
}

function wrap(text: string, width: number): string[] {
  if (width <= 0) return [text];
  const out = wrapStyled(text, width);
  return out.length ? out : [""];
}

/** Blocks of one container (document, list item, quote), a blank line between them. */
export function renderBlocks(tokens: readonly Token[], width: number, ctx: BlockContext, tight = false): string[] {
  const out: string[] = [];
  const shown = tokens.filter((t) => t.type !== "space" && t.type !== "def" && t.type !== "checkbox");
  shown.forEach((t, i) => {
    if (i > 0 && !tight) out.push("");
    for (const l of renderBlock(t, width, { ...ctx, streaming: ctx.streaming && i === shown.length - 1 })) out.push(l);
  });
  return out;
}

export function renderBlock(t: Token, width: number, ctx: BlockContext): string[] {
  const th = ctx.theme;
  switch (t.type) {
    case "heading": {
      const h = t as Tokens.Heading;
      const text = renderInline(h.tokens, ctx);
      const styled =
        h.depth === 1 ? th.underline(th.md.heading(text)) : h.depth === 2 ? th.md.heading(text) : th.bold(text);
      return wrap(styled, width);
    }
    case "paragraph":
      return wrap(renderInline((t as Tokens.Paragraph).tokens, ctx), width);
    case "text": {
      const tt = t as Tokens.Text;
      return wrap(tt.tokens ? renderInline(tt.tokens, ctx) : expandTabs(tt.text), width);
    }
    case "code":
      return renderCode(t as Tokens.Code, width, ctx);
    case "blockquote": {
      const inner = renderBlocks((t as Tokens.Blockquote).tokens, Math.max(1, width - 2), ctx);
      return inner.map((l) => `${th.md.quoteBorder("│")} ${th.md.quote(l)}`);
    }
    case "list":
      return renderList(t as Tokens.List, width, ctx);
    case "table":
      return renderTable(t as Tokens.Table, width, ctx);
    case "hr":
      return [th.md.hr("─".repeat(Math.max(1, width)))];
    case "html":
      return wrap(th.gray(expandTabs((t as Tokens.HTML).text.replace(/\n+$/, ""))), width);
    default:
      return "raw" in t ? wrap(expandTabs(String(t.raw).replace(/\n+$/, "")), width) : [];
  }
}

function renderCode(t: Tokens.Code, width: number, ctx: BlockContext): string[] {
  const th = ctx.theme;
  const code = expandTabs(t.text.replace(/\n$/, ""));
  const lang = t.lang?.trim() ?? "";
  // An unclosed fence: marked takes the rest of the text as the block; the closing line is still to come.
  const open = ctx.streaming === true && t.codeBlockStyle !== "indented" && !/\n\s*(`{3,}|~{3,})\s*$/.test(t.raw);
  const border = th.md.codeBorder;
  const out = [
    border(
      `┌─${lang ? ` ${lang} ` : ""}${"─".repeat(Math.max(0, Math.min(width, 40) - 3 - (lang ? lang.length + 2 : 0)))}`,
    ),
  ];
  const inner = Math.max(1, width - 2);
  const plain = code.split("\n");
  const styled =
    ctx.streaming && ctx.codeCache ? highlightStreaming(code, lang, th, ctx.codeCache) : highlightLines(code, lang, th);
  const bar = border("│");
  plain.forEach((p, i) => {
    const l = styled[i] ?? p;
    // Measure the plain text (fast for ASCII); only lines too long for the frame are wrapped.
    if (visibleWidth(p) <= inner) out.push(`${bar} ${l}`);
    else for (const w of wrap(l, inner)) out.push(`${bar} ${w}`);
  });
  if (!open) out.push(border(`└${"─".repeat(Math.max(0, Math.min(width, 40) - 1))}`));
  // Only the top border can be too wide (a long language name).
  if (visibleWidth(out[0]!) > width) out[0] = truncateToWidth(out[0]!, width, "");
  return out;
}

function renderList(t: Tokens.List, width: number, ctx: BlockContext): string[] {
  const th = ctx.theme;
  const out: string[] = [];
  const start = typeof t.start === "number" ? t.start : 1;
  const markers = t.items.map((_, i) => (t.ordered ? `${start + i}.` : "•"));
  const markerWidth = Math.max(...markers.map((m) => m.length)) + 1;
  t.items.forEach((item, i) => {
    if (i > 0 && t.loose) out.push("");
    const inner = renderBlocks(item.tokens, Math.max(1, width - markerWidth), { ...ctx, streaming: false }, !t.loose);
    const box = item.task ? (item.checked ? th.green("☑ ") : "☐ ") : "";
    if (box) inner[0] = `${box}${inner[0] ?? ""}`;
    const marker = th.md.bullet(markers[i]!.padEnd(markerWidth));
    inner.forEach((l, j) => {
      out.push(j === 0 ? `${marker}${l}` : `${" ".repeat(markerWidth)}${l}`);
    });
    if (inner.length === 0) out.push(marker);
  });
  return out;
}

function renderTable(t: Tokens.Table, width: number, ctx: BlockContext): string[] {
  const th = ctx.theme;
  const b = th.md.tableBorder;
  const header = t.header.map((c) => th.bold(renderInline(c.tokens, ctx)));
  const rows = t.rows.map((r) => r.map((c) => renderInline(c.tokens, ctx)));
  const n = header.length;
  const natural = Array.from({ length: n }, (_, i) =>
    Math.max(1, visibleWidth(header[i] ?? ""), ...rows.map((r) => maxLineWidth(r[i] ?? ""))),
  );
  // Borders take 3n+1 columns; shrink the widest columns first until the table fits.
  const avail = Math.max(n, width - (3 * n + 1));
  const widths = natural.slice();
  while (widths.reduce((a, w) => a + w, 0) > avail) {
    const i = widths.indexOf(Math.max(...widths));
    if (widths[i]! <= 1) break;
    widths[i]!--;
  }
  const line = (l: string, m: string, r: string) => b(`${l}${widths.map((w) => "─".repeat(w + 2)).join(m)}${r}`);
  const row = (cells: string[]) => {
    const wrapped = cells.map((c, i) => wrap(c, widths[i]!));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    const lines: string[] = [];
    for (let k = 0; k < height; k++) {
      const parts = widths.map((w, i) => pad(wrapped[i]?.[k] ?? "", w, t.align[i] ?? null));
      lines.push(`${b("│")} ${parts.join(` ${b("│")} `)} ${b("│")}`);
    }
    return lines;
  };
  const out = [line("┌", "┬", "┐"), ...row(header), line("├", "┼", "┤")];
  for (const r of rows) out.push(...row(Array.from({ length: n }, (_, i) => r[i] ?? "")));
  out.push(line("└", "┴", "┘"));
  return out.map((l) => (visibleWidth(l) > width ? truncateToWidth(l, width, "") : l));
}

function maxLineWidth(s: string): number {
  return Math.max(0, ...s.split("\n").map((l) => visibleWidth(l)));
}

function pad(s: string, w: number, align: "left" | "right" | "center" | null): string {
  const gap = Math.max(0, w - visibleWidth(s));
  if (align === "right") return " ".repeat(gap) + s;
  if (align === "center") return " ".repeat(Math.floor(gap / 2)) + s + " ".repeat(gap - Math.floor(gap / 2));
  return s + " ".repeat(gap);
}
