/**
 * Public types of @tiller/agent. Source-compatible with @mariozechner/pi-agent-core 0.73 (names and shapes),
 * plus the seed's additions (steering delivery, event-type subscriptions).
 */
import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStreamLike,
  Context,
  ImageContent,
  Message,
  Model,
  SimpleStreamOptions,
  Static,
  TextContent,
  Tool,
  ToolResultMessage,
  TSchema,
} from "@tiller/ai";

/** Same contract as `streamSimple`: never throws once it returns; failures are encoded in the stream. */
export type StreamFn = (
  model: Model,
  context: Context,
  options?: SimpleStreamOptions,
) => AssistantMessageEventStreamLike | Promise<AssistantMessageEventStreamLike>;

export type ToolExecutionMode = "sequential" | "parallel";
export type QueueMode = "all" | "one-at-a-time";
/**
 * What a steering message does to the tool calls of the current assistant message:
 * `skip-remaining` — running tools finish, unstarted ones get a "skipped" error result (default, the seed);
 * `after-batch` — the whole batch finishes first (pi-agent-core 0.73);
 * `abort` — the stream and running tools are aborted at once.
 */
export type SteeringDelivery = "skip-remaining" | "after-batch" | "abort";

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export type AgentToolCall = Extract<AssistantMessage["content"][number], { type: "toolCall" }>;

/**
 * Custom message types join `AgentMessage` by declaration merging:
 * `declare module "@tiller/agent" { interface CustomAgentMessages { note: { role: "note"; text: string } } }`
 */
// biome-ignore lint/suspicious/noEmptyInterface: extended by declaration merging.
export interface CustomAgentMessages {}
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

export interface AgentToolResult<T> {
  content: (TextContent | ImageContent)[];
  details: T;
  /** Hint: stop the loop after this batch of tool calls. */
  terminate?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: pi-compatible default.
export type AgentToolUpdateCallback<T = any> = (partialResult: AgentToolResult<T>) => void;

// biome-ignore lint/suspicious/noExplicitAny: pi-compatible default.
export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = any> extends Tool<TParameters> {
  /** Human-readable name for UIs. */
  label: string;
  /** Adjust raw arguments before validation (e.g. legacy shapes). */
  prepareArguments?: (args: unknown) => Static<TParameters>;
  /** Throwing is allowed: the loop turns it into an error tool result. Must honour `signal`. */
  execute: (
    toolCallId: string,
    params: Static<TParameters>,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<TDetails>,
  ) => Promise<AgentToolResult<TDetails>>;
  /** A tool marked sequential makes its whole batch run sequentially. */
  executionMode?: ToolExecutionMode;
}

export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  tools?: AgentTool<any>[];
}

export interface BeforeToolCallResult {
  /** `true` turns the call into an error result carrying `reason`. */
  block?: boolean;
  reason?: string;
  /** Replacement arguments; validated again before the tool runs. */
  args?: unknown;
}

export interface AfterToolCallResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  args: unknown;
  context: AgentContext;
}

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  args: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: result details are tool-specific.
  result: AgentToolResult<any>;
  isError: boolean;
  context: AgentContext;
}

export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AgentMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific.
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: any }
  // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific.
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: any; partialResult: any }
  // biome-ignore lint/suspicious/noExplicitAny: results are tool-specific.
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: any; isError: boolean };

export type AgentEventType = AgentEvent["type"];
