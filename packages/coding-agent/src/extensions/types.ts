/**
 * The extension API: a TS or JS module whose default export is `(api: ExtensionAPI) => void | Promise<void>`.
 * Extensions observe session and agent events, may block or rewrite tool calls, rewrite tool results, replace the
 * messages sent to the model, change the system prompt, and add tools and `/commands`.
 */

import type { AgentEvent, AgentMessage, AgentTool, ApprovalRequest } from "@tiller/agent";
import type { ImageContent, TextContent } from "@tiller/ai";
import type { ExecOptions, ExecResult } from "./exec.js";
import type { SourceInfo } from "./source-info.js";

/** Why a session (re)started. */
export type SessionStartReason = "startup" | "new" | "resume" | "fork";

/** Events an extension can only observe, plus those whose handler result changes what happens. */
export interface ExtensionEventMap {
  session_start: { type: "session_start"; reason: SessionStartReason; sessionId?: string };
  session_shutdown: { type: "session_shutdown" };
  /** Raw user input before template expansion; a handler may transform it or handle it entirely. */
  input: { type: "input"; text: string };
  /** Before a run starts: the handler may replace the system prompt for this run. */
  before_agent_start: { type: "before_agent_start"; prompt: string; systemPrompt: string };
  /** Before each model call: the handler may replace the messages sent (the transcript itself is unchanged). */
  context: { type: "context"; messages: AgentMessage[] };
  /** Before a tool runs: the handler may block it or replace its arguments. */
  tool_call: { type: "tool_call"; toolCallId: string; toolName: string; input: Record<string, unknown> };
  /** After a tool ran: the handler may replace its content, details or error flag. */
  tool_result: {
    type: "tool_result";
    toolCallId: string;
    toolName: string;
    input: Record<string, unknown>;
    content: (TextContent | ImageContent)[];
    details: unknown;
    isError: boolean;
  };
  agent_start: Extract<AgentEvent, { type: "agent_start" }>;
  agent_end: Extract<AgentEvent, { type: "agent_end" }>;
  turn_start: Extract<AgentEvent, { type: "turn_start" }>;
  turn_end: Extract<AgentEvent, { type: "turn_end" }>;
  message_start: Extract<AgentEvent, { type: "message_start" }>;
  message_update: Extract<AgentEvent, { type: "message_update" }>;
  message_end: Extract<AgentEvent, { type: "message_end" }>;
  tool_execution_start: Extract<AgentEvent, { type: "tool_execution_start" }>;
  tool_execution_update: Extract<AgentEvent, { type: "tool_execution_update" }>;
  tool_execution_end: Extract<AgentEvent, { type: "tool_execution_end" }>;
  tool_approval_request: Extract<AgentEvent, { type: "tool_approval_request" }>;
  tool_approval_end: Extract<AgentEvent, { type: "tool_approval_end" }>;
}

export type ExtensionEventName = keyof ExtensionEventMap;

/** What a handler may return, per event; `void` for observe-only events. */
export interface ExtensionResultMap {
  input: { action: "continue" } | { action: "transform"; text: string } | { action: "handled" };
  before_agent_start: { systemPrompt?: string };
  context: { messages?: AgentMessage[] };
  /** `requireApproval`: the call waits for a person's decision (the first handler that asks wins). */
  tool_call: { block?: boolean; reason?: string; input?: Record<string, unknown>; requireApproval?: ApprovalRequest };
  tool_result: { content?: (TextContent | ImageContent)[]; details?: unknown; isError?: boolean };
}

export type ExtensionResult<K extends ExtensionEventName> = K extends keyof ExtensionResultMap
  ? ExtensionResultMap[K]
  : undefined;

/** What handlers and commands get besides the event. Set by the host once the session exists. */
export interface ExtensionContext {
  cwd: string;
  /** True in the interactive terminal UI. */
  hasUI: boolean;
  /** Shows a message to the user (stderr line, TUI notice, or an RPC event). */
  notify(message: string, level?: "info" | "warning" | "error"): void;
  /** Aborts the current run, if any. */
  abort(): void;
  /** True when no run is in progress. */
  isIdle(): boolean;
}

export type ExtensionHandler<K extends ExtensionEventName> = (
  event: ExtensionEventMap[K],
  ctx: ExtensionContext,
) => ExtensionResult<K> | undefined | Promise<ExtensionResult<K> | undefined>;

/** A `/name args` command added by an extension. */
export interface ExtensionCommand {
  description?: string;
  handler: (args: string, ctx: ExtensionContext) => void | Promise<void>;
}

/** The object an extension's factory receives. */
export interface ExtensionAPI {
  /** The folder the CLI runs in. */
  readonly cwd: string;
  on<K extends ExtensionEventName>(event: K, handler: ExtensionHandler<K>): void;
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  registerTool(tool: AgentTool<any>): void;
  registerCommand(name: string, command: ExtensionCommand): void;
  /** Runs a program (no shell) in `options.cwd` or the extension's cwd; see `execCommand`. */
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
}

/** The module shape the loader accepts: a default-exported (or module-level) factory. */
export type ExtensionFactory = (api: ExtensionAPI) => void | Promise<void>;

/** A problem with an extension: failed to load, factory threw, or a handler threw. Reported, never fatal. */
export interface ExtensionError {
  /** Path of the extension module (or "<inline>"). */
  extension: string;
  /** Event or phase: "load", a handler's event name, or "command:/name". */
  phase: string;
  message: string;
}

export type { ExecOptions, ExecResult } from "./exec.js";

// ---- pi's names for the event and result shapes above ----

export type { AgentToolResult, AgentToolUpdateCallback, ToolExecutionMode } from "@tiller/agent";

/** Any event an extension can receive. */
export type ExtensionEvent = ExtensionEventMap[ExtensionEventName];
export type SessionStartEvent = ExtensionEventMap["session_start"];
export type SessionShutdownEvent = ExtensionEventMap["session_shutdown"];
export type InputEvent = ExtensionEventMap["input"];
export type InputEventResult = ExtensionResultMap["input"];
export type BeforeAgentStartEvent = ExtensionEventMap["before_agent_start"];
export type BeforeAgentStartEventResult = ExtensionResultMap["before_agent_start"];
export type ContextEvent = ExtensionEventMap["context"];
export type ToolCallEventResult = ExtensionResultMap["tool_call"];
export type AgentStartEvent = ExtensionEventMap["agent_start"];
export type AgentEndEvent = ExtensionEventMap["agent_end"];
export type TurnStartEvent = ExtensionEventMap["turn_start"];
export type TurnEndEvent = ExtensionEventMap["turn_end"];

/** A `/command` as an extension registered it (pi's name), with the extension file it came from. */
export type RegisteredCommand = ExtensionCommand & { name: string; sourceInfo: SourceInfo };
/** A registered command with the name that invokes it (pi's; Tiller invokes a command by its own name). */
export type ResolvedCommand = RegisteredCommand & { invocationName: string };
