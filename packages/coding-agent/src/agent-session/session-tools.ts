/**
 * pi's ways of naming a session's tools in `createAgentSession` (tool names, `customTools`, `noTools`, a
 * `resourceLoader`), turned into Tiller's AgentTool list, and the system prompt and extension wiring that a
 * resource loader brings.
 */
import type { AgentTool } from "@tiller/agent";
import { wireExtensions } from "../cli/session-setup.js";
import { buildSystemPrompt } from "../context/system-prompt.js";
import { createSessionContext, type ExtensionContext } from "../extensions/context.js";
import { bindExtensionRuntime } from "../extensions/extension-runtime.js";
import { extensionRunnerOf } from "../extensions/runner.js";
import { type ToolDefinition, wrapToolDefinition } from "../extensions/tool-definition.js";
import { createNoUIContext } from "../extensions/ui-context.js";
import type { ResourceLoader } from "../runtime/resource-loader.js";
import { createAllTools } from "../tools/index.js";
import type { AgentSession } from "./agent-session.js";
import { builtinToolSource, SessionToolRegistry, sdkToolSource } from "./tool-registry.js";

export interface SessionToolOptions {
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  tools?: Array<AgentTool<any> | string>;
  customTools?: ToolDefinition[];
  noTools?: "all" | "builtin";
  resourceLoader?: ResourceLoader;
  systemPrompt?: string;
}

export interface SessionTools {
  tools: AgentTool[];
  /** `tools` with their definitions and sources (pi's `getAllTools`). */
  registry: SessionToolRegistry;
  systemPrompt: string | undefined;
  /** The system prompt for another tool set, when the prompt was built from the resource loader. */
  systemPromptFor?: (tools: readonly AgentTool[]) => string;
  /** Wires the resource loader's extensions into the created session. */
  bind?: (session: AgentSession) => Promise<void>;
}

export function resolveSessionTools(options: SessionToolOptions, cwd: string): SessionTools {
  const registry = new SessionToolRegistry();
  if (options.noTools === "all") return { tools: [], registry, systemPrompt: options.systemPrompt };
  const loader = options.resourceLoader;
  const runner = loader ? extensionRunnerOf(loader.getExtensions()) : undefined;
  const tools: AgentTool[] = [];
  let builtins: ReturnType<typeof createAllTools> | undefined;
  for (const t of options.tools ?? []) {
    if (typeof t !== "string") {
      tools.push(t as AgentTool);
      registry.add(t as AgentTool);
      continue;
    }
    if (options.noTools === "builtin") continue;
    builtins ??= createAllTools(cwd);
    const tool = builtins[t];
    if (!tool) throw new Error(`unknown tool "${t}" (built-in tools: ${Object.keys(builtins).join(", ")})`);
    tools.push(tool as AgentTool);
    registry.add(tool as AgentTool, builtinToolSource(t));
  }
  // Like pi, every built-in tool can be switched on by name once the session names any of them.
  for (const [name, tool] of Object.entries(builtins ?? {}))
    if (!registry.definition(name)) registry.add(tool as AgentTool, builtinToolSource(name));
  // Without extensions the custom tools still get the session's context, once the session exists.
  let own: ExtensionContext | undefined;
  const context = (): ExtensionContext => {
    if (runner) return runner.createContext();
    if (!own) throw new Error("The session of this tool is not created yet.");
    return own;
  };
  for (const def of options.customTools ?? []) {
    const tool = wrapToolDefinition(def, context) as AgentTool;
    tools.push(tool);
    registry.add(tool, sdkToolSource(def.name), def as ToolDefinition);
  }
  for (const t of runner?.getTools() ?? []) if (!tools.some((x) => x.name === t.name)) tools.push(t);
  if (runner) registry.addExtensionTools(runner, tools);

  let systemPrompt = options.systemPrompt;
  let systemPromptFor: ((tools: readonly AgentTool[]) => string) | undefined;
  if (systemPrompt === undefined && loader) {
    const base = loader.getSystemPrompt();
    const append = loader.getAppendSystemPrompt();
    systemPromptFor = (active) =>
      buildSystemPrompt({
        cwd,
        tools: active,
        contextFiles: loader.getAgentsFiles().agentsFiles,
        skills: loader.getSkills().skills,
        ...(base !== undefined ? { systemPrompt: base } : {}),
        ...(append.length > 0 ? { appendSystemPrompt: append.join("\n\n") } : {}),
      });
    systemPrompt = systemPromptFor(tools);
  }
  const prompt = { systemPrompt, ...(systemPromptFor ? { systemPromptFor } : {}) };
  const ui = createNoUIContext();
  if (!loader || !runner)
    return {
      tools,
      registry,
      ...prompt,
      bind: async (session) => {
        own = createSessionContext(session, { cwd, hasUI: false, ui: () => ui });
      },
    };
  const extensions = loader.getExtensions();
  return {
    tools,
    registry,
    ...prompt,
    bind: async (session) => {
      wireExtensions(session, runner, cwd, { hasUI: false });
      // wireExtensions bound the runner's runtime; an `extensionsOverride` may have handed out another one.
      if (extensions.runtime !== runner.runtime) bindExtensionRuntime(extensions.runtime, session);
    },
  };
}
