/**
 * The extension API: a TS or JS module whose default export is `(api: ExtensionAPI) => void | Promise<void>`.
 * Extensions observe session and agent events, may block or rewrite tool calls, rewrite tool results, replace the
 * messages sent to the model, change the system prompt, and add tools and `/commands`.
 */

import type { KeyId } from "@mariozechner/pi-tui";
import type { AgentEvent, AgentMessage, ApprovalRequest, ThinkingLevel } from "@tiller/agent";
import type { ImageContent, Model, TextContent, TSchema } from "@tiller/ai";
import type { BashResult } from "../agent-session/user-bash.js";
import type { MessageRenderer } from "../cli/tui/pi/types.js";
import type { CompactionResult } from "../compaction/compact.js";
import type { CompactionPreparation } from "../compaction/entry-compaction.js";
import type { ContextFile } from "../context/context-files.js";
import type { Skill } from "../context/skills.js";
import type { EventBus } from "../event-bus.js";
import type { ExtensionProviderConfig } from "../models/models-json.js";
import type { BranchSummaryEntry, CompactionEntry, SessionEntry } from "../session/types.js";
import type { BashOperations } from "../tools/bash.js";
import type { ExtensionCommandContext, ExtensionContext } from "./context.js";
import type { ExecOptions, ExecResult } from "./exec.js";
import type { ExtensionActions } from "./extension-runtime.js";
import type { SourceInfo } from "./source-info.js";
import type { ToolDefinition } from "./tool-definition.js";

/** What a move in the session tree is about to do (the `session_before_tree` event's `preparation`). */
export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  /** The entries of the branch being left, below the common ancestor. */
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

/** Where user input came from: the terminal UI (and print mode), an RPC client, or an extension. */
export type InputSource = "interactive" | "rpc" | "extension";

/** Why a session (re)started (`reload`: `AgentSession.reload` re-ran the extensions). */
export type SessionStartReason = "startup" | "reload" | "new" | "resume" | "fork";

/** What a session's system prompt was built from, in the shape of pi's `BuildSystemPromptOptions`. */
export interface SystemPromptSources {
  cwd: string;
  /** The prompt that replaced the built-in base prompt (`--system-prompt`), if any. */
  customPrompt?: string;
  /** Names of the active tools. */
  selectedTools?: string[];
  appendSystemPrompt?: string;
  contextFiles?: ContextFile[];
  /** The loaded skills (Tiller's also say where they came from, `source`; pi's do not). */
  skills?: Array<Omit<Skill, "source"> & Partial<Pick<Skill, "source">>>;
}

/** Events an extension can only observe, plus those whose handler result changes what happens. */
export interface ExtensionEventMap {
  /**
   * After the session started or reloaded, before `session_start`: a handler may name more skill, prompt and
   * theme folders (Tiller reads the skill folders; its prompts and themes come from its own folders).
   */
  resources_discover: { type: "resources_discover"; cwd: string; reason: "startup" | "reload" };
  session_start: { type: "session_start"; reason: SessionStartReason; sessionId?: string };
  /** The session ends: the program quits, or the session is replaced (`targetSessionFile`: where it continues). */
  session_shutdown: {
    type: "session_shutdown";
    reason: "quit" | "reload" | "new" | "resume" | "fork";
    targetSessionFile?: string;
  };
  /** Before the session is replaced by a new one or another file: a handler may cancel. */
  session_before_switch: { type: "session_before_switch"; reason: "new" | "resume"; targetSessionFile?: string };
  /** Before a fork: a handler may cancel. */
  session_before_fork: { type: "session_before_fork"; entryId: string; position: "before" | "at" };
  /**
   * Before a compaction (manual, at the threshold or after an overflow): a handler may cancel it or supply the
   * compaction itself (its summary is then written instead of asking the model).
   */
  session_before_compact: {
    type: "session_before_compact";
    preparation: CompactionPreparation;
    branchEntries: SessionEntry[];
    customInstructions?: string;
    signal: AbortSignal;
  };
  /**
   * Before a move in the session tree (`navigateTree`): a handler may cancel it, supply the branch summary, or
   * change the summary instructions and the label.
   */
  session_before_tree: { type: "session_before_tree"; preparation: TreePreparation; signal: AbortSignal };
  /** After a move in the session tree; `fromExtension` when a handler supplied the summary. */
  session_tree: {
    type: "session_tree";
    newLeafId: string | null;
    oldLeafId: string | null;
    summaryEntry?: BranchSummaryEntry;
    fromExtension?: boolean;
  };
  /** After a compaction entry was written; `fromExtension` when a handler supplied it. */
  session_compact: { type: "session_compact"; compactionEntry: CompactionEntry; fromExtension: boolean };
  /** Before a command the user typed (`!cmd`) runs: a handler may run it elsewhere or answer it. */
  user_bash: { type: "user_bash"; command: string; excludeFromContext: boolean; cwd: string };
  /** The session's model changed (`set`, or `cycle` through the scoped models); not sent when it stays the same. */
  model_select: {
    type: "model_select";
    // biome-ignore lint/suspicious/noExplicitAny: any API's model (pi's `Model<any>`).
    model: Model<any>;
    // biome-ignore lint/suspicious/noExplicitAny: any API's model.
    previousModel: Model<any> | undefined;
    source: "set" | "cycle" | "restore";
  };
  /** The reasoning level changed. */
  thinking_level_select: { type: "thinking_level_select"; level: ThinkingLevel; previousLevel: ThinkingLevel };
  /** A provider answered a request (before its body streams). */
  after_provider_response: { type: "after_provider_response"; status: number; headers: Record<string, string> };
  /** Before each request to the model's provider: a handler may return a replacement request body. */
  before_provider_request: { type: "before_provider_request"; payload: unknown };
  /** Raw user input before template expansion; a handler may transform it or handle it entirely. */
  input: { type: "input"; text: string; images?: ImageContent[]; source: InputSource };
  /** Before a run starts: the handler may replace the system prompt for this run. */
  before_agent_start: {
    type: "before_agent_start";
    prompt: string;
    /** Images sent with the prompt. */
    images?: ImageContent[];
    systemPrompt: string;
    /** What the system prompt was built from (pi's): extensions read what was loaded without looking again. */
    systemPromptOptions: SystemPromptSources;
  };
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
  /** A turn begins: `turnIndex` counts the run's turns from 0, `timestamp` is when it began (ms since the epoch). */
  turn_start: { type: "turn_start"; turnIndex: number; timestamp: number };
  turn_end: Extract<AgentEvent, { type: "turn_end" }> & { turnIndex: number };
  message_start: Extract<AgentEvent, { type: "message_start" }>;
  message_update: Extract<AgentEvent, { type: "message_update" }>;
  /** A message is final; a handler may return a replacement of the same role (before it is stored). */
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
  session_before_switch: { cancel?: boolean };
  session_before_fork: { cancel?: boolean; skipConversationRestore?: boolean };
  session_before_compact: { cancel?: boolean; compaction?: CompactionResult };
  session_before_tree: {
    cancel?: boolean;
    /** Used as the branch summary when the move summarizes (instead of asking the model). */
    summary?: { summary: string; details?: unknown };
    customInstructions?: string;
    replaceInstructions?: boolean;
    label?: string;
  };
  user_bash: { operations?: BashOperations; result?: BashResult };
  /**
   * The request body to send instead (any value but undefined replaces it). Spelled out rather than `unknown`
   * (pi's `BeforeProviderRequestEventResult`): an `unknown` here would swallow every other handler's result type
   * while `on` infers its event, and object literals returned by handlers would lose their literal types.
   */
  before_provider_request: object | string | number | boolean | null;
  input:
    | { action: "continue" }
    | { action: "transform"; text: string; images?: ImageContent[] }
    | { action: "handled" };
  before_agent_start: { systemPrompt?: string };
  context: { messages?: AgentMessage[] };
  /** The message stored and shown instead; it must keep the original's role. */
  message_end: { message?: AgentMessage };
  resources_discover: { skillPaths?: string[]; promptPaths?: string[]; themePaths?: string[] };
  /** `requireApproval`: the call waits for a person's decision (the first handler that asks wins). */
  tool_call: { block?: boolean; reason?: string; input?: Record<string, unknown>; requireApproval?: ApprovalRequest };
  tool_result: { content?: (TextContent | ImageContent)[]; details?: unknown; isError?: boolean };
}

export type ExtensionResult<K extends ExtensionEventName> = K extends keyof ExtensionResultMap
  ? ExtensionResultMap[K]
  : undefined;

export type { ExtensionCommandContext, ExtensionContext } from "./context.js";

/** pi's handler type: an event of type `E`, the context, and a result of type `R` (or nothing). */
export type ExtensionHandler<E, R = undefined> = (
  event: E,
  ctx: ExtensionContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler written `async () => {}` returns `Promise<void>`, which `Promise<undefined>` does not accept
) => Promise<R | undefined | void> | R | undefined | void;

/** The handler of the event named `K`. */
export type HandlerOf<K extends ExtensionEventName> = ExtensionHandler<ExtensionEventMap[K], ExtensionResult<K>>;

/** A `/name args` command added by an extension. */
export interface ExtensionCommand {
  description?: string;
  handler: (args: string, ctx: ExtensionCommandContext) => void | Promise<void>;
}

/** A command-line flag an extension defines (`getFlag` reads its value). */
export interface ExtensionFlag {
  name: string;
  description?: string;
  type: "boolean" | "string";
  default?: boolean | string;
  /** The extension that registered it. */
  extensionPath: string;
}

/**
 * A key an extension bound (`registerShortcut`): the interactive UI runs `handler` when it is pressed. `shortcut`
 * is a pi-tui key id (`ctrl+shift+k`, `alt+x`, `f5`); keys of the editor-global built-in actions are refused.
 */
export interface ExtensionShortcut {
  shortcut: KeyId;
  description?: string;
  handler: (ctx: ExtensionContext) => Promise<void> | void;
  /** The extension that registered it. */
  extensionPath: string;
}

/**
 * The object an extension's factory receives (pi's ExtensionAPI). The
 * session actions (`sendMessage` … `unregisterProvider`) go through the shared ExtensionRuntime: they throw while
 * the extension loads and act on the session once it is bound; providers registered while loading are queued.
 */
export interface ExtensionAPI extends Omit<ExtensionActions, "refreshTools"> {
  /** The folder the CLI runs in. */
  readonly cwd: string;
  on<K extends ExtensionEventName>(event: K, handler: HandlerOf<K>): void;
  /** A tool whose `execute` also gets the context (a plain AgentTool works too: it ignores the context). */
  // biome-ignore lint/suspicious/noExplicitAny: pi's third type parameter (renderer state) defaults to any.
  registerTool<TParams extends TSchema = TSchema, TDetails = unknown, TState = any>(
    tool: ToolDefinition<TParams, TDetails, TState>,
  ): void;
  registerCommand(name: string, command: ExtensionCommand): void;
  /** Runs a program (no shell) in `options.cwd` or the extension's cwd; see `execCommand`. */
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Defines a flag; its value comes from the host (`extensionFlagValues`), else `default`. */
  registerFlag(name: string, options: Omit<ExtensionFlag, "name" | "extensionPath">): void;
  getFlag(name: string): boolean | string | undefined;
  /**
   * Binds a key in the interactive UI (see ExtensionShortcut); a later registration of the same key wins. Other
   * modes ignore it.
   */
  registerShortcut(shortcut: KeyId, options: Omit<ExtensionShortcut, "shortcut" | "extensionPath">): void;
  /**
   * Draws the custom messages of `customType` (those `sendMessage` adds) in the interactive UI's transcript; a
   * renderer returning undefined leaves the default rendering.
   */
  registerMessageRenderer<T = unknown>(customType: string, renderer: MessageRenderer<T>): void;
  registerProvider(name: string, config: ExtensionProviderConfig): void;
  unregisterProvider(name: string): void;
  /** Shared by the extensions of one load: a channel between them. */
  events: EventBus;
}

/** The module shape the loader accepts: a default-exported (or module-level) factory. */
export type ExtensionFactory = (api: ExtensionAPI) => void | Promise<void>;

/** A problem with an extension: failed to load, factory threw, or a handler threw. Reported, never fatal. */
export interface ExtensionError {
  /** Path of the extension module (or the factory's name). */
  extensionPath: string;
  /** What failed: "load", a handler's event name, or "command:/name". */
  event: string;
  /** The error's message. */
  error: string;
  /** The stack of a thrown Error, when there is one. */
  stack?: string;
}

export type { MessageRenderer, MessageRenderOptions } from "../cli/tui/pi/types.js";
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
export type SessionBeforeSwitchEvent = ExtensionEventMap["session_before_switch"];
export type SessionBeforeForkEvent = ExtensionEventMap["session_before_fork"];
export type SessionBeforeCompactEvent = ExtensionEventMap["session_before_compact"];
export type SessionCompactEvent = ExtensionEventMap["session_compact"];
export type SessionBeforeTreeEvent = ExtensionEventMap["session_before_tree"];
export type ModelSelectEvent = ExtensionEventMap["model_select"];
export type ThinkingLevelSelectEvent = ExtensionEventMap["thinking_level_select"];
export type AfterProviderResponseEvent = ExtensionEventMap["after_provider_response"];
export type SessionTreeEvent = ExtensionEventMap["session_tree"];
export type SessionBeforeTreeResult = ExtensionResultMap["session_before_tree"];
export type UserBashEvent = ExtensionEventMap["user_bash"];
export type UserBashEventResult = ExtensionResultMap["user_bash"];
export type BeforeProviderRequestEvent = ExtensionEventMap["before_provider_request"];
export type BeforeProviderRequestEventResult = unknown;
export type SessionBeforeSwitchResult = ExtensionResultMap["session_before_switch"];
export type SessionBeforeForkResult = ExtensionResultMap["session_before_fork"];
export type SessionBeforeCompactResult = ExtensionResultMap["session_before_compact"];
export type ToolCallEventResult = ExtensionResultMap["tool_call"];
export type AgentStartEvent = ExtensionEventMap["agent_start"];
export type AgentEndEvent = ExtensionEventMap["agent_end"];
export type TurnStartEvent = ExtensionEventMap["turn_start"];
export type TurnEndEvent = ExtensionEventMap["turn_end"];

/**
 * A `/command` as an extension registered it (pi's name), with the extension file it came from. Its handler
 * returns a promise (the registered one may answer synchronously; the runner wraps it).
 */
export type RegisteredCommand = Omit<ExtensionCommand, "handler"> & {
  name: string;
  sourceInfo: SourceInfo;
  handler: (args: string, ctx: ExtensionCommandContext) => Promise<void>;
};
/** A registered command with the name that invokes it (pi's; Tiller invokes a command by its own name). */
export type ResolvedCommand = RegisteredCommand & { invocationName: string };
