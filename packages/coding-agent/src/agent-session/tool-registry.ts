/**
 * Every tool a session can use, active or not (pi's tool registry): the AgentTool, its pi-style definition and
 * where it came from. `setActiveToolsByName` picks from it; tools outside it cannot be switched on by name.
 */
import type { AgentTool } from "@tiller/agent";
import type { ExtensionRunner } from "../extensions/runner.js";
import { createSyntheticSourceInfo, type SourceInfo } from "../extensions/source-info.js";
import { asDefinition, type ToolDefinition } from "../extensions/tool-definition.js";

/** A tool as `AgentSession.getAllTools` lists it. */
export type ToolInfo = Pick<ToolDefinition, "name" | "description" | "parameters"> & { sourceInfo: SourceInfo };

interface Entry {
  tool: AgentTool;
  definition: ToolDefinition;
  sourceInfo: SourceInfo;
}

/** pi's labels: built-in tools `<builtin:name>`, tools handed over by the program `<sdk:name>`. */
export function builtinToolSource(name: string): SourceInfo {
  return createSyntheticSourceInfo(`<builtin:${name}>`, { source: "builtin" });
}
export function sdkToolSource(name: string): SourceInfo {
  return createSyntheticSourceInfo(`<sdk:${name}>`, { source: "sdk" });
}

export class SessionToolRegistry {
  private readonly byName = new Map<string, Entry>();

  /** Adds (or replaces) `tool`; without a source it counts as the program's (`sdk`). */
  add(tool: AgentTool, sourceInfo?: SourceInfo, definition?: ToolDefinition): void {
    this.byName.set(tool.name, {
      tool,
      definition: definition ?? asDefinition(tool),
      sourceInfo: sourceInfo ?? sdkToolSource(tool.name),
    });
  }
  /** Forgets the tool `name` (it can no longer be switched on by name). */
  remove(name: string): void {
    this.byName.delete(name);
  }
  /** Adds the extensions' tools found in `among` (default: those `runner` hands the agent), each with its extension as source. */
  addExtensionTools(runner: ExtensionRunner, among: readonly AgentTool[] = runner.getTools()): void {
    const handed = new Set(among);
    for (const ext of runner.extensions) {
      for (const t of runner.toolsOf(ext)) if (handed.has(t)) this.add(t, ext.sourceInfo);
    }
  }
  /** Adds the tools not known yet, as the program's. */
  addMissing(tools: readonly AgentTool[]): void {
    for (const t of tools) if (!this.byName.has(t.name)) this.add(t);
  }
  infos(): ToolInfo[] {
    return [...this.byName.values()].map(({ definition, sourceInfo }) => ({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
      sourceInfo,
    }));
  }
  definition(name: string): ToolDefinition | undefined {
    return this.byName.get(name)?.definition;
  }
  /** The known tools among `names`, in that order; unknown names are skipped. */
  pick(names: readonly string[]): AgentTool[] {
    return names.flatMap((n) => {
      const e = this.byName.get(n);
      return e ? [e.tool] : [];
    });
  }
}
