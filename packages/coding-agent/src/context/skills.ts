import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createSyntheticSourceInfo, type SourceInfo } from "../extensions/source-info.js";
import { escapeMarkup } from "../util/escape-markup.js";
import { parseFrontmatter } from "./frontmatter.js";
import { getProjectTillerDir, resolveTillerHome } from "./paths.js";

/** A skill found on disk. Only `name` and `description` go into the system prompt; the model reads the file on demand. */
/**
 * The frontmatter keys of a SKILL.md (pi's shape): `name` (default: the folder's name), `description` (required),
 * `disable-model-invocation` (only the user can invoke the skill); other keys are kept and ignored.
 */
export interface SkillFrontmatter {
  name?: string;
  description?: string;
  "disable-model-invocation"?: boolean;
  [key: string]: unknown;
}

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of the SKILL.md file. */
  filePath: string;
  /** Folder holding the skill (relative paths inside SKILL.md resolve against it). */
  baseDir: string;
  /**
   * Which of Tiller's folders it was read from (Tiller sets it; a skill a program builds as pi's has none, its
   * `sourceInfo.scope` tells the same).
   */
  source?: "user" | "project" | "path";
  /** Where the skill came from, in pi's terms. */
  sourceInfo: SourceInfo;
  /** `disable-model-invocation: true` in the frontmatter: only the user can invoke it; not listed to the model. */
  disableModelInvocation: boolean;
}

/** A skill that was skipped, or a soft problem with one that was kept. Never fatal. */
export interface SkillDiagnostic {
  path: string;
  message: string;
  severity: "error" | "warning";
  /** Same as `severity` (pi's ResourceDiagnostic field). */
  type: "error" | "warning";
}

function diag(path: string, severity: SkillDiagnostic["severity"], message: string): SkillDiagnostic {
  return { path, message, severity, type: severity };
}

export interface LoadSkillsResult {
  skills: Skill[];
  diagnostics: SkillDiagnostic[];
}

export interface LoadSkillsOptions {
  cwd: string;
  tillerHome?: string;
  /** Extra skill folders or SKILL.md files (e.g. from settings). */
  extraPaths?: string[];
}

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_DEPTH = 6;

/** pi's `loadSkillsFromDir` options: one skills root, and the source name its skills are tagged with. */
export interface LoadSkillsFromDirOptions {
  dir: string;
  source: string;
}

/**
 * Loads the skills of one root folder (pi's API): folders with a SKILL.md (found recursively) and `.md` files
 * directly in it. A missing folder yields none; invalid skills are reported in `diagnostics`. The first of two
 * skills with one name wins (the other is reported).
 */
export function loadSkillsFromDir(options: LoadSkillsFromDirOptions): LoadSkillsResult {
  const diagnostics: SkillDiagnostic[] = [];
  const byName = new Map<string, Skill>();
  const source: Skill["source"] = options.source === "user" || options.source === "project" ? options.source : "path";
  for (const file of discover(resolve(options.dir))) {
    const skill = readSkill(file, source, diagnostics, options.source);
    if (!skill) continue;
    if (byName.has(skill.name)) {
      diagnostics.push(diag(file, "warning", `duplicate skill name "${skill.name}": ignored`));
      continue;
    }
    byName.set(skill.name, skill);
  }
  return { skills: [...byName.values()], diagnostics };
}

/** A `/skill:name` expansion as it appears in a user message (pi's format), split back into its parts. */
export interface ParsedSkillBlock {
  name: string;
  location: string;
  content: string;
  /** Text the user wrote after the skill invocation, if any. */
  userMessage: string | undefined;
}

const SKILL_BLOCK_RE = /^<skill name="([^"]+)" location="([^"]+)">\n([\s\S]*?)\n<\/skill>(?:\n\n([\s\S]+))?$/;

/** Parses `<skill name=".." location="..">\n…\n</skill>` (optionally followed by a blank line and text), or null. */
export function parseSkillBlock(text: string): ParsedSkillBlock | null {
  const m = SKILL_BLOCK_RE.exec(text);
  if (!m) return null;
  return {
    name: m[1] as string,
    location: m[2] as string,
    content: m[3] as string,
    userMessage: m[4]?.trim() || undefined,
  };
}

/**
 * Loads skills from `<cwd>/.tiller/skills` (project, wins on a name clash) and `<tillerHome>/skills` (user).
 * A skill is a folder with a SKILL.md (found recursively), or a `.md` file directly in a skills root.
 * Invalid skills (missing or bad name/description, unreadable, unclosed frontmatter) are reported, not loaded.
 */
export function loadSkills(options: LoadSkillsOptions): LoadSkillsResult {
  const diagnostics: SkillDiagnostic[] = [];
  const byName = new Map<string, Skill>();
  const roots: Array<{ dir: string; source: Skill["source"] }> = [
    { dir: join(getProjectTillerDir(resolve(options.cwd)), "skills"), source: "project" },
    { dir: join(options.tillerHome ?? resolveTillerHome(), "skills"), source: "user" },
    ...(options.extraPaths ?? []).map((p) => ({ dir: resolve(options.cwd, p), source: "path" as const })),
  ];
  for (const root of roots) {
    for (const file of discover(root.dir)) {
      const skill = readSkill(file, root.source, diagnostics);
      if (!skill) continue;
      const existing = byName.get(skill.name);
      if (existing) {
        diagnostics.push(
          diag(file, "warning", `skill "${skill.name}" is also defined in ${existing.filePath}; that one is kept`),
        );
        continue;
      }
      byName.set(skill.name, skill);
    }
  }
  return { skills: [...byName.values()], diagnostics };
}

/** SKILL.md files under `root` (recursively), plus plain `.md` files directly in it. */
function discover(root: string): string[] {
  if (root.endsWith(".md")) return [root];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    const skillMd = entries.find((e) => e.name === "SKILL.md" && !e.isDirectory());
    if (skillMd && depth > 0) {
      // A skill folder's own subfolders (scripts/, references/) are its assets, not more skills.
      out.push(join(dir, skillMd.name));
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const full = join(dir, e.name);
      if (e.isDirectory() || e.isSymbolicLink()) {
        if (depth < MAX_DEPTH) walk(full, depth + 1);
      } else if (depth === 0 && e.name.endsWith(".md")) {
        out.push(full);
      }
    }
  };
  walk(root, 0);
  return out;
}

function readSkill(
  file: string,
  source: Skill["source"],
  diagnostics: SkillDiagnostic[],
  sourceLabel = "local",
): Skill | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    diagnostics.push(diag(file, "error", `cannot read: ${(err as Error).message}`));
    return undefined;
  }
  const fm = parseFrontmatter(text);
  if (fm.error) {
    diagnostics.push(diag(file, "error", fm.error));
    return undefined;
  }
  const isSkillMd = basename(file) === "SKILL.md";
  const fallbackName = isSkillMd ? basename(dirname(file)) : basename(file, ".md");
  const name = (fm.attributes.name ?? "").trim() || fallbackName;
  const description = (fm.attributes.description ?? "").trim();
  if (!description) {
    diagnostics.push(diag(file, "error", "missing `description` in frontmatter; skill skipped"));
    return undefined;
  }
  if (!NAME_RE.test(name) || name.length > MAX_NAME) {
    diagnostics.push(
      diag(
        file,
        "error",
        `invalid skill name "${name}": use lowercase letters, digits and single hyphens (max ${MAX_NAME})`,
      ),
    );
    return undefined;
  }
  if (description.length > MAX_DESCRIPTION) {
    diagnostics.push(
      diag(file, "warning", `description is ${description.length} characters (limit ${MAX_DESCRIPTION})`),
    );
  }
  if (isSkillMd && fm.attributes.name && name !== fallbackName) {
    diagnostics.push(diag(file, "warning", `skill name "${name}" differs from its folder name "${fallbackName}"`));
  }
  const scope = source === "path" ? "temporary" : source;
  return {
    name,
    description,
    filePath: file,
    baseDir: dirname(file),
    source,
    sourceInfo: createSyntheticSourceInfo(file, { source: sourceLabel, scope, baseDir: dirname(file) }),
    disableModelInvocation: fm.attributes["disable-model-invocation"]?.trim() === "true",
  };
}

/** Escapes text for the XML skill list in the system prompt. */
const xml = escapeMarkup;

/** The system-prompt section listing skills; empty when there are none. */
export function formatSkillsForPrompt(all: readonly Skill[]): string {
  // A skill the model may not invoke is left out of its list (the user can still call it with /skill:name).
  const skills = all.filter((s) => !s.disableModelInvocation);
  if (skills.length === 0) return "";
  const lines = [
    "The following skills provide specialised instructions for specific tasks.",
    "When a task matches a skill's description, use the read tool to load its file before acting;",
    "relative paths inside a skill resolve against the skill's folder.",
    "",
    "<available_skills>",
  ];
  for (const s of skills) {
    lines.push("  <skill>");
    lines.push(`    <name>${xml(s.name)}</name>`);
    lines.push(`    <description>${xml(s.description)}</description>`);
    lines.push(`    <location>${xml(s.filePath)}</location>`);
    lines.push("  </skill>");
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
