/**
 * JSON with comments: `//` and `/* *\/` comments and trailing commas are removed outside strings, then the
 * text goes to JSON.parse. One linear pass; positions in parse errors refer to the cleaned text, so the error
 * we raise also reports the line of the original input.
 */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i] as string;
    if (ch === '"') {
      const start = i;
      i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      out += text.slice(start, i);
      continue;
    }
    if (ch === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (ch === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      // Keep line breaks so line numbers in later errors still match the file.
      out += text.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
      continue;
    }
    out += ch;
    i++;
  }
  return dropTrailingCommas(out);
}

/** Removes commas that directly precede `}` or `]` (whitespace between), outside strings. */
function dropTrailingCommas(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i] as string;
    if (ch === '"') {
      const start = i;
      i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
      out += text.slice(start, i);
      continue;
    }
    if (ch === ",") {
      let j = i + 1;
      while (j < n && /\s/.test(text[j] as string)) j++;
      if (text[j] === "}" || text[j] === "]") {
        i++;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

/** Parses JSON-with-comments; a syntax error names the file and line. */
export function parseJsonc(text: string, source: string): unknown {
  const cleaned = stripJsonComments(text);
  try {
    return JSON.parse(cleaned);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(message);
    const line = pos ? cleaned.slice(0, Number(pos[1])).split("\n").length : undefined;
    throw new ConfigError(`${source}${line ? `:${line}` : ""}: invalid JSON (${message})`);
  }
}

/** A configuration problem; the message names the file and the offending key. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
