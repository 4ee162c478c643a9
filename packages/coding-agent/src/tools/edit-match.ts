/**
 * Locating an edit's `oldText` in a file: exactly first, then with tolerant matching that ignores
 * trailing whitespace, Unicode look-alikes (curly quotes, dashes, odd spaces, NFKC forms) and, as a last
 * resort, differences in runs of spaces and tabs. Every level requires a single match.
 */

/** A region of the (LF-normalized) file. */
export interface MatchRegion {
  start: number;
  end: number;
  /** "exact", or the tolerant level that found it. */
  kind: "exact" | "fuzzy" | "whitespace";
}

export type MatchOutcome = { ok: true; region: MatchRegion } | { ok: false; count: number };

const QUOTES: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2032": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
};

function foldChar(ch: string): string {
  const mapped = QUOTES[ch];
  if (mapped) return mapped;
  if (ch === "\t") return ch;
  if (/\s/.test(ch) && ch !== "\n") return " ";
  const code = ch.codePointAt(0)!;
  return code < 128 ? ch : ch.normalize("NFKC");
}

/**
 * Normalize `text`, returning the folded string and, for each folded UTF-16 unit, the index of the
 * original character it came from. Trailing whitespace of each line is dropped; with `collapse`, every run
 * of spaces/tabs becomes one space.
 */
export function foldText(text: string, collapse: boolean): { folded: string; map: number[] } {
  const parts: string[] = [];
  const map: number[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    let trimmed = lineEnd;
    while (trimmed > lineStart && /[ \t\u00a0\u2000-\u200b\u3000\u202f\u205f]/.test(text[trimmed - 1]!)) trimmed--;
    let inSpace = false;
    for (let i = lineStart; i < trimmed; ) {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      let folded = foldChar(ch);
      if (collapse && (folded === " " || folded === "\t")) {
        if (inSpace) {
          i += ch.length;
          continue;
        }
        folded = " ";
        inSpace = true;
      } else inSpace = false;
      parts.push(folded);
      for (let j = 0; j < folded.length; j++) map.push(i);
      i += ch.length;
    }
    if (lineEnd < text.length) {
      parts.push("\n");
      map.push(lineEnd);
    }
    lineStart = lineEnd + 1;
  }
  return { folded: parts.join(""), map };
}

/** Non-overlapping occurrences of `needle`, stopping after `cap`. */
export function findAll(haystack: string, needle: string, cap = 2): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) {
    found.push(i);
    if (found.length >= cap) break;
  }
  return found;
}

function countAll(haystack: string, needle: string): number {
  return findAll(haystack, needle, Number.POSITIVE_INFINITY).length;
}

const PLAIN_LINE = /^[\t\x20-\x7e]*$/;
const HSPACE_RUN = /[ \t]+/g;

/** Fold one line (no newline inside) without the index map: the fast path for whole-file scans. */
function foldLine(line: string, collapse: boolean): string {
  if (PLAIN_LINE.test(line)) {
    const trimmed = line.replace(/[ \t]+$/, "");
    return collapse ? trimmed.replace(HSPACE_RUN, " ") : trimmed;
  }
  return foldText(line, collapse).folded;
}

/** Original index in `line` of folded index `k` (k may equal the folded length: end of line). */
function origIndex(line: string, collapse: boolean, k: number, isEnd: boolean): number {
  const { folded, map } = foldText(line, collapse);
  if (isEnd) {
    if (k === 0) return 0;
    const last = map[k - 1]!;
    return k > folded.length ? line.length : last + String.fromCodePoint(line.codePointAt(last)!).length;
  }
  return k >= map.length ? line.length : map[k]!;
}

/**
 * Tolerant search, line by line: the folded needle's lines must equal folded file lines, except that the
 * first may match a line's end and the last a line's start. Returns the hits as [line, column] in folded
 * coordinates, at most `cap`.
 */
function foldedHits(lines: string[], folded: string[], needle: string[], cap: number): [number, number][] {
  const hits: [number, number][] = [];
  const n = needle.length;
  if (n === 1) {
    const only = needle[0]!;
    for (let i = 0; i < folded.length && hits.length < cap; i++) {
      const line = folded[i]!;
      for (
        let at = line.indexOf(only);
        at !== -1 && hits.length < cap;
        at = line.indexOf(only, at + Math.max(1, only.length))
      )
        hits.push([i, at]);
    }
    return hits;
  }
  for (let i = 0; i + n <= lines.length && hits.length < cap; i++) {
    const first = folded[i]!;
    if (!first.endsWith(needle[0]!)) continue;
    let ok = true;
    for (let j = 1; j < n - 1 && ok; j++) ok = folded[i + j] === needle[j];
    if (ok && folded[i + n - 1]!.startsWith(needle[n - 1]!)) hits.push([i, first.length - needle[0]!.length]);
  }
  return hits;
}

/** Find the unique region of `content` matching `oldText` (both LF-normalized). */
export function locate(content: string, oldText: string): MatchOutcome {
  const exact = findAll(content, oldText);
  if (exact.length === 1)
    return { ok: true, region: { start: exact[0]!, end: exact[0]! + oldText.length, kind: "exact" } };
  if (exact.length > 1) return { ok: false, count: countAll(content, oldText) };
  const lines = content.split("\n");
  const starts: number[] = [];
  for (let i = 0, pos = 0; i < lines.length; pos += lines[i]!.length + 1, i++) starts.push(pos);
  for (const collapse of [false, true]) {
    const needle = oldText.split("\n").map((l) => foldLine(l, collapse));
    if (needle.join("").trim() === "") continue;
    const folded = lines.map((l) => foldLine(l, collapse));
    const hits = foldedHits(lines, folded, needle, Number.POSITIVE_INFINITY);
    if (hits.length > 1) return { ok: false, count: hits.length };
    if (hits.length === 1) {
      const [line, col] = hits[0]!;
      const lastLine = line + needle.length - 1;
      const endCol = (needle.length === 1 ? col : 0) + needle[needle.length - 1]!.length;
      const start = starts[line]! + origIndex(lines[line]!, collapse, col, false);
      const end = starts[lastLine]! + origIndex(lines[lastLine]!, collapse, endCol, true);
      return { ok: true, region: { start, end, kind: collapse ? "whitespace" : "fuzzy" } };
    }
  }
  return { ok: false, count: 0 };
}
