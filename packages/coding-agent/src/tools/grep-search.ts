/**
 * Finding grep matches, with ripgrep or in pure JS. Both walk the same files in the same (sorted) order
 * and return the same matches, so the tool's output does not depend on whether `rg` is installed.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { compileGlob } from "./glob.js";
import { RG_WALK_FLAGS, runRipgrep } from "./ripgrep.js";
import { walkFiles } from "./walk.js";

export interface GrepSearch {
  /** Absolute folder or file to search. */
  root: string;
  pattern: string;
  ignoreCase?: boolean;
  /** Treat `pattern` as a literal string. */
  literal?: boolean;
  /** Filter files by glob (`*.ts`, `src/**\/*.ts`); a leading `!` excludes. */
  glob?: string;
  /** Stop after this many matching lines. */
  limit: number;
  signal?: AbortSignal;
}

export interface GrepMatch {
  /** Path relative to the searched folder (the file name when a file was searched). */
  file: string;
  abs: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface GrepMatches {
  matches: GrepMatch[];
  limitReached: boolean;
}

function escapeRegex(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** The pattern as a JS RegExp; throws a clear error for invalid syntax. */
export function compilePattern(search: Pick<GrepSearch, "pattern" | "ignoreCase" | "literal">): RegExp {
  const source = search.literal ? escapeRegex(search.pattern) : search.pattern;
  try {
    return new RegExp(source, search.ignoreCase ? "i" : "");
  } catch (err) {
    throw new Error(`Invalid regex: ${(err as Error).message}`);
  }
}

function stripEol(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Pure JS search. */
export async function grepWithJs(search: GrepSearch): Promise<GrepMatches> {
  const regex = compilePattern(search);
  const matches: GrepMatch[] = [];
  const info = await stat(search.root);
  const negative = search.glob?.startsWith("!");
  const glob = search.glob ? compileGlob(negative ? search.glob.slice(1) : search.glob) : undefined;
  const scan = async (abs: string, file: string): Promise<boolean> => {
    const buf = await readFile(abs).catch(() => undefined);
    if (!buf || buf.includes(0)) return true; // Unreadable or binary: skipped, as ripgrep does.
    const lines = buf.toString("utf8").split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const text = stripEol(lines[i]!);
      if (!regex.test(text)) continue;
      matches.push({ file, abs, line: i + 1, text });
      if (matches.length >= search.limit) return false;
    }
    return true;
  };
  if (!info.isDirectory()) {
    const more = await scan(search.root, path.basename(search.root));
    return { matches, limitReached: !more };
  }
  const walk = walkFiles(search.root, {
    signal: search.signal,
    forceInclude: glob && !negative ? (rel) => glob.matches(rel) : undefined,
    exclude: glob ? (rel, isDir) => (negative ? glob.matches(rel) : !isDir && !glob.matches(rel)) : undefined,
  });
  for await (const entry of walk) {
    if (!(await scan(entry.abs, entry.rel))) return { matches, limitReached: true };
  }
  return { matches, limitReached: false };
}

interface RgJsonMatch {
  type: string;
  data?: { path?: { text?: string }; lines?: { text?: string }; line_number?: number };
}

/** ripgrep search (`rg --json`), same files and order as `grepWithJs`. */
export async function grepWithRipgrep(search: GrepSearch, rg: string): Promise<GrepMatches> {
  compilePattern(search); // Same error message for bad patterns on both paths.
  const info = await stat(search.root);
  const args = ["--json", "--line-number", "--no-config", ...RG_WALK_FLAGS];
  if (search.ignoreCase) args.push("--ignore-case");
  if (search.literal) args.push("--fixed-strings");
  if (search.glob) args.push("--glob", search.glob);
  args.push("--regexp", search.pattern, "--", search.root);
  const matches: GrepMatch[] = [];
  let limitReached = false;
  const { code, stderr } = await runRipgrep(
    rg,
    args,
    (line) => {
      if (!line.startsWith('{"type":"match"')) return true;
      const event = JSON.parse(line) as RgJsonMatch;
      const abs = event.data?.path?.text;
      if (!abs || event.data?.line_number === undefined) return true;
      const file = info.isDirectory() ? path.relative(search.root, abs).split(path.sep).join("/") : path.basename(abs);
      const text = stripEol((event.data.lines?.text ?? "").replace(/\n$/, ""));
      matches.push({ file, abs, line: event.data.line_number, text });
      if (matches.length >= search.limit) {
        limitReached = true;
        return false;
      }
      return true;
    },
    search.signal,
  );
  if (code === 2 && matches.length === 0 && /error/i.test(stderr)) throw new Error(`rg failed: ${stderr.trim()}`);
  return { matches, limitReached };
}
