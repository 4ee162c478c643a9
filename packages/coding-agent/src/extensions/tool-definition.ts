/**
 * pi's tool-definition API for extensions: a `ToolDefinition` is an AgentTool whose `execute` also receives the
 * extension context; `wrapRegisteredTool(s)` turns registered definitions into plain AgentTools bound to a
 * runner's context. Also the type guards pi offers for tool events.
 */
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback } from "@tiller/agent";
import type { Static, TSchema } from "@tiller/ai";
import type { BashToolDetails, BashToolInput } from "../tools/bash.js";
import type { EditToolDetails, EditToolInput } from "../tools/edit.js";
import type { FindToolDetails, FindToolInput } from "../tools/find.js";
import type { GrepToolDetails, GrepToolInput } from "../tools/grep.js";
import type { LsToolDetails, LsToolInput } from "../tools/ls.js";
import type { ReadToolDetails, ReadToolInput } from "../tools/read.js";
import type { WriteToolDetails, WriteToolInput } from "../tools/write.js";
import type { SourceInfo } from "./source-info.js";
import type { ExtensionContext, ExtensionEventMap } from "./types.js";

/** An AgentTool whose `execute` gets the extension context as a fifth argument. */
// biome-ignore lint/suspicious/noExplicitAny: pi's third type parameter (renderer state) defaults to any.
export interface ToolDefinition<TParams extends TSchema = TSchema, TDetails = unknown, _TState = any>
  extends Omit<AgentTool<TParams, TDetails>, "execute"> {
  execute(
    toolCallId: string,
    params: Static<TParams>,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
    ctx: ExtensionContext,
  ): Promise<AgentToolResult<TDetails>>;
  /** One line for the system prompt's tool list. */
  promptSnippet?: string;
  /** Extra guideline bullets for the system prompt. */
  promptGuidelines?: string[];
}

/** A tool definition as an extension registered it, with where it came from. */
export interface RegisteredTool {
  definition: ToolDefinition;
  sourceInfo: SourceInfo;
}

/** Identity: gives an inline tool literal its `ToolDefinition` type (pi's `defineTool`). */
// biome-ignore lint/suspicious/noExplicitAny: mirrors ToolDefinition's defaults.
export function defineTool<TParams extends TSchema, TDetails = unknown, TState = any>(
  tool: ToolDefinition<TParams, TDetails, TState>,
): ToolDefinition<TParams, TDetails, TState> {
  return tool;
}

/** A definition for a plain AgentTool: the same tool, ignoring the extension context. */
export function asDefinition(tool: AgentTool): ToolDefinition {
  const { execute, ...rest } = tool;
  return { ...rest, execute: (id, params, signal, onUpdate) => execute.call(tool, id, params, signal, onUpdate) };
}

/** The AgentTool for `definition`: each call gets the context `createContext` returns at that moment. */
export function wrapToolDefinition<TParams extends TSchema, TDetails>(
  definition: ToolDefinition<TParams, TDetails>,
  createContext: () => ExtensionContext,
): AgentTool<TParams, TDetails> {
  const { execute, promptSnippet: _s, promptGuidelines: _g, ...rest } = definition;
  return {
    ...rest,
    execute: (toolCallId, params, signal, onUpdate) =>
      execute.call(definition, toolCallId, params, signal, onUpdate, createContext()),
  };
}

/** Anything that can hand out the current extension context (an ExtensionRunner). */
export interface ExtensionContextSource {
  createContext(): ExtensionContext;
}

export function wrapRegisteredTool(registeredTool: RegisteredTool, runner: ExtensionContextSource): AgentTool {
  return wrapToolDefinition(registeredTool.definition, () => runner.createContext()) as AgentTool;
}

export function wrapRegisteredTools(registeredTools: RegisteredTool[], runner: ExtensionContextSource): AgentTool[] {
  return registeredTools.map((t) => wrapRegisteredTool(t, runner));
}

/** Makes a ToolDefinition of an AgentTool (the context argument is ignored). */
export function toolDefinitionFromAgentTool<TParams extends TSchema, TDetails>(
  tool: AgentTool<TParams, TDetails>,
): ToolDefinition<TParams, TDetails> {
  return { ...tool, execute: (id, params, signal, onUpdate) => tool.execute(id, params, signal, onUpdate) };
}

export type ToolCallEvent = ExtensionEventMap["tool_call"];

type CallOf<N extends string, I> = ToolCallEvent & { toolName: N; input: I };
export type BashToolCallEvent = CallOf<"bash", BashToolInput>;
export type ReadToolCallEvent = CallOf<"read", ReadToolInput>;
export type EditToolCallEvent = CallOf<"edit", EditToolInput>;
export type WriteToolCallEvent = CallOf<"write", WriteToolInput>;
export type GrepToolCallEvent = CallOf<"grep", GrepToolInput>;
export type FindToolCallEvent = CallOf<"find", FindToolInput>;
export type LsToolCallEvent = CallOf<"ls", LsToolInput>;
/** A call of a tool that is not built in. */
export type CustomToolCallEvent = ToolCallEvent;
export type ToolResultEvent = ExtensionEventMap["tool_result"];

type ResultOf<N extends string, D> = ToolResultEvent & { toolName: N; details: D | undefined };
export type BashToolResultEvent = ResultOf<"bash", BashToolDetails>;
export type ReadToolResultEvent = ResultOf<"read", ReadToolDetails>;
export type EditToolResultEvent = ResultOf<"edit", EditToolDetails>;
export type WriteToolResultEvent = ResultOf<"write", WriteToolDetails>;
export type GrepToolResultEvent = ResultOf<"grep", GrepToolDetails>;
export type FindToolResultEvent = ResultOf<"find", FindToolDetails>;
export type LsToolResultEvent = ResultOf<"ls", LsToolDetails>;

export function isBashToolResult(e: ToolResultEvent): e is BashToolResultEvent {
  return e.toolName === "bash";
}
export function isReadToolResult(e: ToolResultEvent): e is ReadToolResultEvent {
  return e.toolName === "read";
}
export function isEditToolResult(e: ToolResultEvent): e is EditToolResultEvent {
  return e.toolName === "edit";
}
export function isWriteToolResult(e: ToolResultEvent): e is WriteToolResultEvent {
  return e.toolName === "write";
}
export function isGrepToolResult(e: ToolResultEvent): e is GrepToolResultEvent {
  return e.toolName === "grep";
}
export function isFindToolResult(e: ToolResultEvent): e is FindToolResultEvent {
  return e.toolName === "find";
}
export function isLsToolResult(e: ToolResultEvent): e is LsToolResultEvent {
  return e.toolName === "ls";
}

/** Narrows a `tool_call` event to one tool (its `input` typed as `TInput`). */
export function isToolCallEventType<TName extends string, TInput extends Record<string, unknown>>(
  toolName: TName,
  event: ToolCallEvent,
): event is ToolCallEvent & { toolName: TName; input: TInput } {
  return event.toolName === toolName;
}
