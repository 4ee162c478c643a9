/**
 * The resource loader of a session built without one (`AgentSession.resourceLoader`, which pi's sessions always
 * have). Such a session's host supplies what a loader would (the CLI loads extensions and context itself, an
 * embedder passes its system prompt and tools), so this loader reads nothing from disk: skills, prompt
 * templates, themes and context files are empty, and its extensions are the ones the session runs (its
 * runner's, which a host may replace with `useExtensionHooks`).
 */
import type { PromptTemplate } from "../context/prompt-templates.js";
import type { Skill } from "../context/skills.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import {
  type LoadedExtensions,
  loadedExtensionsOf,
  type ResourceDiagnostic,
  type ResourceLoader,
} from "../runtime/resource-loader.js";

export class EmptyResourceLoader implements ResourceLoader {
  /** `runner`: the session's current extension runner. */
  constructor(private readonly runner: () => ExtensionRunner) {}

  /** The session's extensions, the errors met loading them and their runtime. */
  getExtensions(): LoadedExtensions {
    return loadedExtensionsOf(this.runner());
  }
  // Fresh objects each time: a caller that edits what it got changes nothing for the next one.
  getSkills(): { skills: Skill[]; diagnostics: ResourceDiagnostic[] } {
    return { skills: [], diagnostics: [] };
  }
  getPrompts(): { prompts: PromptTemplate[]; diagnostics: ResourceDiagnostic[] } {
    return { prompts: [], diagnostics: [] };
  }
  getThemes(): ReturnType<ResourceLoader["getThemes"]> {
    return { themes: [], diagnostics: [] };
  }
  getAgentsFiles(): { agentsFiles: Array<{ path: string; content: string }> } {
    return { agentsFiles: [] };
  }
  getSystemPrompt(): string | undefined {
    return undefined;
  }
  getAppendSystemPrompt(): string[] {
    return [];
  }
  /** Reads nothing: the session's resources come from its host, not from folders. */
  extendResources(): void {}
  /** Nothing to read again. */
  async reload(): Promise<void> {}
}
