/**
 * pi's `truncateToVisualLines`: the last `maxVisualLines` screen lines of `text` wrapped at `width` columns (with
 * `paddingX` blank columns each side), each line padded to the full width. Words wrap greedily; a word wider
 * than a line is broken. ANSI escape sequences take no columns.
 */

export interface VisualTruncateResult {
  visualLines: string[];
  /** Screen lines dropped from the top. */
  skippedCount: number;
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(?:\x07|\x1b\\)/g;

function columns(text: string): number {
  let n = 0;
  for (const ch of text.replace(ANSI, "")) n += isWide(ch.codePointAt(0) ?? 0) ? 2 : 1;
  return n;
}

/** East Asian wide and fullwidth characters and emoji take two columns. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Breaks one word wider than `width` into pieces of at most `width` columns. */
function breakWord(word: string, width: number): string[] {
  const out: string[] = [];
  let piece = "";
  let used = 0;
  for (const ch of word) {
    const w = isWide(ch.codePointAt(0) ?? 0) ? 2 : 1;
    if (used + w > width && piece) {
      out.push(piece);
      piece = "";
      used = 0;
    }
    piece += ch;
    used += w;
  }
  if (piece) out.push(piece);
  return out;
}

/** Greedy wrap keeping the spaces between words on a line; the spaces at a break are dropped. */
function wrapLine(line: string, width: number): string[] {
  const out: string[] = [];
  let current = "";
  let used = 0;
  let gap = "";
  for (const token of line.split(/( +)/)) {
    if (token === "") continue;
    if (token.startsWith(" ")) {
      gap = token;
      continue;
    }
    const w = columns(token);
    if (current && used + gap.length + w <= width) {
      current += gap + token;
      used += gap.length + w;
    } else {
      if (current) {
        out.push(current);
        current = "";
        used = 0;
      } else if (gap && gap.length + w <= width) {
        // Leading spaces of the line stay when the first word fits after them.
        current = gap;
        used = gap.length;
      }
      if (used + w <= width) {
        current += token;
        used += w;
      } else {
        const pieces = breakWord(token, width);
        current = pieces.pop() ?? "";
        used = columns(current);
        out.push(...pieces);
      }
    }
    gap = "";
  }
  out.push(current);
  return out;
}

export function truncateToVisualLines(
  text: string,
  maxVisualLines: number,
  width: number,
  paddingX = 0,
): VisualTruncateResult {
  if (!text) return { visualLines: [], skippedCount: 0 };
  const inner = Math.max(1, width - 2 * paddingX);
  const pad = " ".repeat(paddingX);
  const all: string[] = [];
  for (const line of text.split("\n")) {
    for (const part of wrapLine(line.replace(/\t/g, "   "), inner)) {
      const body = pad + part + pad;
      all.push(body + " ".repeat(Math.max(0, width - columns(body))));
    }
  }
  if (all.length <= maxVisualLines) return { visualLines: all, skippedCount: 0 };
  return { visualLines: all.slice(all.length - maxVisualLines), skippedCount: all.length - maxVisualLines };
}
