/**
 * The Agent's options and the types of its API surface (queued message input, typed handlers), plus the
 * queues' small helpers.
 */
import type { Message, Model, SimpleStreamOptions, ThinkingBudgets, Transport, UserMessage } from "@tiller/ai";
import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  AgentMessage,
  AgentState,
  BeforeToolCallContext,
  BeforeToolCallResult,
  QueueMode,
  SteeringDelivery,
  StreamFn,
  ToolExecutionMode,
} from "./types.js";

/** A user message without a timestamp (the seed writes them so); the Agent stamps it. */
export interface QueuedUserMessage {
  role: "user";
  content: UserMessage["content"];
  timestamp?: number;
}

/** What `steer()` and `followUp()` accept: a message, a user message without timestamp, or plain text. */
export type QueuedMessageInput = AgentMessage | QueuedUserMessage | string;

/** Handler for `subscribe(type, handler)`: receives the events of that type (all of them for `"*"`). */
export type AgentEventHandler<K extends AgentEventType | "*"> = (
  event: K extends AgentEventType ? AgentEventOf<K> : AgentEvent,
  signal: AbortSignal,
) => Promise<void> | void;

/** Options for `new Agent(...)`. Every option is also a public field, read at each use. */
export interface AgentOptions {
  initialState?: Partial<Pick<AgentState, "systemPrompt" | "model" | "thinkingLevel" | "tools" | "messages">>;
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Default: @tiller/ai's `streamSimple`. */
  streamFn?: StreamFn;
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  onPayload?: SimpleStreamOptions["onPayload"];
  onResponse?: SimpleStreamOptions["onResponse"];
  beforeToolCall?: (
    context: BeforeToolCallContext,
    signal?: AbortSignal,
  ) => Promise<BeforeToolCallResult | undefined> | BeforeToolCallResult | undefined;
  afterToolCall?: (
    context: AfterToolCallContext,
    signal?: AbortSignal,
  ) => Promise<AfterToolCallResult | undefined> | AfterToolCallResult | undefined;
  /** Default `one-at-a-time`. */
  steeringMode?: QueueMode;
  /** Default `one-at-a-time`. */
  followUpMode?: QueueMode;
  /** Default `skip-remaining`. */
  steeringDelivery?: SteeringDelivery;
  sessionId?: string;
  thinkingBudgets?: ThinkingBudgets;
  transport?: Transport;
  maxRetryDelayMs?: number;
  /** Default `parallel`. */
  toolExecution?: ToolExecutionMode;
  /**
   * Keys remembered as `allow-always` from the start (e.g. restored by a policy layer that persisted them): calls
   * whose approval request has such a key run without asking.
   */
  alwaysAllowed?: string[];
  /** Called when a listener throws or rejects. Default: `console.error`. The run goes on either way. */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
}

export const DEFAULT_MODEL: Model = {
  id: "unknown",
  name: "unknown",
  api: "unknown",
  provider: "unknown",
  baseUrl: "",
  reasoning: false,
  input: [],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 0,
  maxTokens: 0,
};

/** A FIFO of queued messages drained one at a time or all at once. */
export class MessageQueue {
  items: AgentMessage[] = [];
  constructor(public mode: QueueMode) {}
  drain(): AgentMessage[] {
    if (this.items.length === 0) return [];
    if (this.mode === "all") {
      const all = this.items;
      this.items = [];
      return all;
    }
    return this.items.splice(0, 1);
  }
}

/** Normalises what `steer()` / `followUp()` accept into an AgentMessage (stamping a missing timestamp). */
export function toMessage(input: QueuedMessageInput): AgentMessage {
  if (typeof input === "string") return { role: "user", content: input, timestamp: Date.now() };
  const candidate = input as { role?: unknown; timestamp?: unknown };
  if (candidate.role === "user" && typeof candidate.timestamp !== "number") {
    return { ...(input as QueuedUserMessage), timestamp: Date.now() } as AgentMessage;
  }
  return input as AgentMessage;
}
