/**
 * A sorted, depth-first walk that honours ignore files the way ripgrep does with
 * `--hidden --no-require-git`: hidden files are included, `.git` is skipped, symlinks are not followed,
 * and each folder's .gitignore/.ignore/.rgignore applies below it.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { ancestorRules, IgnoreMatcher } from "./ignore.js";

export interface WalkEntry {
  /** `/`-separated path relative to the walk root. */
  rel: string;
  abs: string;
}

export interface WalkOptions {
  /** Skip ignore files entirely. */
  noIgnore?: boolean;
  /**
   * A file this returns true for is listed even if ignored (ripgrep's `--glob` overrides ignore rules for
   * files; ignored folders are still not entered).
   */
  forceInclude?: (rel: string) => boolean;
  /** Entries this returns true for are skipped (folders are not entered). */
  exclude?: (rel: string, isDir: boolean) => boolean;
  signal?: AbortSignal;
}

/** Byte-wise order, as ripgrep's `--sort path` (not locale order). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Yield the files under `absRoot` in sorted order. Stop early by breaking out of the loop. */
export async function* walkFiles(absRoot: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const base = options.noIgnore ? new IgnoreMatcher() : new IgnoreMatcher().with(ancestorRules(absRoot));
  yield* walkDir(absRoot, "", base, options);
}

async function* walkDir(
  abs: string,
  rel: string,
  parent: IgnoreMatcher,
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  if (options.signal?.aborted) throw new Error("Search aborted");
  const matcher = options.noIgnore ? parent : parent.withFiles(abs, rel);
  let entries: Dirent[];
  try {
    entries = await readdir(abs, { withFileTypes: true });
  } catch {
    return; // Unreadable folders are skipped, as ripgrep does (it only warns).
  }
  entries.sort((a, b) => compareNames(a.name, b.name));
  for (const entry of entries) {
    const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
    const childAbs = path.join(abs, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === ".git") continue;
      if (matcher.ignores(childRel, true) || options.exclude?.(childRel, true)) continue;
      yield* walkDir(childAbs, childRel, matcher, options);
    } else if (entry.isFile()) {
      if (options.exclude?.(childRel, false)) continue;
      if (matcher.ignores(childRel, false) && !options.forceInclude?.(childRel)) continue;
      yield { rel: childRel, abs: childAbs };
    }
  }
}
