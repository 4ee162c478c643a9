/**
 * Syntax highlighting for code blocks: highlight.js does the lexing; its HTML output (nested
 * `<span class="hljs-…">`) is turned into ANSI through the theme's `syntax` map, one string per source line.
 * Only languages highlight.js knows are highlighted; no auto-detection (it tries every grammar, too slow to
 * run on every frame of a streaming block).
 */
import { createRequire } from "node:module";
import type { HLJSApi } from "highlight.js";

// Loaded on first use: its grammars take longer to load than the rest of the package's index, and a program
// importing the package for its SDK may never draw a code block.
let hljsApi: HLJSApi | undefined;
function hljs(): HLJSApi {
  hljsApi ??= createRequire(import.meta.url)("highlight.js") as HLJSApi;
  return hljsApi;
}

import type { Theme } from "../theme.js";

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
};

function decode(s: string): string {
  return s.includes("&") ? s.replace(/&(?:lt|gt|amp|quot|#x27|#39);/g, (m) => ENTITIES[m] ?? m) : s;
}

/** Whether highlight.js has a grammar for this fence info string (`ts`, `python`, `sh` …). */
export function knownLanguage(lang: string | undefined): string | undefined {
  const name = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  return name && hljs().getLanguage(name) ? name : undefined;
}

/** The code as styled lines (tabs already expanded by the caller). Unknown language or no colour: plain lines. */
export function highlightLines(code: string, lang: string | undefined, theme: Theme): string[] {
  const language = knownLanguage(lang);
  if (!language || !theme.color) return code.split("\n");
  let html: string;
  try {
    html = hljs().highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return code.split("\n");
  }
  const lines: string[] = [];
  let line = "";
  // Styles of the open spans; text takes the innermost one that has a style (nested colours cannot stack).
  const stack: Array<((s: string) => string) | undefined> = [];
  const style = () => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]) return stack[i];
    return undefined;
  };
  const emit = (text: string) => {
    const parts = decode(text).split("\n");
    parts.forEach((p, i) => {
      if (i > 0) {
        lines.push(line);
        line = "";
      }
      if (p) line += style()?.(p) ?? p;
    });
  };
  const re = /<span class="([^"]*)">|<\/span>/g;
  let last = 0;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (m.index > last) emit(html.slice(last, m.index));
    last = re.lastIndex;
    if (m[1] === undefined) stack.pop();
    else stack.push(scopeStyle(m[1], theme));
  }
  if (last < html.length) emit(html.slice(last));
  lines.push(line);
  return lines;
}

/** What the last frame highlighted of a code block that is still streaming. */
export interface HighlightCache {
  lang?: string;
  code: string;
  lines: string[];
}

/** Lines before the end of the previous frame that are highlighted again (multi-line strings, comments). */
const REHIGHLIGHT_LINES = 20;

/**
 * Highlighting for a code block still being received, at a cost bounded by the new lines: lines highlighted by
 * an earlier frame are reused up to `REHIGHLIGHT_LINES` before its end, and only the rest is highlighted (as a
 * piece on its own, so a construct opened more than that far back may be coloured wrong until the block is
 * complete and highlighted whole).
 */
export function highlightStreaming(
  code: string,
  lang: string | undefined,
  theme: Theme,
  cache: HighlightCache,
): string[] {
  let lines: string[];
  const keep = cache.lines.length - 1 - REHIGHLIGHT_LINES;
  if (cache.lang === lang && keep > 0 && code.startsWith(cache.code)) {
    let offset = 0;
    for (let i = 0; i < keep; i++) offset = code.indexOf("\n", offset) + 1;
    lines = cache.lines.slice(0, keep).concat(highlightLines(code.slice(offset), lang, theme));
  } else {
    lines = highlightLines(code, lang, theme);
  }
  cache.lang = lang;
  cache.code = code;
  cache.lines = lines;
  return lines;
}

/** `hljs-title function_` → the style of `title`, else of `function`. */
function scopeStyle(classes: string, theme: Theme): ((s: string) => string) | undefined {
  for (const cls of classes.split(/\s+/)) {
    const name = cls.replace(/^hljs-/, "").replace(/_+$/, "");
    const s = theme.syntax[name];
    if (s) return s;
  }
  return undefined;
}
