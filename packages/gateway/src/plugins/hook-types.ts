/**
 * Plugin hook names, their events and the results each may return.
 * A plugin registers handlers with `api.on(name, handler, { priority })`; the hook runner decides how results combine.
 */
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, TextContent, ToolResultMessage } from "@tiller/ai";

export const PLUGIN_HOOK_NAMES = [
  "before_model_resolve",
  "before_prompt_build",
  "before_agent_start",
  "before_agent_reply",
  "agent_end",
  "before_compaction",
  "after_compaction",
  "before_tool_call",
  "after_tool_call",
  "before_install",
  "tool_result_persist",
  "message_received",
  "message_sending",
  "message_sent",
  "session_start",
  "session_end",
  "gateway_start",
  "gateway_stop",
] as const;

export type PluginHookName = (typeof PLUGIN_HOOK_NAMES)[number];

/** Where a hook fires: which agent, session and run. Fields absent at that point are undefined. */
export interface PluginHookContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  runId?: string;
  workspaceDir?: string;
}

export interface BeforeModelResolveEvent {
  prompt: string;
}
export interface BeforeModelResolveResult {
  providerOverride?: string;
  modelOverride?: string;
}

export interface BeforePromptBuildEvent {
  prompt: string;
  messages: readonly AgentMessage[];
}
/**
 * `systemPrompt` replaces the built prompt (the highest-priority plugin that sets it wins);
 * `prependContext` goes before the user's prompt for this turn only;
 * `prependSystemContext` / `appendSystemContext` are stable text around the system prompt.
 * The last three are concatenated across plugins in priority order.
 */
export interface BeforePromptBuildResult {
  systemPrompt?: string;
  prependContext?: string;
  prependSystemContext?: string;
  appendSystemContext?: string;
}

/** Legacy: may run in either phase; its result is merged like both hooks above. */
export type BeforeAgentStartEvent = BeforePromptBuildEvent;
export type BeforeAgentStartResult = BeforeModelResolveResult & BeforePromptBuildResult;

export interface BeforeAgentReplyEvent {
  prompt: string;
}
/** `handled: true` claims the turn: the LLM is not called; `reply` is sent, or nothing when it is absent (silence). */
export interface BeforeAgentReplyResult {
  handled: boolean;
  reply?: string;
  reason?: string;
}

export interface AgentEndEvent {
  messages: readonly AgentMessage[];
  success: boolean;
  error?: string;
  durationMs: number;
}

export interface CompactionEvent {
  messageCount: number;
  tokenCount?: number;
  compactedCount?: number;
  sessionFile?: string;
}

export interface BeforeToolCallEvent {
  toolName: string;
  toolCallId: string;
  params: Record<string, unknown>;
}
/**
 * A plugin's request to pause the call until a person decides (a plugin approval: `plugin.approval.requested`,
 * resolved by `plugin.approval.resolve` or `/approve`). Plain JSON: it is stored while the call waits.
 */
export interface PluginApprovalRequest {
  title: string;
  description?: string;
  /** Default `warning`. */
  severity?: "info" | "warning" | "critical";
  /** How long to wait; without it the call waits until decided or the run ends. */
  timeoutMs?: number;
  /** What a timeout decides (default `deny`). */
  timeoutBehavior?: "allow" | "deny";
  /** The decisions offered (default all three). */
  allowedDecisions?: ("allow-once" | "allow-always" | "deny")[];
  /** Stamped by the hook runner with the plugin that asked. */
  pluginId?: string;
}

/**
 * `block: true` is terminal and sticky; `params` replaces the arguments (the last plugin to set it wins, until a
 * plugin asks for approval: the first `requireApproval` wins and freezes the arguments it was asked about).
 */
export interface BeforeToolCallResult {
  params?: Record<string, unknown>;
  block?: boolean;
  blockReason?: string;
  requireApproval?: PluginApprovalRequest;
}

export interface AfterToolCallEvent {
  toolName: string;
  toolCallId: string;
  params: Record<string, unknown>;
  result?: { content: (TextContent | ImageContent)[]; details?: unknown };
  error?: string;
  durationMs: number;
}

export interface BeforeInstallEvent {
  kind: "skill" | "plugin";
  name: string;
  source: string;
  /** Findings of the built-in scan. */
  findings: readonly string[];
}
/** `block: true` is terminal and sticky; findings are concatenated. */
export interface BeforeInstallResult {
  block?: boolean;
  blockReason?: string;
  findings?: string[];
}

export interface ToolResultPersistEvent {
  toolName: string;
  toolCallId: string;
  message: ToolResultMessage;
}
/** Synchronous: `message` replaces what is written to the transcript. A Promise return is ignored with a warning. */
export interface ToolResultPersistResult {
  message?: ToolResultMessage;
}

export interface MessageReceivedEvent {
  from: string;
  content: string;
  timestamp: number;
  metadata?: Record<string, unknown>;
}
export interface MessageSendingEvent {
  to: string;
  content: string;
  metadata?: Record<string, unknown>;
}
/** `cancel: true` is terminal and sticky; `content` rewrites the text (the last plugin to set it wins). */
export interface MessageSendingResult {
  content?: string;
  cancel?: boolean;
}
export interface MessageSentEvent {
  to: string;
  content: string;
  success: boolean;
  error?: string;
}

export interface SessionStartEvent {
  sessionKey: string;
  sessionId: string;
  resumed: boolean;
}
export interface SessionEndEvent {
  sessionKey: string;
  sessionId: string;
  reason: string;
}
export interface GatewayStartEvent {
  port?: number;
}
export interface GatewayStopEvent {
  reason?: string;
}

/** Event type per hook. */
export interface PluginHookEventMap {
  before_model_resolve: BeforeModelResolveEvent;
  before_prompt_build: BeforePromptBuildEvent;
  before_agent_start: BeforeAgentStartEvent;
  before_agent_reply: BeforeAgentReplyEvent;
  agent_end: AgentEndEvent;
  before_compaction: CompactionEvent;
  after_compaction: CompactionEvent;
  before_tool_call: BeforeToolCallEvent;
  after_tool_call: AfterToolCallEvent;
  before_install: BeforeInstallEvent;
  tool_result_persist: ToolResultPersistEvent;
  message_received: MessageReceivedEvent;
  message_sending: MessageSendingEvent;
  message_sent: MessageSentEvent;
  session_start: SessionStartEvent;
  session_end: SessionEndEvent;
  gateway_start: GatewayStartEvent;
  gateway_stop: GatewayStopEvent;
}

/**
 * The result of an observe-only hook: its handlers return nothing. `void` rather than `undefined` so that a handler
 * written `() => {}` or `async () => {}` type-checks.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: see above; the hook runner tells these hooks apart by `extends ObserveOnly`
export type ObserveOnly = void;

/** Result type per hook (`ObserveOnly` for hooks whose results are ignored). */
export interface PluginHookResultMap {
  before_model_resolve: BeforeModelResolveResult;
  before_prompt_build: BeforePromptBuildResult;
  before_agent_start: BeforeAgentStartResult;
  before_agent_reply: BeforeAgentReplyResult;
  agent_end: ObserveOnly;
  before_compaction: ObserveOnly;
  after_compaction: ObserveOnly;
  before_tool_call: BeforeToolCallResult;
  after_tool_call: ObserveOnly;
  before_install: BeforeInstallResult;
  tool_result_persist: ToolResultPersistResult;
  message_received: ObserveOnly;
  message_sending: MessageSendingResult;
  message_sent: ObserveOnly;
  session_start: ObserveOnly;
  session_end: ObserveOnly;
  gateway_start: ObserveOnly;
  gateway_stop: ObserveOnly;
}

/** A handler may return nothing; `tool_result_persist` must return synchronously. */
export type PluginHookHandler<K extends PluginHookName> = (
  event: PluginHookEventMap[K],
  ctx: PluginHookContext,
) =>
  | PluginHookResultMap[K]
  | undefined
  | (K extends "tool_result_persist" ? never : Promise<PluginHookResultMap[K] | undefined>);

/** A handler with its event type erased, as stored in the registry (the runner knows each hook's types). */
export type ErasedHookHandler = (event: never, ctx: PluginHookContext) => unknown;

/** One registered handler. Same-priority handlers keep registration order. */
export interface PluginHookRegistration {
  pluginId: string;
  hookName: PluginHookName;
  handler: ErasedHookHandler;
  priority: number;
}
