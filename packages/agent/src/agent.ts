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

import {
  defaultConvertToLlm,
  failedAssistantMessage,
  runAgentLoop,
  runAgentLoopContinue,
  runAgentLoopResume,
} from "./agent-loop.js";
import {
  type AgentEventHandler,
  type AgentOptions,
  DEFAULT_MODEL,
  MessageQueue,
  type QueuedMessageInput,
  toMessage,
} from "./agent-options.js";
import { makeSnapshot, type StateOwner, Transcript } from "./agent-state.js";
import { ApprovalBroker, type ResolveApprovalOptions } from "./approvals.js";
import { defaultStreamFn } from "./default-stream.js";
import { EventBus, type Subscription } from "./event-bus.js";
import { liveLoopConfig } from "./live-loop-config.js";
import { checkResumable } from "./resume.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventType,
  AgentListener,
  AgentLoopConfig,
  AgentMessage,
  AgentState,
  AgentTool,
  ApprovalDecision,
  PendingApproval,
  QueueMode,
  SteeringDelivery,
  StreamFn,
  ThinkingLevel,
  ToolCallsResume,
  ToolExecutionMode,
} from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

const BUSY_PROMPT =
  "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";

const EMPTY_SET: ReadonlySet<string> = new Set();

interface ActiveRun {
  controller: AbortController;
  idle: Promise<void>;
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

  readonly #bus = new EventBus(
    (event) => this.#reduce(event),
    () => this.#signal,
    (error, event) => this.onListenerError(error, event),
  );
  readonly #steering: MessageQueue;
  readonly #followUps: MessageQueue;
  #steerWatchers = new Set<() => void>();
  readonly #approvals: ApprovalBroker;
  #active: ActiveRun | undefined;
  /** The active run's signal (or a never-aborted one), handed to listeners. */
  #signal: AbortSignal = IDLE_SIGNAL;

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
    this.#approvals = new ApprovalBroker(options.alwaysAllowed);
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

  // ---- Approvals ---------------------------------------------------------------------------------------------

  /**
   * Decides a pending approval (`tool_approval_request`'s `approval.id`). Returns false when none with this id is
   * waiting (already decided, timed out, aborted, or unknown); throws for a decision the request does not offer.
   */
  resolveApproval(id: string, decision: ApprovalDecision, options?: ResolveApprovalOptions): boolean {
    return this.#approvals.resolve(id, decision, options);
  }

  /** The tool calls waiting for a decision now, oldest first. */
  getPendingApprovals(): PendingApproval[] {
    return this.#approvals.pending();
  }

  /** The keys `allow-always` decisions (and the `alwaysAllowed` option) remembered. */
  getAlwaysAllowed(): string[] {
    return this.#approvals.alwaysAllowed();
  }

  /** Forgets one remembered `allow-always` key, or all of them. */
  forgetAlwaysAllowed(key?: string): void {
    this.#approvals.forget(key);
  }

  /**
   * Finishes a tool batch that was waiting for approval when an earlier process stopped (see `ToolCallsResume`),
   * then continues the run. The transcript must end with the approvals' assistant message. Rejects while a run is
   * active or when the resume does not fit the transcript.
   */
  async resumeToolCalls(resume: ToolCallsResume): Promise<void> {
    if (this.#active) throw new Error(BUSY_PROMPT);
    const context = this.#context();
    checkResumable(context, resume); // a resume that does not fit is refused here, not turned into a failed run
    await this.#lifecycle((signal) =>
      runAgentLoopResume(context, resume, this.#loopConfig(), (e) => this.#dispatch(e), signal, this.streamFn),
    );
  }

  // ---- Subscriptions -----------------------------------------------------------------------------------------

  /**
   * `subscribe(listener)`: every event. `subscribe(type, handler)`: events of one type, or all with `"*"`.
   * Returns the unsubscribe function. Listeners run in subscription order; see `AgentListener`.
   */
  subscribe(listener: AgentListener): () => void;
  subscribe<K extends AgentEventType | "*">(type: K, handler: AgentEventHandler<K>): () => void;
  subscribe(a: AgentListener | AgentEventType | "*", b?: Subscription["fn"]): () => void {
    return this.#bus.add(typeof a === "function" ? { type: "*", fn: a } : { type: a, fn: b as Subscription["fn"] });
  }

  /** Removes a handler added with `subscribe(type, handler)`. */
  unsubscribe<K extends AgentEventType | "*">(type: K, handler: AgentEventHandler<K>): void {
    this.#bus.remove(type, handler as Subscription["fn"]);
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

  /** The run's loop configuration: it reads this agent live (see live-loop-config.ts). */
  #loopConfig(): AgentLoopConfig {
    return liveLoopConfig(this, {
      model: () => this.#model,
      thinkingLevel: () => this.#thinkingLevel,
      approvals: this.#approvals,
      drainSteering: () => this.#steering.drain(),
      drainFollowUps: () => this.#followUps.drain(),
      watchSteering: (notify) => {
        this.#steerWatchers.add(notify);
        return () => this.#steerWatchers.delete(notify);
      },
    });
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
      const settled = this.#bus.settled();
      if (settled) await settled;
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

  #dispatch(event: AgentEvent): Promise<void> | undefined {
    return this.#bus.dispatch(event);
  }

  /** Applies an event to the state, just before the listeners see it. */
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
