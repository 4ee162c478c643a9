/**
 * Allowlist matching. Each segment's executable is resolved the way the shell would find it — a word with a `/`
 * relative to the working directory, a bare word through PATH — and must match an entry: a path glob (`/…`,
 * `~/…`) against the resolved path, or a bare-name glob against a bare word (so `rg` trusts `rg` found through
 * PATH, never `./rg`).
 */
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { compileGlob } from "../tools/glob.js";
import type { AllowlistEntry } from "./schema.js";
import { executableWord, type ShellWord, splitShellChain } from "./shell-chain.js";

export interface ResolvedExecutable {
  /** The word as written (quotes removed). */
  word: string;
  /** Written without a `/`: found through PATH (or a shell builtin). */
  bare: boolean;
  /** Absolute path, when it could be resolved. */
  path?: string;
  /** The word is only known at run time (`$CMD`); it never matches. */
  dynamic: boolean;
}

export type CommandAnalysis =
  | { ok: true; executables: ResolvedExecutable[] }
  | { ok: false; reason: string; executables: ResolvedExecutable[] };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function lookPath(name: string, pathVar: string | undefined, cwd: string): string | undefined {
  for (const dir of (pathVar ?? "").split(delimiter)) {
    const base = dir === "" ? cwd : isAbsolute(dir) ? dir : resolve(cwd, dir);
    const candidate = join(base, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function expandHome(word: string, home: string): string {
  return word === "~" || word.startsWith("~/") ? home + word.slice(1) : word;
}

export function resolveExecutable(
  word: ShellWord,
  cwd: string,
  env: { PATH?: string; home?: string } = {},
): ResolvedExecutable {
  const home = env.home ?? homedir();
  const text = word.text;
  // `~/bin/x` is expanded by the shell, so it is known statically; other dynamic words are not.
  const tildeOnly = text.startsWith("~/") && !/[$*?[]/.test(text);
  if (word.dynamic && !tildeOnly) return { word: text, bare: false, dynamic: true };
  if (text.includes("/"))
    return { word: text, bare: false, path: resolve(cwd, expandHome(text, home)), dynamic: false };
  const found = lookPath(text, env.PATH ?? process.env.PATH, cwd);
  return found ? { word: text, bare: true, path: found, dynamic: false } : { word: text, bare: true, dynamic: false };
}

/** Resolves every segment's executable; fails (with the reason) when the chain cannot be analysed. */
export function analyzeCommand(
  command: string,
  cwd: string,
  env: { PATH?: string; home?: string } = {},
): CommandAnalysis {
  const chain = splitShellChain(command);
  if (!chain.ok) return { ok: false, reason: chain.reason, executables: [] };
  const executables: ResolvedExecutable[] = [];
  for (const segment of chain.segments) {
    const word = executableWord(segment);
    if (!word) continue; // only assignments: runs nothing
    executables.push(resolveExecutable(word, cwd, env));
  }
  if (executables.length === 0) return { ok: false, reason: "no command", executables };
  return { ok: true, executables };
}

export function matchesEntry(pattern: string, exe: ResolvedExecutable, home: string = homedir()): boolean {
  if (exe.dynamic) return false;
  const isPathPattern = pattern.startsWith("/") || pattern.startsWith("~");
  if (!isPathPattern) return exe.bare && compileGlob(pattern).matches(exe.word);
  if (!exe.path) return false;
  // compileGlob matches `/`-separated paths without the leading slash.
  const glob = expandHome(pattern, home).replace(/^\/+/, "");
  return compileGlob(glob).matches(exe.path.replace(/^\/+/, ""));
}

/** The executables no entry matches (all of them when the analysis failed). */
export function allowlistMisses(
  analysis: CommandAnalysis,
  allowlist: readonly AllowlistEntry[],
  home?: string,
): ResolvedExecutable[] {
  return analysis.executables.filter((exe) => !allowlist.some((entry) => matchesEntry(entry.pattern, exe, home)));
}

/**
 * What an `allow-always` adds for these executables: each one's resolved path, or its bare name when it has none
 * (a shell builtin). Undefined when one of them cannot be pinned (a dynamic word): then nothing is persisted.
 */
export function patternsToPersist(executables: readonly ResolvedExecutable[]): string[] | undefined {
  const out: string[] = [];
  for (const exe of executables) {
    if (exe.dynamic) return undefined;
    // A resolved path is stored literally: glob characters in it are escaped.
    const pattern = exe.path ? exe.path.replace(/[*?[\]{}\\]/g, "\\$&") : exe.bare ? exe.word : undefined;
    if (pattern === undefined) return undefined;
    if (!out.includes(pattern)) out.push(pattern);
  }
  return out.length > 0 ? out : undefined;
}
