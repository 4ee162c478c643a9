/**
 * .gitignore semantics in plain JS: ordered rules, last match wins, `!` re-includes, trailing `/` only
 * matches directories, a `/` at the start or middle anchors the pattern to the ignore file's folder.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { globToRegexSource } from "./glob.js";

interface Rule {
  /** Folder (relative to the walk root, "" for the root or above) the rule's file lives in. */
  base: string;
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
  anchored: boolean;
  /** For rules from an ancestor folder: the walk root's path relative to that folder. */
  prefix?: string;
}

/** Parse one ignore file's text into rules relative to `base`. */
export function parseIgnore(text: string, base = ""): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("#")) continue;
    // Trailing spaces are ignored unless escaped.
    line = line.replace(/(?<!\\) +$/, "");
    if (line === "") continue;
    let negate = false;
    if (line.startsWith("!")) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    if (line === "") continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    const source = globToRegexSource(line);
    // `dir/**` style patterns already match inside; anchored ones match the path from the base.
    rules.push({ base, regex: new RegExp(`^${source}$`), negate, dirOnly, anchored });
  }
  return rules;
}

/** A stack of rules from ignore files, applied to paths relative to the walk root. */
export class IgnoreMatcher {
  constructor(private readonly rules: Rule[] = []) {}

  /** A matcher with the rules of `dirRel`'s ignore files added (deeper files win). */
  withFiles(absDir: string, dirRel: string, names: readonly string[] = IGNORE_FILES): IgnoreMatcher {
    const added: Rule[] = [];
    for (const name of names) {
      let text: string;
      try {
        text = readFileSync(path.join(absDir, name), "utf8");
      } catch {
        continue;
      }
      added.push(...parseIgnore(text, dirRel));
    }
    return added.length === 0 ? this : new IgnoreMatcher([...this.rules, ...added]);
  }

  /** Add already-parsed rules (e.g. from parent folders, with base ""). */
  with(rules: Rule[]): IgnoreMatcher {
    return rules.length === 0 ? this : new IgnoreMatcher([...this.rules, ...rules]);
  }

  /** `relPath` is `/`-separated, relative to the walk root. */
  ignores(relPath: string, isDir: boolean): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (ignored === !rule.negate) continue; // Cannot change the outcome.
      let sub = relPath;
      if (rule.prefix !== undefined) sub = `${rule.prefix}/${relPath}`;
      else if (rule.base !== "") {
        if (!relPath.startsWith(`${rule.base}/`)) continue;
        sub = relPath.slice(rule.base.length + 1);
      }
      const target = rule.anchored ? sub : sub.slice(sub.lastIndexOf("/") + 1);
      if (rule.regex.test(target)) ignored = !rule.negate;
    }
    return ignored;
  }
}

/** Ignore files read in every folder, in order of increasing precedence (as ripgrep). */
export const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;

/**
 * Rules that apply to a walk rooted at `absRoot` from its ancestors: their ignore files and the
 * repository's `.git/info/exclude`. Ancestor rules are re-based so they apply to paths under the root.
 */
export function ancestorRules(absRoot: string): Rule[] {
  const chain: string[] = [];
  for (let dir = path.dirname(absRoot); ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  const rules: Rule[] = [];
  const rebase = (dir: string, text: string) => {
    // Paths under the root seen from `dir` carry this prefix.
    const prefix = path.relative(dir, absRoot).split(path.sep).join("/");
    for (const rule of parseIgnore(text)) rules.push({ ...rule, prefix });
  };
  let gitRoot: string | undefined;
  for (const dir of [...chain, absRoot]) {
    try {
      readFileSync(path.join(dir, ".git", "HEAD"));
      gitRoot = dir;
    } catch {}
  }
  if (gitRoot) {
    try {
      const text = readFileSync(path.join(gitRoot, ".git", "info", "exclude"), "utf8");
      if (gitRoot === absRoot) rules.push(...parseIgnore(text));
      else rebase(gitRoot, text);
    } catch {}
  }
  for (const dir of chain) {
    for (const name of IGNORE_FILES) {
      try {
        rebase(dir, readFileSync(path.join(dir, name), "utf8"));
      } catch {}
    }
  }
  return rules;
}
