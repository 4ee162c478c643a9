/**
 * pi's `ResourceLoader`: everything a session loads from disk besides the session itself (extensions, skills,
 * prompt templates, context files, system prompt overrides), loaded once by `reload()` and then read
 * synchronously. `DefaultResourceLoader` reads Tiller's folders (`<agentDir>/…` and `<cwd>/.tiller/…`).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Theme } from "../cli/tui/pi/theme.js";
import { loadContextFiles } from "../context/context-files.js";
import { loadPromptTemplates, type PromptTemplate } from "../context/prompt-templates.js";
import { loadSkills, type Skill } from "../context/skills.js";
import type { EventBus } from "../event-bus.js";
import type { LoadExtensionsResult } from "../extensions/extension-runtime.js";
import { loadExtensions } from "../extensions/loader.js";
import { type ExtensionRunner, extensionRunnerOf } from "../extensions/runner.js";
import type { ExtensionFactory } from "../extensions/types.js";
import { getTillerHome } from "../home.js";
import type { SettingsManager } from "../settings/settings-manager.js";

/** A problem found while loading a resource; never fatal. */
export interface ResourceDiagnostic {
  type: "warning" | "error" | "collision";
  message: string;
  path?: string;
  collision?: ResourceCollision;
}

/** Two resources of one kind with the same name: the winner is used. */
export interface ResourceCollision {
  resourceType: "extension" | "skill" | "prompt" | "theme";
  name: string;
  winnerPath: string;
  loserPath: string;
}

type AgentsFile = { path: string; content: string };
type Diagnosed<K extends string, T> = { [P in K]: T[] } & { diagnostics: ResourceDiagnostic[] };

export interface ResourceExtensionPaths {
  skillPaths?: Array<{ path: string; metadata?: unknown }>;
  promptPaths?: Array<{ path: string; metadata?: unknown }>;
  themePaths?: Array<{ path: string; metadata?: unknown }>;
}

/** What Tiller's loaders return: the result with its runner. */
export type LoadedExtensions = LoadExtensionsResult & { runner: ExtensionRunner };

/** pi's result of loading the extensions `runner` dispatches to (with the runner). */
export function loadedExtensionsOf(runner: ExtensionRunner): LoadedExtensions {
  return {
    extensions: [...runner.extensions],
    errors: runner.loadErrors.map((e) => ({ path: e.extensionPath, error: e.error })),
    runtime: runner.runtime,
    runner,
  };
}

export interface ResourceLoader {
  getExtensions(): LoadExtensionsResult;
  getSkills(): Diagnosed<"skills", Skill>;
  getPrompts(): Diagnosed<"prompts", PromptTemplate>;
  /** Terminal themes (pi's Theme class): Tiller loads none from disk (its UI has one look); `themesOverride` may add. */
  getThemes(): Diagnosed<"themes", Theme>;
  getAgentsFiles(): { agentsFiles: AgentsFile[] };
  getSystemPrompt(): string | undefined;
  getAppendSystemPrompt(): string[];
  extendResources(paths: ResourceExtensionPaths): void;
  reload(): Promise<void>;
}

export interface DefaultResourceLoaderOptions {
  cwd: string;
  /** Tiller home (pi's agent dir). */
  agentDir: string;
  settingsManager?: SettingsManager;
  eventBus?: EventBus;
  additionalExtensionPaths?: string[];
  additionalSkillPaths?: string[];
  additionalPromptTemplatePaths?: string[];
  additionalThemePaths?: string[];
  extensionFactories?: ExtensionFactory[];
  noExtensions?: boolean;
  noSkills?: boolean;
  noPromptTemplates?: boolean;
  noThemes?: boolean;
  noContextFiles?: boolean;
  /** Replaces the base system prompt (text, or a path to a file holding it). */
  systemPrompt?: string;
  appendSystemPrompt?: string[];
  extensionsOverride?: (base: LoadExtensionsResult) => LoadExtensionsResult;
  skillsOverride?: (base: Diagnosed<"skills", Skill>) => Diagnosed<"skills", Skill>;
  promptsOverride?: (base: Diagnosed<"prompts", PromptTemplate>) => Diagnosed<"prompts", PromptTemplate>;
  themesOverride?: (base: Diagnosed<"themes", Theme>) => Diagnosed<"themes", Theme>;
  agentsFilesOverride?: (base: { agentsFiles: AgentsFile[] }) => { agentsFiles: AgentsFile[] };
  systemPromptOverride?: (base: string | undefined) => string | undefined;
  appendSystemPromptOverride?: (base: string[]) => string[];
}

function textOrFile(value: string, cwd: string): string {
  if (value.includes("\n") || value.length > 4096) return value;
  const p = resolve(cwd, value);
  try {
    return existsSync(p) ? readFileSync(p, "utf8") : value;
  } catch {
    return value;
  }
}

export class DefaultResourceLoader implements ResourceLoader {
  private extensions: LoadedExtensions | undefined;
  private skills: Diagnosed<"skills", Skill> = { skills: [], diagnostics: [] };
  private prompts: Diagnosed<"prompts", PromptTemplate> = { prompts: [], diagnostics: [] };
  private themes: Diagnosed<"themes", Theme> = { themes: [], diagnostics: [] };
  private agentsFiles: { agentsFiles: AgentsFile[] } = { agentsFiles: [] };
  private systemPrompt: string | undefined;
  private appendSystemPrompt: string[] = [];
  private readonly extraSkillPaths: string[];

  constructor(private readonly options: DefaultResourceLoaderOptions) {
    this.extraSkillPaths = [...(options.additionalSkillPaths ?? [])];
  }

  /** Reads everything again from disk (and re-runs the extension factories). */
  async reload(): Promise<void> {
    const o = this.options;
    const cwd = resolve(o.cwd);
    const home = o.agentDir || getTillerHome();
    const runner = await loadExtensions({
      cwd,
      tillerHome: home,
      paths: o.additionalExtensionPaths ?? [],
      noDiscovery: o.noExtensions === true,
      factories: (o.extensionFactories ?? []).map((factory, i) => ({ name: `<factory ${i + 1}>`, factory })),
      ...(o.eventBus ? { eventBus: o.eventBus } : {}),
    });
    const extensions: LoadExtensionsResult = loadedExtensionsOf(runner);
    const chosen = o.extensionsOverride ? o.extensionsOverride(extensions) : extensions;
    // An override may build its result as pi's (without a runner): it gets one here, as the session would.
    extensionRunnerOf(chosen);
    this.extensions = chosen as LoadedExtensions;

    this.loadSkillSet(cwd, home);

    const prompts = {
      prompts: o.noPromptTemplates ? [] : loadPromptTemplates({ cwd, tillerHome: home }),
      diagnostics: [],
    };
    this.prompts = o.promptsOverride ? o.promptsOverride(prompts) : prompts;
    const themes = { themes: [], diagnostics: [] };
    this.themes = o.themesOverride ? o.themesOverride(themes) : themes;

    const agentsFiles = { agentsFiles: o.noContextFiles ? [] : loadContextFiles({ cwd, tillerHome: home }) };
    this.agentsFiles = o.agentsFilesOverride ? o.agentsFilesOverride(agentsFiles) : agentsFiles;

    const system = o.systemPrompt !== undefined ? textOrFile(o.systemPrompt, cwd) : undefined;
    this.systemPrompt = o.systemPromptOverride ? o.systemPromptOverride(system) : system;
    const append = (o.appendSystemPrompt ?? []).map((a) => textOrFile(a, cwd));
    this.appendSystemPrompt = o.appendSystemPromptOverride ? o.appendSystemPromptOverride(append) : append;
  }

  getExtensions(): LoadedExtensions {
    if (!this.extensions) throw new Error("DefaultResourceLoader: call reload() before reading extensions");
    return this.extensions;
  }
  getSkills(): Diagnosed<"skills", Skill> {
    return this.skills;
  }
  getPrompts(): Diagnosed<"prompts", PromptTemplate> {
    return this.prompts;
  }
  getThemes(): Diagnosed<"themes", Theme> {
    return this.themes;
  }
  getAgentsFiles(): { agentsFiles: AgentsFile[] } {
    return this.agentsFiles;
  }
  getSystemPrompt(): string | undefined {
    return this.systemPrompt;
  }
  getAppendSystemPrompt(): string[] {
    return this.appendSystemPrompt;
  }
  /**
   * Adds skill folders and reads the skills again at once (prompt and theme paths are accepted; Tiller reads
   * prompts from its folders only). The folders stay for later reloads.
   */
  extendResources(paths: ResourceExtensionPaths): void {
    const added = (paths.skillPaths ?? []).filter((p) => !this.extraSkillPaths.includes(p.path));
    if (added.length === 0) return;
    for (const p of added) this.extraSkillPaths.push(p.path);
    this.loadSkillSet(resolve(this.options.cwd), this.options.agentDir || getTillerHome());
  }

  private loadSkillSet(cwd: string, home: string): void {
    const o = this.options;
    const loadedSkills = o.noSkills
      ? { skills: [], diagnostics: [] }
      : loadSkills({ cwd, tillerHome: home, extraPaths: this.extraSkillPaths });
    const skills = {
      skills: loadedSkills.skills,
      diagnostics: loadedSkills.diagnostics.map(
        (d): ResourceDiagnostic => ({ type: d.severity, message: d.message, path: d.path }),
      ),
    };
    this.skills = o.skillsOverride ? o.skillsOverride(skills) : skills;
  }
}
