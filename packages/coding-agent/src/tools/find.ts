/**
 * The find tool: files whose path matches a glob, respecting .gitignore. `rg --files` lists the candidates
 * when it is on PATH, else the JS walker; the glob is applied in JS either way, so results are identical.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { compileGlob } from "./glob.js";
import { resolveToolPath } from "./path-guard.js";
import { findRipgrep, RG_WALK_FLAGS, runRipgrep } from "./ripgrep.js";
import { DEFAULT_MAX_BYTES, type TruncationResult, truncateHead } from "./truncate.js";
import { walkFiles } from "./walk.js";

const findSchema = Type.Object({
  pattern: Type.String({
    description:
      "Glob to match, e.g. '*.ts' (file name at any depth) or 'src/**/*.spec.ts' (path from the search folder)",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search in (default: current directory)" })),
  limit: Type.Optional(Type.Number({ description: "Maximum number of results (default: 1000)" })),
});
export type FindToolInput = Static<typeof findSchema>;

export interface FindToolDetails {
  truncation?: TruncationResult;
  /** Set to the limit when more files match. */
  resultLimitReached?: number;
  /** Which local search ran; undefined when a custom `operations.glob` listed the files. */
  engine?: "rg" | "js";
}

/**
 * pi's pluggable file search for find: when `glob` is given it lists the matches instead of the local walk
 * (paths relative to or under the search folder), after `exists` confirmed the folder.
 */
export interface FindOperations {
  exists: (absolutePath: string) => Promise<boolean> | boolean;
  glob: (pattern: string, cwd: string, options: { ignore: string[]; limit: number }) => Promise<string[]> | string[];
}

/** What a custom `glob` is asked to leave out (pi passes the same). */
const GLOB_IGNORE = ["**/node_modules/**", "**/.git/**"];

export interface FindToolOptions {
  /** Default: the local walk (rg or JS). */
  operations?: FindOperations;
  sandbox?: boolean;
  /** "auto" (default) uses rg when on PATH; false forces the JS walker. */
  ripgrep?: "auto" | false;
}

export const DEFAULT_FIND_LIMIT = 1000;

export interface FindSearch {
  /** Absolute folder. */
  root: string;
  pattern: string;
  limit: number;
  signal?: AbortSignal;
}

/** Pure JS: matching files, relative to the root, sorted. */
export async function findWithJs(search: FindSearch): Promise<{ files: string[]; limitReached: boolean }> {
  const glob = compileGlob(search.pattern);
  const files: string[] = [];
  for await (const entry of walkFiles(search.root, { signal: search.signal })) {
    if (!glob.matches(entry.rel)) continue;
    if (files.length >= search.limit) return { files, limitReached: true };
    files.push(entry.rel);
  }
  return { files, limitReached: false };
}

/** ripgrep: `rg --files` with the walker's flags, filtered by the same glob. */
export async function findWithRipgrep(
  search: FindSearch,
  rg: string,
): Promise<{ files: string[]; limitReached: boolean }> {
  const glob = compileGlob(search.pattern);
  const files: string[] = [];
  let limitReached = false;
  await runRipgrep(
    rg,
    ["--files", "--no-config", ...RG_WALK_FLAGS, "--", search.root],
    (line) => {
      if (line === "") return true;
      const rel = path.relative(search.root, line).split(path.sep).join("/");
      if (!glob.matches(rel)) return true;
      if (files.length >= search.limit) {
        limitReached = true;
        return false;
      }
      files.push(rel);
      return true;
    },
    search.signal,
  );
  return { files, limitReached };
}

export function createFindTool(
  cwd: string,
  options: FindToolOptions = {},
): AgentTool<typeof findSchema, FindToolDetails> {
  return {
    name: "find",
    label: "find",
    description:
      `Find files by glob pattern. Respects .gitignore. Returns paths relative to the search folder, at most ` +
      `${DEFAULT_FIND_LIMIT} by default.`,
    parameters: findSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("Search aborted");
      if (typeof params.pattern !== "string" || params.pattern === "") throw new Error("pattern is empty");
      const root = resolveToolPath(params.path ?? ".", cwd, options);
      const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_FIND_LIMIT));
      const ops = options.operations;
      if (ops?.glob) {
        if (!(await ops.exists(root))) throw new Error(`Path not found: ${params.path ?? "."}`);
        const found = await ops.glob(params.pattern, root, { ignore: [...GLOB_IGNORE], limit });
        if (signal?.aborted) throw new Error("Search aborted");
        const files = found.slice(0, limit).map((p) => relativeTo(root, p));
        return report(files, found.length >= limit, limit, undefined);
      }
      const info = await stat(root).catch(() => undefined);
      if (!info) throw new Error(`Path not found: ${params.path ?? "."}`);
      if (!info.isDirectory()) throw new Error(`Not a directory: ${params.path}`);
      const rg = options.ripgrep === false ? undefined : findRipgrep();
      const search = { root, pattern: params.pattern, limit, signal };
      const { files, limitReached } = rg ? await findWithRipgrep(search, rg) : await findWithJs(search);
      return report(files, limitReached, limit, rg ? "rg" : "js");
    },
  };
}

function relativeTo(root: string, p: string): string {
  const rel = path.isAbsolute(p) ? path.relative(root, p) : p;
  return rel.split(path.sep).join("/");
}

/** The tool result for `files`; `engine` is undefined when a custom `glob` listed them. */
function report(
  files: string[],
  limitReached: boolean,
  limit: number,
  engine: "rg" | "js" | undefined,
): { content: [{ type: "text"; text: string }]; details: FindToolDetails } {
  if (files.length === 0)
    return { content: [{ type: "text", text: "No files found matching pattern" }], details: { engine } };
  const t = truncateHead(files.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: DEFAULT_MAX_BYTES });
  const notes: string[] = [];
  if (limitReached)
    notes.push(`${limit} results limit reached. Use limit=${limit * 2} for more, or refine the pattern`);
  if (t.truncated) notes.push(`Output truncated to ${DEFAULT_MAX_BYTES / 1024}KB`);
  const text = notes.length > 0 ? `${t.content}\n\n[${notes.join(". ")}]` : t.content;
  return {
    content: [{ type: "text", text }],
    details: {
      engine,
      truncation: t.truncated ? t : undefined,
      resultLimitReached: limitReached ? limit : undefined,
    },
  };
}
