import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { resolveTillerHome } from "./paths.js";

/** A project instruction file (AGENTS.md / CLAUDE.md) whose text goes into the system prompt. */
export interface ContextFile {
  /** Absolute path of the file. */
  path: string;
  content: string;
}

/** Names looked for in each folder, in order; the first one present in a folder wins for that folder. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

export interface LoadContextFilesOptions {
  cwd: string;
  /** Tiller home (default `resolveTillerHome()`); its AGENTS.md / CLAUDE.md applies to every project. */
  tillerHome?: string;
}

/**
 * Collects context files: the global one in Tiller home first, then one per folder from the filesystem root down
 * to `cwd`, so the most specific instructions come last. A file that cannot be read is skipped.
 */
export function loadContextFiles(options: LoadContextFilesOptions): ContextFile[] {
  const out: ContextFile[] = [];
  const seen = new Set<string>();
  const add = (dir: string) => {
    const file = findInDir(dir);
    if (!file || seen.has(file)) return;
    seen.add(file);
    try {
      out.push({ path: file, content: readFileSync(file, "utf8") });
    } catch {
      // Unreadable (permissions, race with deletion): the prompt simply goes without it.
    }
  };
  add(options.tillerHome ?? resolveTillerHome());
  const chain: string[] = [];
  let dir = resolve(options.cwd);
  for (;;) {
    chain.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain.reverse()) add(d);
  return out;
}

function findInDir(dir: string): string | undefined {
  for (const name of CONTEXT_FILE_NAMES) {
    const p = join(dir, name);
    try {
      if (existsSync(p) && statSync(p).isFile()) return p;
    } catch {
      // ignore
    }
  }
  return undefined;
}

/**
 * pi's name and options for `loadContextFiles`: the context files of `cwd`, with `agentDir` as the home whose
 * AGENTS.md / CLAUDE.md applies to every project (default: the Tiller home).
 */
export function loadProjectContextFiles(options: { cwd?: string; agentDir?: string } = {}): ContextFile[] {
  return loadContextFiles({
    cwd: options.cwd ?? process.cwd(),
    ...(options.agentDir !== undefined ? { tillerHome: options.agentDir } : {}),
  });
}
