/**
 * pi's ways of naming a session's tools in `createAgentSession` (tool names, `customTools`, `noTools`, a
 * `resourceLoader`), turned into Tiller's AgentTool list, and the system prompt and extension wiring that a
 * resource loader brings.
 */
import type { AgentTool } from "@tiller/agent";
import { wireExtensions } from "../cli/session-setup.js";
import { buildSystemPrompt } from "../context/system-prompt.js";
import { bindExtensionRuntime } from "../extensions/extension-runtime.js";
import { type ToolDefinition, wrapToolDefinition } from "../extensions/tool-definition.js";
import type { ExtensionContext } from "../extensions/types.js";
import type { ResourceLoader } from "../runtime/resource-loader.js";
import { createAllTools } from "../tools/index.js";
import type { AgentSession } from "./agent-session.js";

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
  systemPrompt: string | undefined;
  /** Wires the resource loader's extensions into the created session. */
  bind?: (session: AgentSession) => Promise<void>;
}

export function resolveSessionTools(options: SessionToolOptions, cwd: string): SessionTools {
  if (options.noTools === "all") return { tools: [], systemPrompt: options.systemPrompt };
  const loader = options.resourceLoader;
  const runner = loader?.getExtensions().runner;
  const tools: AgentTool[] = [];
  let builtins: ReturnType<typeof createAllTools> | undefined;
  for (const t of options.tools ?? []) {
    if (typeof t !== "string") {
      tools.push(t as AgentTool);
      continue;
    }
    if (options.noTools === "builtin") continue;
    builtins ??= createAllTools(cwd);
    const tool = builtins[t];
    if (!tool) throw new Error(`unknown tool "${t}" (built-in tools: ${Object.keys(builtins).join(", ")})`);
    tools.push(tool as AgentTool);
  }
  const fallback: ExtensionContext = { cwd, hasUI: false, notify: () => {}, abort: () => {}, isIdle: () => true };
  const context = () => runner?.createContext() ?? fallback;
  for (const def of options.customTools ?? []) tools.push(wrapToolDefinition(def, context) as AgentTool);
  for (const t of runner?.getTools() ?? []) if (!tools.some((x) => x.name === t.name)) tools.push(t);

  let systemPrompt = options.systemPrompt;
  if (systemPrompt === undefined && loader) {
    const base = loader.getSystemPrompt();
    const append = loader.getAppendSystemPrompt();
    systemPrompt = buildSystemPrompt({
      cwd,
      tools,
      contextFiles: loader.getAgentsFiles().agentsFiles,
      skills: loader.getSkills().skills,
      ...(base !== undefined ? { systemPrompt: base } : {}),
      ...(append.length > 0 ? { appendSystemPrompt: append.join("\n\n") } : {}),
    });
  }
  if (!loader || !runner) return { tools, systemPrompt };
  const extensions = loader.getExtensions();
  return {
    tools,
    systemPrompt,
    bind: async (session) => {
      wireExtensions(session, runner, cwd, { hasUI: false });
      bindExtensionRuntime(extensions.runtime, session, tools);
    },
  };
}
