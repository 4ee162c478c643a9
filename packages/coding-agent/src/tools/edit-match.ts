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

/** Find the unique region of `content` matching `oldText` (both LF-normalized). */
export function locate(content: string, oldText: string): MatchOutcome {
  const exact = findAll(content, oldText);
  if (exact.length === 1)
    return { ok: true, region: { start: exact[0]!, end: exact[0]! + oldText.length, kind: "exact" } };
  if (exact.length > 1) return { ok: false, count: countAll(content, oldText) };
  for (const collapse of [false, true]) {
    const hay = foldText(content, collapse);
    const needle = foldText(oldText, collapse).folded;
    if (needle.trim() === "") continue;
    const hits = findAll(hay.folded, needle);
    if (hits.length > 1) return { ok: false, count: countAll(hay.folded, needle) };
    if (hits.length === 1) {
      const s = hits[0]!;
      const lastOrig = hay.map[s + needle.length - 1]!;
      const start = hay.map[s]!;
      const end = lastOrig + String.fromCodePoint(content.codePointAt(lastOrig)!).length;
      return { ok: true, region: { start, end, kind: collapse ? "whitespace" : "fuzzy" } };
    }
  }
  return { ok: false, count: 0 };
}
