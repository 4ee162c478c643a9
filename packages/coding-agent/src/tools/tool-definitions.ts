/**
 * pi's `create*ToolDefinition(cwd, options)`: the built-in tools as extension ToolDefinitions (same behaviour as
 * `create*Tool`; the extension context argument is not needed by them).
 */
import type { AgentTool } from "@tiller/agent";
import type { TSchema } from "@tiller/ai";
import { type ToolDefinition, toolDefinitionFromAgentTool } from "../extensions/tool-definition.js";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createFindTool, type FindToolOptions } from "./find.js";
import { createGrepTool, type GrepToolOptions } from "./grep.js";
import { createLsTool, type LsToolOptions } from "./ls.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

type Def<F extends (...args: never[]) => unknown> =
  ReturnType<F> extends AgentTool<infer P extends TSchema, infer D> ? ToolDefinition<P, D> : never;

export function createBashToolDefinition(cwd: string, options?: BashToolOptions): Def<typeof createBashTool> {
  return toolDefinitionFromAgentTool(createBashTool(cwd, options));
}
export function createReadToolDefinition(cwd: string, options?: ReadToolOptions): Def<typeof createReadTool> {
  return toolDefinitionFromAgentTool(createReadTool(cwd, options));
}
export function createEditToolDefinition(cwd: string, options?: EditToolOptions): Def<typeof createEditTool> {
  return toolDefinitionFromAgentTool(createEditTool(cwd, options));
}
export function createWriteToolDefinition(cwd: string, options?: WriteToolOptions): Def<typeof createWriteTool> {
  return toolDefinitionFromAgentTool(createWriteTool(cwd, options));
}
export function createGrepToolDefinition(cwd: string, options?: GrepToolOptions): Def<typeof createGrepTool> {
  return toolDefinitionFromAgentTool(createGrepTool(cwd, options));
}
export function createFindToolDefinition(cwd: string, options?: FindToolOptions): Def<typeof createFindTool> {
  return toolDefinitionFromAgentTool(createFindTool(cwd, options));
}
export function createLsToolDefinition(cwd: string, options?: LsToolOptions): Def<typeof createLsTool> {
  return toolDefinitionFromAgentTool(createLsTool(cwd, options));
}
