/**
 * Skills for gateway sessions: SKILL.md folders from `<workspace>/.tiller/skills`, `<workspace>/skills`,
 * `$TILLER_HOME/skills` and `skills.load.extraDirs` (earlier wins on a name clash), loaded with coding-agent's
 * loader. A snapshot is taken when a session starts and reused for every turn, so a skill edited mid-session does
 * not change the prompt (and its cache) until the next session. `skills.entries.<name>.env` from tiller.json is the
 * environment a skill needs; it is injected into the run's tool environment.
 */
import { join, resolve } from "node:path";
import { formatSkillsForPrompt, loadSkills, type Skill, type SkillDiagnostic } from "@tiller/coding-agent";

export const DEFAULT_MAX_SKILLS_IN_PROMPT = 150;
export const DEFAULT_MAX_SKILLS_PROMPT_CHARS = 30_000;

/** Skills as frozen at session start. */
export interface SkillsSnapshot {
  skills: readonly Skill[];
  /** The prompt section (may list fewer skills than `skills` when capped). */
  prompt: string;
  /** Skills left out of the prompt by the count/size caps. */
  droppedFromPrompt: string[];
  /** Environment variables of the snapshot's skills (`skills.entries.<name>.env`). */
  env: Readonly<Record<string, string>>;
  diagnostics: readonly SkillDiagnostic[];
  takenAt: number;
}

export interface SkillsSnapshotOptions {
  workspaceDir: string;
  home: string;
  /** The raw tiller.json object (`skills.load.extraDirs`, `skills.entries`, `skills.allow`). */
  config?: Record<string, unknown>;
  /** Per-agent allowlist: a list keeps only those names; `[]` means none; undefined means all. */
  allow?: readonly string[];
  maxSkillsInPrompt?: number;
  maxPromptChars?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function takeSkillsSnapshot(options: SkillsSnapshotOptions): SkillsSnapshot {
  const cfg = isObj(options.config?.skills) ? (options.config?.skills as Obj) : {};
  const load = isObj(cfg.load) ? cfg.load : {};
  const extra = Array.isArray(load.extraDirs)
    ? load.extraDirs.filter((d): d is string => typeof d === "string").map((d) => resolve(options.home, d))
    : [];
  // coding-agent's loader reads `<cwd>/.tiller/skills`, then `<tillerHome>/skills`, then extra paths: passing the
  // workspace as "home" makes `<workspace>/skills` the second root and $TILLER_HOME/skills the next.
  const { skills: all, diagnostics } = loadSkills({
    cwd: options.workspaceDir,
    tillerHome: options.workspaceDir,
    extraPaths: [join(options.home, "skills"), ...extra],
  });
  const allow = options.allow;
  const skills = allow ? all.filter((s) => allow.includes(s.name)) : all;

  const maxCount = options.maxSkillsInPrompt ?? DEFAULT_MAX_SKILLS_IN_PROMPT;
  const maxChars = options.maxPromptChars ?? DEFAULT_MAX_SKILLS_PROMPT_CHARS;
  let listed = skills.slice(0, maxCount);
  let prompt = formatSkillsForPrompt(listed);
  // Drop from the end until the section fits (a skill list is a prefix of the stable, sorted order).
  while (listed.length > 0 && prompt.length > maxChars) {
    listed = listed.slice(0, Math.max(0, Math.floor(listed.length * 0.9)));
    prompt = formatSkillsForPrompt(listed);
  }
  const listedNames = new Set(listed.map((s) => s.name));
  const droppedFromPrompt = skills.filter((s) => !listedNames.has(s.name)).map((s) => s.name);

  const entries = isObj(cfg.entries) ? cfg.entries : {};
  const env: Record<string, string> = {};
  for (const s of skills) {
    const entry = entries[s.name];
    if (!isObj(entry) || !isObj(entry.env)) continue;
    for (const [k, v] of Object.entries(entry.env)) if (typeof v === "string") env[k] = v;
  }
  return { skills, prompt, droppedFromPrompt, env, diagnostics, takenAt: Date.now() };
}

/**
 * Runs `fn` with the snapshot's env applied to `process.env`, restoring every touched variable afterwards
 * (even when `fn` throws). For tools that read process.env directly; prefer passing `snapshot.env` to exec.
 */
export async function withSkillEnv<T>(env: Readonly<Record<string, string>>, fn: () => Promise<T>): Promise<T> {
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(env)) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
