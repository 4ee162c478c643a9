import { stripJsonc } from "@tiller/coding-agent";

/**
 * JSON with comments: `//` and `/* *\/` comments and trailing commas are removed outside strings (the coding
 * agent's one linear pass, which keeps line breaks), then the text goes to JSON.parse.
 */
export const stripJsonComments: (text: string) => string = stripJsonc;

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
