/** The CLI modes' view of an SDK runtime (print, rpc and the interactive UI run on it). */
import type { CliSetup } from "../cli/session-setup.js";
import { extensionRunnerOf } from "../extensions/runner.js";
import type { AgentSessionRuntime } from "./agent-session-runtime.js";

/** The CLI's view of a runtime's session: its extensions, templates and skills come from the resource loader. */
export function setupOf(runtime: AgentSessionRuntime): CliSetup {
  const loader = runtime.services.resourceLoader;
  return {
    session: runtime.session,
    extensions: extensionRunnerOf(loader.getExtensions()),
    templates: loader.getPrompts().prompts,
    skills: loader.getSkills().skills,
    modelRegistry: runtime.services.modelRegistry,
    baseSystemPrompt: runtime.session.agent.state.systemPrompt,
    promptSources: {
      cwd: runtime.services.cwd,
      contextFiles: loader.getAgentsFiles().agentsFiles,
      skills: loader.getSkills().skills,
    },
    offline: false,
    notes: [],
  };
}
