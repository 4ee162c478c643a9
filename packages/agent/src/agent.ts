/**
 * The Agent: state, subscribers, queues and the API facade over the loop. It owns the transcript, turns loop
 * events into immutable state snapshots, delivers events in order to (possibly async) listeners, and feeds
 * steering and follow-up messages to the loop when it asks for them.
 */
import type {
  ImageContent,
  Message,
  Model,
  SimpleStreamOptions,
  ThinkingBudgets,
  Transport,
  UserMessage,
} from "@tiller/ai";
import { defaultConvertToLlm, failedAssistantMessage, runAgentLoop, runAgentLoopContinue } from "./agent-loop.js";
import { makeSnapshot, type StateOwner, Transcript } from "./agent-state.js";
import { defaultStreamFn } from "./default-stream.js";
import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentContext,
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  AgentListener,
  AgentLoopConfig,
  AgentMessage,
  AgentState,
  AgentTool,
  BeforeToolCallContext,
  BeforeToolCallResult,
  QueueMode,
  SteeringDelivery,
  StreamFn,
  ThinkingLevel,
  ToolExecutionMode,
} from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

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
  /** Called when a listener throws or rejects. Default: `console.error`. The run goes on either way. */
  onListenerError?: (error: unknown, event: AgentEvent) => void;
}

const DEFAULT_MODEL: Model = {
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

const BUSY_PROMPT =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";

const EMPTY_SET: ReadonlySet<string> = new Set();

class MessageQueue {
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

interface Subscription {
  type: AgentEventType | "*";
  // biome-ignore lint/suspicious/noExplicitAny: handlers are narrowed per type at subscribe time.
  fn: (event: any, signal: AbortSignal) => Promise<void> | void;
}

interface ActiveRun {
  controller: AbortController;
  idle: Promise<void>;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

function toMessage(input: QueuedMessageInput): AgentMessage {
  if (typeof input === "string") return { role: "user", content: input, timestamp: Date.now() };
  const candidate = input as { role?: unknown; timestamp?: unknown };
  if (candidate.role === "user" && typeof candidate.timestamp !== "number") {
    return { ...(input as QueuedUserMessage), timestamp: Date.now() } as AgentMessage;
  }
  return input as AgentMessage;
}

const IDLE_SIGNAL = new AbortController().signal;

export class Agent implements StateOwner {
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  streamFn: StreamFn;
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  onPayload?: SimpleStreamOptions["onPayload"];
  onResponse?: SimpleStreamOptions["onResponse"];
  beforeToolCall?: AgentOptions["beforeToolCall"];
  afterToolCall?: AgentOptions["afterToolCall"];
  sessionId?: string;
  thinkingBudgets?: ThinkingBudgets;
  transport: Transport;
  maxRetryDelayMs?: number;
  toolExecution: ToolExecutionMode;
  steeringDelivery: SteeringDelivery;
  onListenerError: (error: unknown, event: AgentEvent) => void;

  #systemPrompt: string;
  #model: Model;
  #thinkingLevel: ThinkingLevel;
  #tools: readonly AnyTool[];
  readonly #transcript: Transcript;
  #isStreaming = false;
  #streamMessage: AgentMessage | undefined;
  #pendingToolCalls: ReadonlySet<string> = EMPTY_SET;
  #error: string | undefined;
  #snapshot: AgentState | undefined;

  #subscriptions: readonly Subscription[] = [];
  readonly #steering: MessageQueue;
  readonly #followUps: MessageQueue;
  #steerWatchers = new Set<() => void>();
  #active: ActiveRun | undefined;
  /** The active run's signal (or a never-aborted one), handed to listeners. */
  #signal: AbortSignal = IDLE_SIGNAL;
  /** The delivery in progress when a listener went async; later events wait behind it. */
  #delivering: Promise<void> | undefined;

  constructor(options: AgentOptions = {}) {
    const initial = options.initialState ?? {};
    this.#systemPrompt = initial.systemPrompt ?? "";
    this.#model = initial.model ?? DEFAULT_MODEL;
    this.#thinkingLevel = initial.thinkingLevel ?? "off";
    this.#tools = Object.freeze((initial.tools ?? []).slice());
    this.#transcript = new Transcript(initial.messages);
    this.convertToLlm = options.convertToLlm ?? defaultConvertToLlm;
    this.transformContext = options.transformContext;
    this.streamFn = options.streamFn ?? defaultStreamFn;
    this.getApiKey = options.getApiKey;
    this.onPayload = options.onPayload;
    this.onResponse = options.onResponse;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
    this.#steering = new MessageQueue(options.steeringMode ?? "one-at-a-time");
    this.#followUps = new MessageQueue(options.followUpMode ?? "one-at-a-time");
    this.steeringDelivery = options.steeringDelivery ?? "skip-remaining";
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.transport = options.transport ?? "auto";
    this.maxRetryDelayMs = options.maxRetryDelayMs;
    this.toolExecution = options.toolExecution ?? "parallel";
    this.onListenerError =
      options.onListenerError ??
      ((error, event) => console.error(`[@tiller/agent] a listener failed on ${event.type}:`, error));
  }

  // ---- State -------------------------------------------------------------------------------------------------

  /** The current immutable snapshot. Read it again after an update to see the change. */
  get state(): AgentState {
    this.#snapshot ??= makeSnapshot(this, {
      systemPrompt: this.#systemPrompt,
      model: this.#model,
      thinkingLevel: this.#thinkingLevel,
      tools: this.#tools,
      messages: this.#transcript.versionReader(),
      isStreaming: this.#isStreaming,
      streamMessage: this.#streamMessage,
      pendingToolCalls: this.#pendingToolCalls,
      error: this.#error,
    });
    return this.#snapshot;
  }

  setSystemPrompt(prompt: string): void {
    this.#systemPrompt = prompt;
    this.#snapshot = undefined;
  }

  setModel(model: Model): void {
    this.#model = model;
    this.#snapshot = undefined;
  }

  setThinkingLevel(level: ThinkingLevel): void {
    this.#thinkingLevel = level;
    this.#snapshot = undefined;
  }

  setTools(tools: AnyTool[]): void {
    this.#tools = Object.freeze(tools.slice());
    this.#snapshot = undefined;
  }

  appendMessage(message: AgentMessage): void {
    this.#transcript.append(message);
    this.#snapshot = undefined;
  }

  replaceMessages(messages: AgentMessage[]): void {
    this.#transcript.replace(messages);
    this.#snapshot = undefined;
  }

  clearMessages(): void {
    this.replaceMessages([]);
  }

  // ---- Modes -------------------------------------------------------------------------------------------------

  get steeringMode(): QueueMode {
    return this.#steering.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.#steering.mode = mode;
  }
  get followUpMode(): QueueMode {
    return this.#followUps.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.#followUps.mode = mode;
  }
  setSteeringMode(mode: QueueMode): void {
    this.#steering.mode = mode;
  }
  getSteeringMode(): QueueMode {
    return this.#steering.mode;
  }
  setFollowUpMode(mode: QueueMode): void {
    this.#followUps.mode = mode;
  }
  getFollowUpMode(): QueueMode {
    return this.#followUps.mode;
  }
  /** Takes effect at the next tool batch, also during a run. */
  setToolExecution(mode: ToolExecutionMode): void {
    this.toolExecution = mode;
  }
  setSteeringDelivery(delivery: SteeringDelivery): void {
    this.steeringDelivery = delivery;
  }

  // ---- Queues ------------------------------------------------------------------------------------------------

  /** Queues a message for the running agent: taken at the next tool boundary and before the next LLM call. */
  steer(message: QueuedMessageInput): void {
    this.#steering.items.push(toMessage(message));
    for (const notify of this.#steerWatchers) notify();
  }

  /** Queues a message taken only when the agent would otherwise stop. */
  followUp(message: QueuedMessageInput): void {
    this.#followUps.items.push(toMessage(message));
  }

  clearSteeringQueue(): void {
    this.#steering.items = [];
  }
  clearFollowUpQueue(): void {
    this.#followUps.items = [];
  }
  clearAllQueues(): void {
    this.clearSteeringQueue();
    this.clearFollowUpQueue();
  }
  hasQueuedMessages(): boolean {
    return this.#steering.items.length > 0 || this.#followUps.items.length > 0;
  }

  // ---- Subscriptions -----------------------------------------------------------------------------------------

  /**
   * `subscribe(listener)`: every event. `subscribe(type, handler)`: events of one type, or all with `"*"`.
   * Returns the unsubscribe function. Listeners run in subscription order; see `AgentListener`.
   */
  subscribe(listener: AgentListener): () => void;
  subscribe<K extends AgentEventType | "*">(type: K, handler: AgentEventHandler<K>): () => void;
  subscribe(a: AgentListener | AgentEventType | "*", b?: Subscription["fn"]): () => void {
    const entry: Subscription =
      typeof a === "function" ? { type: "*", fn: a } : { type: a, fn: b as Subscription["fn"] };
    // Copy on write: a delivery in progress keeps the list it started with.
    this.#subscriptions = [...this.#subscriptions, entry];
    return () => {
      this.#subscriptions = this.#subscriptions.filter((s) => s !== entry);
    };
  }

  /** Removes a handler added with `subscribe(type, handler)`. */
  unsubscribe<K extends AgentEventType | "*">(type: K, handler: AgentEventHandler<K>): void {
    const index = this.#subscriptions.findIndex((s) => s.type === type && s.fn === handler);
    if (index >= 0) this.#subscriptions = this.#subscriptions.filter((_, i) => i !== index);
  }

  // ---- Runs --------------------------------------------------------------------------------------------------

  /** The abort signal of the active run, if any. */
  get signal(): AbortSignal | undefined {
    return this.#active?.controller.signal;
  }

  /** Aborts the active run: the stream and running tools see their signal fire; the run ends `aborted`. */
  abort(): void {
    this.#active?.controller.abort();
  }

  /** Resolves when the active run has ended and its last listener has settled. */
  waitForIdle(): Promise<void> {
    return this.#active?.idle ?? Promise.resolve();
  }

  /** Clears the transcript, runtime state and both queues. */
  reset(): void {
    this.#transcript.replace([]);
    this.#streamMessage = undefined;
    this.#pendingToolCalls = EMPTY_SET;
    this.#error = undefined;
    if (!this.#active) this.#isStreaming = false;
    this.#snapshot = undefined;
    this.clearAllQueues();
  }

  /** Starts a run from text (with optional images), a message, or messages. Rejects while a run is active. */
  prompt(message: AgentMessage | AgentMessage[]): Promise<void>;
  prompt(input: string, images?: ImageContent[]): Promise<void>;
  async prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
    if (this.#active) throw new Error(BUSY_PROMPT);
    let messages: AgentMessage[];
    if (Array.isArray(input)) messages = input;
    else if (typeof input === "string") {
      const content: UserMessage["content"] = [{ type: "text", text: input }];
      if (images) content.push(...images);
      messages = [{ role: "user", content, timestamp: Date.now() }];
    } else messages = [input];
    await this.#runPrompts(messages, false);
  }

  /**
   * Continues from the transcript. From a user or tool-result message: calls the model again. From an assistant
   * message: runs queued steering (else follow-up) messages. Rejects while a run is active or with nothing to do.
   */
  async continue(): Promise<void> {
    if (this.#active) throw new Error("Agent is already processing. Wait for completion before continuing.");
    const last = this.#transcript.last();
    if (!last) throw new Error("No messages to continue from");
    if ((last as { role?: unknown }).role === "assistant") {
      const steering = this.#steering.drain();
      if (steering.length > 0) return this.#runPrompts(steering, true);
      const followUps = this.#followUps.drain();
      if (followUps.length > 0) return this.#runPrompts(followUps, false);
      throw new Error("Cannot continue from message role: assistant");
    }
    await this.#lifecycle((signal) =>
      runAgentLoopContinue(this.#context(), this.#loopConfig(), (e) => this.#dispatch(e), signal, this.streamFn),
    );
  }

  #runPrompts(messages: AgentMessage[], skipInitialSteeringPoll: boolean): Promise<void> {
    return this.#lifecycle((signal) =>
      runAgentLoop(messages, this.#context(), this.#loopConfig(), (e) => this.#dispatch(e), signal, this.streamFn, {
        skipInitialSteeringPoll,
      }),
    );
  }

  #context(): AgentContext {
    // The loop copies the transcript once per run; tools are a frozen array shared with the snapshots.
    return {
      systemPrompt: this.#systemPrompt,
      messages: this.#transcript.current as AgentMessage[],
      tools: this.#tools as AnyTool[],
    };
  }

  /** Loop configuration whose fields read the agent live, so mode and hook changes apply during a run. */
  #loopConfig(): AgentLoopConfig {
    const agent = this;
    return {
      get model() {
        return agent.#model;
      },
      get reasoning() {
        return agent.#thinkingLevel === "off" ? undefined : agent.#thinkingLevel;
      },
      get sessionId() {
        return agent.sessionId;
      },
      get onPayload() {
        return agent.onPayload;
      },
      get onResponse() {
        return agent.onResponse;
      },
      get transport() {
        return agent.transport;
      },
      get thinkingBudgets() {
        return agent.thinkingBudgets;
      },
      get maxRetryDelayMs() {
        return agent.maxRetryDelayMs;
      },
      get toolExecution() {
        return agent.toolExecution;
      },
      get steeringDelivery() {
        return agent.steeringDelivery;
      },
      get beforeToolCall() {
        return agent.beforeToolCall;
      },
      get afterToolCall() {
        return agent.afterToolCall;
      },
      get transformContext() {
        return agent.transformContext;
      },
      get getApiKey() {
        return agent.getApiKey;
      },
      get convertToLlm() {
        return agent.convertToLlm;
      },
      getStreamOptions: () => ({
        reasoning: agent.#thinkingLevel === "off" ? undefined : agent.#thinkingLevel,
        sessionId: agent.sessionId,
        onPayload: agent.onPayload,
        onResponse: agent.onResponse,
        transport: agent.transport,
        thinkingBudgets: agent.thinkingBudgets,
        maxRetryDelayMs: agent.maxRetryDelayMs,
      }),
      getSteeringMessages: () => agent.#steering.drain(),
      getFollowUpMessages: () => agent.#followUps.drain(),
      onSteeringQueued: (notify) => {
        agent.#steerWatchers.add(notify);
        return () => agent.#steerWatchers.delete(notify);
      },
    };
  }

  async #lifecycle(body: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    if (this.#active) throw new Error(BUSY_PROMPT);
    const controller = new AbortController();
    let settle!: () => void;
    const idle = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.#active = { controller, idle };
    this.#signal = controller.signal;
    this.#isStreaming = true;
    this.#streamMessage = undefined;
    this.#error = undefined;
    this.#snapshot = undefined;
    try {
      await body(controller.signal);
    } catch (error) {
      // The loop only throws on contract violations (e.g. shouldStopAfterTurn threw): end the run cleanly.
      const failure = failedAssistantMessage(
        { model: this.#model },
        controller.signal.aborted ? "aborted" : "error",
        error instanceof Error ? error.message : String(error),
      );
      this.#transcript.append(failure);
      this.#error = failure.errorMessage;
      await this.#dispatch({ type: "agent_end", messages: [failure] });
    } finally {
      if (this.#delivering) await this.#delivering;
      this.#isStreaming = false;
      this.#streamMessage = undefined;
      this.#pendingToolCalls = EMPTY_SET;
      this.#snapshot = undefined;
      this.#active = undefined;
      this.#signal = IDLE_SIGNAL;
      settle();
    }
  }

  // ---- Event delivery ----------------------------------------------------------------------------------------

  /**
   * Applies the event to the state, then hands it to the listeners in order. Synchronous listeners cost no
   * promise at all; once one returns a promise, this and every later event wait behind it.
   */
  #dispatch(event: AgentEvent): Promise<void> | undefined {
    const before = this.#delivering;
    if (before) {
      const next = before.then(() => this.#deliver(event));
      this.#track(next);
      return next;
    }
    const pending = this.#deliver(event);
    if (pending) this.#track(pending);
    return pending;
  }

  #track(pending: Promise<void>): void {
    this.#delivering = pending;
    void pending.then(() => {
      if (this.#delivering === pending) this.#delivering = undefined;
    });
  }

  #deliver(event: AgentEvent): Promise<void> | undefined {
    this.#reduce(event);
    const subscriptions = this.#subscriptions;
    const signal = this.#signal;
    for (let i = 0; i < subscriptions.length; i++) {
      const s = subscriptions[i] as Subscription;
      if (s.type !== "*" && s.type !== event.type) continue;
      let result: unknown;
      try {
        result = s.fn(event, signal);
      } catch (error) {
        this.#report(error, event);
        continue;
      }
      if (isThenable(result)) return this.#deliverAsync(event, subscriptions, i + 1, result, signal);
    }
    return undefined;
  }

  async #deliverAsync(
    event: AgentEvent,
    subscriptions: readonly Subscription[],
    from: number,
    first: Promise<unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await first;
    } catch (error) {
      this.#report(error, event);
    }
    for (let i = from; i < subscriptions.length; i++) {
      const s = subscriptions[i] as Subscription;
      if (s.type !== "*" && s.type !== event.type) continue;
      try {
        const result = s.fn(event, signal);
        if (isThenable(result)) await result;
      } catch (error) {
        this.#report(error, event);
      }
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      this.onListenerError(error, event);
    } catch {
      // A failing error reporter must not break the run either.
    }
  }

  #reduce(event: AgentEvent): void {
    switch (event.type) {
      case "message_start":
      case "message_update":
        this.#streamMessage = event.message;
        break;
      case "message_end":
        this.#streamMessage = undefined;
        this.#transcript.append(event.message);
        break;
      case "tool_execution_start": {
        const next = new Set(this.#pendingToolCalls);
        next.add(event.toolCallId);
        this.#pendingToolCalls = next;
        break;
      }
      case "tool_execution_end": {
        const next = new Set(this.#pendingToolCalls);
        next.delete(event.toolCallId);
        this.#pendingToolCalls = next;
        break;
      }
      case "turn_end": {
        const message = event.message as { role?: unknown; errorMessage?: string };
        if (message.role === "assistant" && message.errorMessage) this.#error = message.errorMessage;
        break;
      }
      case "agent_end":
        this.#streamMessage = undefined;
        break;
      default:
        return;
    }
    this.#snapshot = undefined;
  }
}
