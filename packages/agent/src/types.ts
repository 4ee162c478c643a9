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
  StopReason,
  TextContent,
  Tool,
  ToolResultMessage,
  TSchema,
  Usage,
} from "@tiller/ai";

/**
 * The stream options the loop hands a `StreamFn`. `reasoning` is never "off" there: thinking level "off" leaves
 * it unset (pi-agent-core's contract), so a stream function typed against pi's options fits.
 */
export interface AgentStreamOptions extends Omit<SimpleStreamOptions, "reasoning"> {
  reasoning?: Exclude<SimpleStreamOptions["reasoning"], "off">;
}

/** Same contract as `streamSimple`: never throws once it returns; failures are encoded in the stream. */
export type StreamFn = (
  model: Model,
  context: Context,
  options?: AgentStreamOptions,
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
  /**
   * Whether a call needs a person's yes before it runs (see `ApprovalRequest`). Evaluated after validation and
   * `beforeToolCall`, with the arguments the call would run with. A function may also block the call.
   */
  requiresApproval?: RequiresApproval;
}

export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  tools?: AgentTool<any>[];
}

/**
 * What `beforeToolCall` may return. `undefined` lets the call run (with `args` as the hook left them: in-place
 * mutation is honoured without revalidation, as in pi-agent-core).
 */
export interface BeforeToolCallResult {
  /** `true` turns the call into an error result carrying `reason`. */
  block?: boolean;
  reason?: string;
  /** Replacement arguments; validated again against the tool's schema before the tool runs. */
  args?: unknown;
  /** Pause the call until a person decides (takes precedence over the tool's own `requiresApproval`). */
  requireApproval?: ApprovalRequest;
}

/**
 * What `afterToolCall` may return. `result` (the seed's form) replaces the whole result; then each other field,
 * when present, replaces that field in full (no deep merge). Omitted fields keep the executed values.
 */
export interface AfterToolCallResult {
  // biome-ignore lint/suspicious/noExplicitAny: result details are tool-specific.
  result?: AgentToolResult<any>;
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  /** The validated (coerced) arguments. Typed like `ToolCall.arguments` so hooks can read `args.path`. */
  // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific (same type as ToolCall.arguments).
  args: Record<string, any>;
  context: AgentContext;
}

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: AgentToolCall;
  // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific (same type as ToolCall.arguments).
  args: Record<string, any>;
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
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: any; isError: boolean }
  /** A call waits for a decision (`Agent.resolveApproval(approval.id, …)`). Comes after its `tool_execution_start`. */
  | { type: "tool_approval_request"; approval: PendingApproval }
  /** The wait is over: decided, timed out or aborted. `remembered`: the key an `allow-always` added. */
  | {
      type: "tool_approval_end";
      approval: PendingApproval;
      resolution: ApprovalResolution;
      cause: ApprovalEndCause;
      remembered?: string;
    };

export type AgentEventType = AgentEvent["type"];

/** The `AgentEvent` of one type, e.g. `AgentEventOf<"message_update">`. */
export type AgentEventOf<K extends AgentEventType> = Extract<AgentEvent, { type: K }>;

/**
 * Receives every event of a run, in order. May be async: the run waits for the returned promise before the next
 * event is delivered, and does not settle before it. A throw or rejection is reported and isolated.
 */
export type AgentListener = (event: AgentEvent, signal: AbortSignal) => Promise<void> | void;

/** Where the loop sends its events; a returned promise is awaited before the loop goes on. */
export type AgentEventSink = (event: AgentEvent) => Promise<void> | void;

/** Context passed to `shouldStopAfterTurn`. */
export interface ShouldStopAfterTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
  /** Messages this loop invocation returns if it stops now. */
  newMessages: AgentMessage[];
}

/**
 * Configuration of the low-level loop (`agentLoop`, `runAgentLoop`). Stream options are forwarded to the stream
 * function on every LLM call. None of the callbacks should throw; if `transformContext`, `convertToLlm` or
 * `getApiKey` throws, the turn ends with an error assistant message instead of an exception.
 */
export interface AgentLoopConfig extends AgentStreamOptions {
  model: Model;
  /** AgentMessage[] → Message[] before each LLM call: convert or drop custom message types. */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Runs before `convertToLlm` on every LLM call (pruning, injection). The loop's transcript is not replaced. */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Resolved on every LLM call, so short-lived tokens refresh during long tool phases. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** Called after `turn_end`; `true` ends the run before the queues are polled. */
  shouldStopAfterTurn?: (context: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /** Drains queued steering messages (polled before the first turn, at tool boundaries and after each turn). */
  getSteeringMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /** Drains queued follow-up messages (polled only when the agent would otherwise stop). */
  getFollowUpMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /** Default `parallel`. Read at every tool batch, so it may change during a run. */
  toolExecution?: ToolExecutionMode;
  /** What a steering message does to the current tool batch. Default `skip-remaining`. */
  steeringDelivery?: SteeringDelivery;
  /**
   * Needed for `steeringDelivery: "abort"`: registers a callback fired when a steering message is queued;
   * returns the unregister function.
   */
  onSteeringQueued?: (notify: () => void) => () => void;
  beforeToolCall?: (
    context: BeforeToolCallContext,
    signal?: AbortSignal,
  ) => Promise<BeforeToolCallResult | undefined> | BeforeToolCallResult | undefined;
  afterToolCall?: (
    context: AfterToolCallContext,
    signal?: AbortSignal,
  ) => Promise<AfterToolCallResult | undefined> | AfterToolCallResult | undefined;
  /** How the loop asks for approvals. Without it, a call that needs approval is denied (nobody can be asked). */
  approvals?: ApprovalHandler;
  /**
   * The stream options for the next LLM call. Default: the config itself (spread, as pi-agent-core does); the
   * Agent supplies a small plain object instead. `apiKey` and `signal` are filled in by the loop.
   */
  getStreamOptions?: () => AgentStreamOptions;
}

/**
 * A snapshot of the agent. Immutable: the object and its arrays never change once handed out; every update
 * yields a new snapshot from `agent.state`. Assigning `systemPrompt`, `model`, `thinkingLevel`, `tools` or
 * `messages` (pi-agent-core style) updates the agent (copying assigned arrays), not this snapshot.
 */
export interface AgentState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  tools: AgentTool<any>[];
  messages: AgentMessage[];
  /** True from the start of a run until its last listener has settled. */
  readonly isStreaming: boolean;
  /** The message being streamed, or null (the seed's name). */
  readonly streamMessage: AgentMessage | null;
  /** The message being streamed, or undefined (pi-agent-core's name). */
  readonly streamingMessage?: AgentMessage;
  /** Ids of tool calls started and not yet ended. */
  readonly pendingToolCalls: ReadonlySet<string>;
  /** Error of the most recent failed or aborted turn (the seed's name). */
  readonly error?: string;
  /** Same as `error` (pi-agent-core's name). */
  readonly errorMessage?: string;
}

/**
 * One event of the proxy wire format read by `streamProxy`: an `AssistantMessageEvent` with its `partial` (and
 * the end events' `content`/`toolCall`) stripped, which the client rebuilds. Sent by the proxy server as
 * `data: <json>` lines. Same shape as pi-agent-core 0.73's.
 */
export type ProxyAssistantMessageEvent =
  | { type: "start" }
  | { type: "text_start"; contentIndex: number }
  | { type: "text_delta"; contentIndex: number; delta: string }
  | { type: "text_end"; contentIndex: number; contentSignature?: string }
  | { type: "thinking_start"; contentIndex: number }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "thinking_end"; contentIndex: number; contentSignature?: string }
  | { type: "toolcall_start"; contentIndex: number; id: string; toolName: string }
  | { type: "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_end"; contentIndex: number }
  | { type: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse">; usage: Usage }
  | { type: "error"; reason: Extract<StopReason, "aborted" | "error">; errorMessage?: string; usage: Usage };

/** The stream options `streamProxy` forwards to the proxy server in the request body's `options`. */
export type ProxySerializableStreamOptions = Pick<
  SimpleStreamOptions,
  | "temperature"
  | "maxTokens"
  | "reasoning"
  | "cacheRetention"
  | "sessionId"
  | "headers"
  | "metadata"
  | "transport"
  | "thinkingBudgets"
  | "maxRetryDelayMs"
>;

export interface ProxyStreamOptions extends ProxySerializableStreamOptions {
  /** Aborts the proxy request; the stream then ends with an `aborted` error event. */
  signal?: AbortSignal;
  /** Sent as `Authorization: Bearer <authToken>`. */
  authToken: string;
  /** Base URL of the proxy server; the request goes to `<proxyUrl>/api/stream`. */
  proxyUrl: string;
}

// ---- Approvals ---------------------------------------------------------------------------------------------------

/** A person's answer to an approval request. */
export type ApprovalDecision = "allow-once" | "allow-always" | "deny";

export type ApprovalSeverity = "info" | "warning" | "critical";

/**
 * What a tool call needs a person's yes for. Plain JSON (a gateway stores it while the call waits), so it holds no
 * callbacks: a policy layer that must act on the decision reads it from `tool_approval_end` (with `meta`).
 */
export interface ApprovalRequest {
  title: string;
  description?: string;
  /** Default `warning`. */
  severity?: ApprovalSeverity;
  /** How long to wait for a decision. Without it the call waits until decided or aborted. */
  timeoutMs?: number;
  /** What a timeout decides: `deny` (default) or `allow` (allow once). */
  timeoutBehavior?: "allow" | "deny";
  /** The decisions offered (default all three); `resolveApproval` rejects any other. */
  decisions?: ApprovalDecision[];
  /**
   * What an `allow-always` remembers: later calls whose request has the same key run without asking, for the rest
   * of the agent's life. Default: the tool name. `false`: the agent remembers nothing (a policy layer keeps its own
   * record, as exec approvals do with their allowlist).
   */
  alwaysKey?: string | false;
  /** Data for policy layers and UIs (e.g. the command and its resolved executables). JSON values only. */
  meta?: Record<string, unknown>;
}

/** A block instead of a request: the call does not run and gets an error result carrying `reason`. */
export interface ApprovalBlock {
  block: true;
  reason: string;
}

/** What a tool's `requiresApproval` answers: no (`false`), yes with a default request (`true`), a request, or a block. */
export type ApprovalRequirement = boolean | ApprovalRequest | ApprovalBlock;

/** A tool's approval rule: always / never, or decided per call from the arguments it would run with. */
export type RequiresApproval =
  | boolean
  | ((
      // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific (same type as ToolCall.arguments).
      args: Record<string, any>,
      context: BeforeToolCallContext,
    ) => ApprovalRequirement | Promise<ApprovalRequirement>);

/**
 * A tool call waiting for a decision. Plain JSON: together with the transcript (which ends with
 * `assistantMessage` while the batch is unfinished) it is everything `Agent.resumeToolCalls` needs in a new process.
 */
export interface PendingApproval {
  /** Unique id, for `resolveApproval`. */
  id: string;
  /** The call as the model sent it. */
  toolCall: AgentToolCall;
  /** The arguments it runs with once allowed (validated, after `beforeToolCall`). */
  // biome-ignore lint/suspicious/noExplicitAny: arguments are tool-specific (same type as ToolCall.arguments).
  args: Record<string, any>;
  request: ApprovalRequest;
  /** The assistant message holding the call and the rest of its batch. */
  assistantMessage: AssistantMessage;
  /** Epoch ms. */
  createdAt: number;
  /** `createdAt + timeoutMs`, when the request has a timeout; past it, `timeoutBehavior` decides. */
  expiresAt?: number;
}

/** A decision and who made it. */
export interface ApprovalResolution {
  decision: ApprovalDecision;
  /** Who decided: a user or surface name; `timeout` / `abort` when nobody did. */
  by?: string;
  /** Why; a denial's reason is shown to the model. */
  reason?: string;
}

/**
 * Why a wait ended: `decided` (someone resolved it), `timeout`, `aborted` (the run or turn was aborted; the call
 * does not run), `unavailable` (no approval handler: denied at once).
 */
export type ApprovalEndCause = "decided" | "timeout" | "aborted" | "unavailable";

/** How the loop asks for decisions. The Agent supplies one; a loop used alone may supply its own. */
export interface ApprovalHandler {
  /** Whether an earlier `allow-always` covers `key` (then the call runs without asking). */
  isAllowedAlways?(key: string): boolean;
  /** Records an `allow-always` for `key`. */
  rememberAlways?(key: string): void;
  /**
   * Waits for a decision. The loop applies timeouts and aborts itself; `signal` fires when the wait ends for such a
   * reason, and the handler should then forget the request (its promise is ignored).
   */
  request(approval: PendingApproval, signal: AbortSignal): Promise<ApprovalResolution>;
}

/** A decision for one pending approval of an interrupted batch (`Agent.resumeToolCalls`). */
export interface ResumedApproval extends ApprovalResolution {
  approval: PendingApproval;
  /** `timeout` when the approval expired while nobody could decide (see `expiredApproval`). Default `decided`. */
  cause?: "decided" | "timeout";
}

/**
 * How to finish a tool batch that was waiting for approval when its process stopped. The transcript must end with
 * the approvals' assistant message. Calls with a decision run (or are denied) with their stored arguments; calls
 * with a result in `results` keep it; any other call of the batch is prepared and run afresh (and may ask again).
 * Then the results are appended in the assistant's order and the loop goes on.
 */
export interface ToolCallsResume {
  approvals: ResumedApproval[];
  /** Results of calls of the batch that had finished (e.g. built from stored `tool_execution_end` events). */
  results?: ToolResultMessage[];
}
