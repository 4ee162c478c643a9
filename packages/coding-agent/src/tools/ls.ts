/**
 * The ls tool: one folder's entries, sorted, `/` after folders, dotfiles included. Entries ignored by
 * .gitignore are left out of the listing and summarized in a note, so `node_modules` does not drown it.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { ancestorRules, IgnoreMatcher } from "./ignore.js";
import { resolveToolPath } from "./path-guard.js";
import { DEFAULT_MAX_BYTES, type TruncationResult, truncateHead } from "./truncate.js";

const lsSchema = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory to list (default: current directory)" })),
  limit: Type.Optional(Type.Number({ description: "Maximum number of entries to return (default: 500)" })),
});
export type LsToolInput = Static<typeof lsSchema>;

export interface LsToolDetails {
  truncation?: TruncationResult;
  entryLimitReached?: number;
  /** Entries left out because they are ignored. */
  ignored?: string[];
}

/**
 * pi's pluggable folder listing for ls (a container, SSH). A listing through custom operations has no
 * .gitignore filtering: the ignore rules live on the local disk.
 */
export interface LsOperations {
  exists: (absolutePath: string) => Promise<boolean> | boolean;
  /** Throws when the path does not exist. */
  stat: (absolutePath: string) => Promise<{ isDirectory: () => boolean }> | { isDirectory: () => boolean };
  readdir: (absolutePath: string) => Promise<string[]> | string[];
}

export interface LsToolOptions {
  /** Default: the local file system, with .gitignore filtering. */
  operations?: LsOperations;
  sandbox?: boolean;
  /** List ignored entries too. Default false. */
  showIgnored?: boolean;
}

export const DEFAULT_LS_LIMIT = 500;
const MAX_IGNORED_NAMED = 20;

export interface LsListing {
  entries: string[];
  ignored: string[];
}

/** Pure JS listing of one folder (shared with tests). */
export async function listDirectory(absDir: string, showIgnored = false): Promise<LsListing> {
  const dirents: Dirent[] = await readdir(absDir, { withFileTypes: true });
  const matcher = showIgnored ? undefined : new IgnoreMatcher().with(ancestorRules(absDir)).withFiles(absDir, "");
  const entries: string[] = [];
  const ignored: string[] = [];
  const sorted = dirents.sort((a, b) => byName(a.name, b.name));
  for (const d of sorted) {
    let isDir = d.isDirectory();
    if (d.isSymbolicLink())
      isDir = await stat(path.join(absDir, d.name)).then(
        (s) => s.isDirectory(),
        () => false,
      );
    const name = isDir ? `${d.name}/` : d.name;
    if (matcher?.ignores(d.name, isDir)) ignored.push(name);
    else entries.push(name);
  }
  return { entries, ignored };
}

/** Case-insensitive order, ties broken by code point (stable across file systems). */
function byName(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** A listing through custom operations: every entry, `/` after folders (an entry that fails stat is a file). */
async function listWith(ops: LsOperations, absDir: string): Promise<LsListing> {
  const names = [...(await ops.readdir(absDir))].sort(byName);
  const entries: string[] = [];
  for (const name of names) {
    let isDir = false;
    try {
      isDir = (await ops.stat(path.join(absDir, name))).isDirectory();
    } catch {
      // Vanished or unreadable between readdir and stat: list it as it was named.
    }
    entries.push(isDir ? `${name}/` : name);
  }
  return { entries, ignored: [] };
}

async function isDirectoryWith(ops: LsOperations, abs: string): Promise<boolean | undefined> {
  if (!(await ops.exists(abs))) return undefined;
  return (await ops.stat(abs)).isDirectory();
}

export function createLsTool(cwd: string, options: LsToolOptions = {}): AgentTool<typeof lsSchema, LsToolDetails> {
  return {
    name: "ls",
    label: "ls",
    description:
      `List a directory's entries, sorted, with '/' after folders and dotfiles included. Entries ignored by ` +
      `.gitignore are summarized, not listed. At most ${DEFAULT_LS_LIMIT} entries by default.`,
    parameters: lsSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("ls aborted");
      const abs = resolveToolPath(params.path ?? ".", cwd, options);
      const ops = options.operations;
      const isDir = ops
        ? await isDirectoryWith(ops, abs)
        : await stat(abs).then(
            (s) => s.isDirectory(),
            () => undefined,
          );
      if (isDir === undefined) throw new Error(`Path not found: ${params.path ?? "."}`);
      if (!isDir) throw new Error(`Not a directory: ${params.path}`);
      const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_LS_LIMIT));
      const { entries, ignored } = ops ? await listWith(ops, abs) : await listDirectory(abs, options.showIgnored);
      const shown = entries.slice(0, limit);
      const notes: string[] = [];
      if (entries.length > limit) notes.push(`${limit} entries limit reached. Use limit=${limit * 2} for more`);
      if (ignored.length > 0) {
        const named = ignored.slice(0, MAX_IGNORED_NAMED).join(", ");
        const more = ignored.length > MAX_IGNORED_NAMED ? `, and ${ignored.length - MAX_IGNORED_NAMED} more` : "";
        notes.push(`${ignored.length} ignored by .gitignore: ${named}${more}`);
      }
      const t = truncateHead(shown.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER, maxBytes: DEFAULT_MAX_BYTES });
      if (t.truncated) notes.push(`Output truncated to ${DEFAULT_MAX_BYTES / 1024}KB`);
      const body = shown.length === 0 ? "(empty directory)" : t.content;
      const text = notes.length > 0 ? `${body}\n\n[${notes.join(". ")}]` : body;
      return {
        content: [{ type: "text", text }],
        details: {
          truncation: t.truncated ? t : undefined,
          entryLimitReached: entries.length > limit ? limit : undefined,
          ignored: ignored.length > 0 ? ignored : undefined,
        },
      };
    },
  };
}
