/**
 * The grep tool: regex (or literal) search over files, respecting .gitignore, with optional context lines.
 * Uses `rg` when it is on PATH, else the pure JS search (grep-search.ts) — same results either way.
 */
import { readFile, stat } from "node:fs/promises";
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { type GrepMatch, grepWithJs, grepWithRipgrep } from "./grep-search.js";
import { resolveToolPath } from "./path-guard.js";
import { findRipgrep } from "./ripgrep.js";
import {
  DEFAULT_MAX_BYTES,
  GREP_MAX_LINE_LENGTH,
  type TruncationResult,
  truncateHead,
  truncateLine,
} from "./truncate.js";

const grepSchema = Type.Object({
  pattern: Type.String({ description: "Search pattern (regex, or literal string with literal=true)" }),
  path: Type.Optional(Type.String({ description: "Directory or file to search (default: current directory)" })),
  glob: Type.Optional(Type.String({ description: "Filter files by glob, e.g. '*.ts' or 'src/**/*.spec.ts'" })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search (default: false)" })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as a literal string (default: false)" })),
  context: Type.Optional(Type.Number({ description: "Lines of context before and after each match (default: 0)" })),
  limit: Type.Optional(Type.Number({ description: "Maximum number of matches to return (default: 100)" })),
});
export type GrepToolInput = Static<typeof grepSchema>;

export interface GrepToolDetails {
  truncation?: TruncationResult;
  /** Set to the limit when more matches exist. */
  matchLimitReached?: number;
  linesTruncated?: boolean;
  /** Which search ran. */
  engine: "rg" | "js";
}

/**
 * pi's pluggable file access for grep: whether the search path is a folder (throws when it does not exist) and
 * the text of a matched file for context lines. The search itself runs on the local files (rg or JS), as pi's.
 */
export interface GrepOperations {
  isDirectory: (absolutePath: string) => Promise<boolean> | boolean;
  readFile: (absolutePath: string) => Promise<string> | string;
}

const localOps: GrepOperations = {
  isDirectory: async (p) => (await stat(p)).isDirectory(),
  readFile: (p) => readFile(p, "utf8"),
};

export interface GrepToolOptions {
  /** Default: the local file system. */
  operations?: GrepOperations;
  /** Refuse paths outside `cwd` (symlinks followed). */
  sandbox?: boolean;
  /** "auto" (default) uses rg when on PATH; false forces the JS search. */
  ripgrep?: "auto" | false;
}

export const DEFAULT_GREP_LIMIT = 100;

/** Render matches as `file:line: text`, context lines as `file-line- text`. */
export async function formatGrepMatches(
  matches: GrepMatch[],
  context: number,
  readText: (absolutePath: string) => Promise<string> | string = localOps.readFile,
): Promise<{ text: string; linesTruncated: boolean }> {
  const out: string[] = [];
  let linesTruncated = false;
  const push = (file: string, line: number, sep: ":" | "-", text: string) => {
    const t = truncateLine(text, GREP_MAX_LINE_LENGTH);
    if (t.wasTruncated) linesTruncated = true;
    out.push(`${file}${sep}${line}${sep} ${t.text}`);
  };
  const cache = new Map<string, string[]>();
  const linesOf = async (abs: string) => {
    let lines = cache.get(abs);
    if (!lines) {
      let text = "";
      try {
        text = await readText(abs);
      } catch {
        // An unreadable file shows its match lines without context.
      }
      lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
      if (lines[lines.length - 1] === "") lines.pop();
      cache.clear(); // Matches come grouped by file: keep one file's lines at a time.
      cache.set(abs, lines);
    }
    return lines;
  };
  let lastFile = "";
  let lastLine = 0;
  const matchLines = new Set(matches.map((m) => `${m.abs}\0${m.line}`));
  for (const m of matches) {
    if (m.file !== lastFile) lastLine = 0;
    if (context > 0) {
      const lines = await linesOf(m.abs);
      const from = Math.max(lastLine + 1, m.line - context);
      if (lastLine > 0 && from > lastLine + 1) out.push("--");
      for (let n = from; n < m.line; n++) push(m.file, n, "-", lines[n - 1] ?? "");
      push(m.file, m.line, ":", m.text);
      let n = m.line + 1;
      for (; n <= Math.min(lines.length, m.line + context); n++) {
        if (matchLines.has(`${m.abs}\0${n}`)) break; // The next match prints itself.
        push(m.file, n, "-", lines[n - 1] ?? "");
      }
      lastLine = n - 1;
    } else push(m.file, m.line, ":", m.text);
    lastFile = m.file;
  }
  return { text: out.join("\n"), linesTruncated };
}

export function createGrepTool(
  cwd: string,
  options: GrepToolOptions = {},
): AgentTool<typeof grepSchema, GrepToolDetails> {
  return {
    name: "grep",
    label: "grep",
    description:
      `Search file contents for a regex or literal pattern. Respects .gitignore. Returns matching lines as ` +
      `file:line: text, at most ${DEFAULT_GREP_LIMIT} matches by default and ${DEFAULT_MAX_BYTES / 1024}KB of output; ` +
      `long lines are cut at ${GREP_MAX_LINE_LENGTH} characters.`,
    parameters: grepSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("Search aborted");
      if (typeof params.pattern !== "string" || params.pattern === "") throw new Error("pattern is empty");
      const root = resolveToolPath(params.path ?? ".", cwd, options);
      const ops = options.operations ?? localOps;
      try {
        await ops.isDirectory(root);
      } catch {
        throw new Error(`Path not found: ${params.path ?? "."}`);
      }
      const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_GREP_LIMIT));
      const context = Math.max(0, Math.floor(params.context ?? 0));
      const rg = options.ripgrep === false ? undefined : findRipgrep();
      const search = { ...params, root, limit, signal };
      const { matches, limitReached } = rg ? await grepWithRipgrep(search, rg) : await grepWithJs(search);
      const engine = rg ? "rg" : "js";
      if (matches.length === 0) return { content: [{ type: "text", text: "No matches found" }], details: { engine } };
      const formatted = await formatGrepMatches(matches, context, (p) => ops.readFile(p));
      const t = truncateHead(formatted.text, { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: DEFAULT_MAX_BYTES });
      const notes: string[] = [];
      if (limitReached)
        notes.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine the pattern`);
      if (t.truncated) notes.push(`Output truncated to ${DEFAULT_MAX_BYTES / 1024}KB`);
      if (formatted.linesTruncated)
        notes.push(`Some lines cut at ${GREP_MAX_LINE_LENGTH} characters; use read to see them whole`);
      const text = notes.length > 0 ? `${t.content}\n\n[${notes.join(". ")}]` : t.content;
      return {
        content: [{ type: "text", text }],
        details: {
          engine,
          truncation: t.truncated ? t : undefined,
          matchLimitReached: limitReached ? limit : undefined,
          linesTruncated: formatted.linesTruncated || undefined,
        },
      };
    },
  };
}
