import { readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { createSyntheticSourceInfo, type SourceInfo } from "../extensions/source-info.js";
import { parseFrontmatter } from "./frontmatter.js";
import { getProjectTillerDir, resolveTillerHome } from "./paths.js";
import type { Skill } from "./skills.js";

/** A `/name` prompt template loaded from `<dir>/prompts/name.md`. */
export interface PromptTemplate {
  name: string;
  description: string;
  /** Template text (frontmatter removed). */
  content: string;
  filePath: string;
  /** Which of Tiller's folders it was read from (Tiller sets it; pi's templates have only `sourceInfo`). */
  source?: "user" | "project";
  /** Where the template came from, in pi's terms. */
  sourceInfo: SourceInfo;
  /** `argument-hint` from the frontmatter, shown next to the command. */
  argumentHint?: string;
}

export interface LoadPromptTemplatesOptions {
  cwd: string;
  tillerHome?: string;
}

/** Loads templates from `<cwd>/.tiller/prompts` and `<tillerHome>/prompts`; the project one wins on a name clash. */
export function loadPromptTemplates(options: LoadPromptTemplatesOptions): PromptTemplate[] {
  const byName = new Map<string, PromptTemplate>();
  const roots: Array<{ dir: string; source: PromptTemplate["source"] }> = [
    { dir: join(getProjectTillerDir(resolve(options.cwd)), "prompts"), source: "project" },
    { dir: join(options.tillerHome ?? resolveTillerHome(), "prompts"), source: "user" },
  ];
  for (const root of roots) {
    let names: string[];
    try {
      names = readdirSync(root.dir)
        .filter((n) => n.endsWith(".md"))
        .sort();
    } catch {
      continue;
    }
    for (const file of names) {
      const name = basename(file, ".md");
      if (byName.has(name)) continue;
      const filePath = join(root.dir, file);
      let text: string;
      try {
        text = readFileSync(filePath, "utf8");
      } catch {
        continue;
      }
      const fm = parseFrontmatter(text);
      const content = fm.error ? text : fm.body.replace(/^\n+/, "");
      const description = fm.attributes.description ?? firstLine(content);
      const argumentHint = fm.attributes["argument-hint"]?.trim();
      byName.set(name, {
        name,
        description,
        content,
        filePath,
        source: root.source,
        sourceInfo: createSyntheticSourceInfo(filePath, { source: "local", scope: root.source, baseDir: root.dir }),
        ...(argumentHint ? { argumentHint } : {}),
      });
    }
  }
  return [...byName.values()];
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim().length > 0) ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/**
 * Splits command arguments like a shell does, minus expansion: whitespace separates, single or double quotes group.
 */
export function parseCommandArgs(input: string): string[] {
  const args: string[] = [];
  let cur = "";
  let quote: string | undefined;
  let has = false;
  for (const ch of input) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) args.push(cur);
      cur = "";
      has = false;
    } else {
      cur += ch;
    }
  }
  if (has || cur) args.push(cur);
  return args;
}

/**
 * Fills a template: `$1`…`$9` positional, `$@` / `$ARGUMENTS` all arguments joined by spaces,
 * `${@:N}` arguments from the N-th (1-based), `${@:N:L}` L arguments from the N-th. Missing ones become "".
 */
export function substituteArgs(content: string, args: readonly string[]): string {
  return content.replace(/\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)/g, (m, from, len, pos) => {
    if (pos !== undefined) return args[Number(pos) - 1] ?? "";
    if (from !== undefined) {
      const start = Math.max(0, Number(from) - 1);
      return args.slice(start, len !== undefined ? start + Number(len) : undefined).join(" ");
    }
    if (m === "$@" || m === "$ARGUMENTS") return args.join(" ");
    return m;
  });
}

/**
 * Expands `/name args` into the template's text, or `/skill:name args` into the skill's file text plus the
 * arguments. Returns `undefined` when the text is not such a command (the caller sends it unchanged).
 */
export function expandPromptTemplate(
  text: string,
  templates: readonly PromptTemplate[],
  skills: readonly Skill[] = [],
): string | undefined {
  const m = /^\/([A-Za-z0-9_.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const name = m[1]!;
  const rest = m[2] ?? "";
  if (name.startsWith("skill:")) {
    const skill = skills.find((s) => s.name === name.slice(6));
    if (!skill) return undefined;
    let body: string;
    try {
      body = parseFrontmatter(readFileSync(skill.filePath, "utf8")).body.trim();
    } catch {
      return undefined;
    }
    const header = `Use the skill "${skill.name}" (folder: ${skill.baseDir}).\n\n${body}`;
    return rest.trim() ? `${header}\n\nUser: ${rest.trim()}` : header;
  }
  const template = templates.find((t) => t.name === name);
  if (!template) return undefined;
  return substituteArgs(template.content, parseCommandArgs(rest));
}
