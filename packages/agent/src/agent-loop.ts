/**
 * The loop: pure execution, no state of its own beyond one run. It streams the assistant, runs tool calls,
 * polls steering and follow-up messages through the config, and reports everything as AgentEvents to a sink.
 * It ends only when the assistant calls no tools and both queues are empty (or on error, abort, or
 * `shouldStopAfterTurn`).
 */
import type { AssistantMessage, AssistantMessageEvent, Context, Message, ToolResultMessage } from "@tiller/ai";
import { EventStream } from "@tiller/ai";
import { defaultStreamFn } from "./default-stream.js";
import { checkResumable } from "./resume.js";
import { type BatchResume, executeToolCalls, type SkipCause } from "./tool-execution.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentStreamOptions,
  AgentToolCall,
  StreamFn,
  ToolCallsResume,
} from "./types.js";

/** Keeps only the message roles an LLM understands. The Agent's default `convertToLlm`. */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const role = (m as { role?: unknown }).role;
    if (role === "user" || role === "assistant" || role === "toolResult") out.push(m as Message);
  }
  return out;
}

const EMPTY_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** An assistant message standing for a turn that failed before or outside the stream. */
export function failedAssistantMessage(
  config: Pick<AgentLoopConfig, "model">,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: config.model.api,
    provider: config.model.provider,
    model: config.model.id,
    usage: { ...EMPTY_USAGE, cost: { ...EMPTY_USAGE.cost } },
    stopReason,
    errorMessage,
    timestamp: Date.now(),
  };
}

/**
 * Optional capability of a stream: `drainQueued()` returns (and removes) the events already queued, without
 * waiting; an empty array when none. Iteration afterwards continues after them.
 */
export interface DrainableStream {
  drainQueued(): readonly AssistantMessageEvent[];
}

const NO_EVENTS: readonly AssistantMessageEvent[] = [];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === "function";
}

/** Per-run loop state shared by the helpers below. */
interface Run {
  context: AgentContext;
  config: AgentLoopConfig;
  emit: AgentEventSink;
  signal: AbortSignal | undefined;
  streamFn: StreamFn;
  newMessages: AgentMessage[];
  /**
   * With the default conversion and no transformContext, the LLM view of the transcript is kept incrementally
   * (the transcript only grows), so a turn does not re-filter the whole history.
   */
  llmView: Message[];
  llmViewCount: number;
}

/** Not async: awaiting its result costs one tick when listeners are synchronous, not a promise chain. */
function send(run: Run, event: AgentEvent): Promise<void> | void {
  return run.emit(event);
}

async function pushMessage(run: Run, message: AgentMessage): Promise<void> {
  await send(run, { type: "message_start", message });
  run.context.messages.push(message);
  run.newMessages.push(message);
  await send(run, { type: "message_end", message });
}

async function drain(poll: (() => AgentMessage[] | Promise<AgentMessage[]>) | undefined): Promise<AgentMessage[]> {
  if (!poll) return [];
  const got = poll();
  return isThenable(got) ? await got : got;
}

/** Builds the LLM request context; transformContext and convertToLlm never replace the loop's transcript. */
async function buildLlmContext(run: Run, signal: AbortSignal | undefined): Promise<Context> {
  const { context, config } = run;
  let messages = context.messages;
  if (config.transformContext) {
    messages = await config.transformContext(messages.slice(), signal);
  } else if (config.convertToLlm === defaultConvertToLlm) {
    for (let i = run.llmViewCount; i < messages.length; i++) {
      const m = messages[i] as AgentMessage;
      const role = (m as { role?: unknown }).role;
      if (role === "user" || role === "assistant" || role === "toolResult") run.llmView.push(m as Message);
    }
    run.llmViewCount = messages.length;
    // Handed over without a copy (a copy per turn would make every turn O(transcript)): the array only ever
    // grows, after this call's stream has ended. A stream function that keeps it past the call must copy it.
    return { systemPrompt: context.systemPrompt, messages: run.llmView, tools: context.tools };
  }
  const converted = config.convertToLlm(messages);
  return {
    systemPrompt: context.systemPrompt,
    messages: isThenable(converted) ? await converted : converted,
    tools: context.tools,
  };
}

/**
 * One LLM call: emits message_start / message_update / message_end and returns the final message. Failures
 * anywhere (hooks, stream function, a broken stream) become an error assistant message, never an exception.
 */
async function streamAssistant(run: Run, signal: AbortSignal | undefined): Promise<AssistantMessage> {
  const { config } = run;
  if (signal?.aborted) return finishWith(run, failedAssistantMessage(config, "aborted", "Request was aborted"));
  let started = false;
  let partial: AssistantMessage | undefined;
  try {
    const llmContext = await buildLlmContext(run, signal);
    const key = config.getApiKey ? await config.getApiKey(config.model.provider) : undefined;
    const base = config.getStreamOptions ? config.getStreamOptions() : config;
    const options: AgentStreamOptions = { ...base, apiKey: key || base.apiKey, signal };
    const made = run.streamFn(config.model, llmContext, options);
    const stream = isThenable(made) ? await made : made;
    // Streams that can hand over their queued events synchronously (`drainQueued`) are read a burst at a time:
    // one await per burst instead of one per event. Others are iterated as usual.
    const drainQueued = (stream as Partial<DrainableStream>).drainQueued;
    const iterator = stream[Symbol.asyncIterator]();
    let burst: readonly AssistantMessageEvent[] = NO_EVENTS;
    let terminal = false;
    let at = 0;
    for (;;) {
      let event: AssistantMessageEvent | undefined;
      if (at < burst.length) event = burst[at++];
      else if (drainQueued) {
        burst = drainQueued.call(stream);
        at = 0;
        if (burst.length > 0) event = burst[at++];
      }
      if (!event) {
        const next = await iterator.next();
        if (next.done) break;
        event = next.value;
      }
      const type = event.type;
      if (type === "done" || type === "error") {
        terminal = true;
        break;
      }
      partial = event.partial;
      if (!started) {
        started = true;
        await send(run, { type: "message_start", message: { ...partial } });
        if (type === "start") continue;
      }
      if (type === "start") continue;
      // A shallow copy per delta (as pi-agent-core does): O(1), the content array is shared.
      const pending = run.emit({ type: "message_update", message: { ...partial }, assistantMessageEvent: event });
      if (pending) await pending;
      if (signal?.aborted) break;
    }
    let final: AssistantMessage;
    if (signal?.aborted && partial && partial.stopReason !== "aborted") {
      // The stream did not end itself on abort: keep what arrived, marked aborted.
      final = { ...partial, stopReason: "aborted", errorMessage: partial.errorMessage ?? "Request was aborted" };
    } else if (!terminal && !signal?.aborted) {
      // Ended without done/error (a broken stream): its result() may never settle, so do not wait for it.
      const reason = "The stream ended without a final message";
      final = partial
        ? { ...partial, stopReason: "error", errorMessage: reason }
        : failedAssistantMessage(config, "error", reason);
    } else {
      final = await stream.result();
    }
    return finishWith(run, final, started);
  } catch (error) {
    const stopReason = signal?.aborted ? "aborted" : "error";
    const final = partial
      ? { ...partial, stopReason, errorMessage: messageOf(error) }
      : failedAssistantMessage(config, stopReason, messageOf(error));
    return finishWith(run, final as AssistantMessage, started);
  }
}

async function finishWith(run: Run, final: AssistantMessage, started = false): Promise<AssistantMessage> {
  if (!started) await send(run, { type: "message_start", message: { ...final } });
  run.context.messages.push(final);
  run.newMessages.push(final);
  await send(run, { type: "message_end", message: final });
  return final;
}

function toolCallsOf(message: AssistantMessage): AgentToolCall[] {
  const calls: AgentToolCall[] = [];
  for (const block of message.content) if (block.type === "toolCall") calls.push(block);
  return calls;
}

/**
 * The turn's own signal. With `steeringDelivery: "abort"` a queued steering message aborts the turn (stream and
 * tools) without aborting the run; otherwise the run's signal is used as is.
 */
function turnSignal(run: Run): { signal: AbortSignal | undefined; dispose: () => void } {
  const { config } = run;
  if (config.steeringDelivery !== "abort" || !config.onSteeringQueued) return { signal: run.signal, dispose: noop };
  const controller = new AbortController();
  const parent = run.signal;
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  const unwatch = config.onSteeringQueued(() => controller.abort(new Error("steering")));
  return {
    signal: controller.signal,
    dispose: () => {
      unwatch();
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

function noop(): void {}

/** `resume`: the first turn finishes that interrupted batch instead of calling the model. */
async function runLoop(
  run: Run,
  initialPending: AgentMessage[],
  resume?: { message: AssistantMessage; batch: BatchResume },
): Promise<AgentMessage[]> {
  const { config } = run;
  let pending = initialPending;
  let firstTurn = true;
  for (;;) {
    let hasToolCalls = true;
    while (hasToolCalls || pending.length > 0) {
      if (!firstTurn) await send(run, { type: "turn_start" });
      firstTurn = false;
      for (const message of pending) await pushMessage(run, message);
      pending = [];

      const turn = turnSignal(run);
      let stoppedBySteering = false;
      let message: AssistantMessage;
      let toolResults: ToolResultMessage[] = [];
      let terminate = false;
      try {
        message = resume ? resume.message : await streamAssistant(run, turn.signal);
        const aborted = message.stopReason === "aborted" || message.stopReason === "error";
        stoppedBySteering = aborted && turn.signal !== run.signal && !run.signal?.aborted && !!turn.signal?.aborted;
        if (aborted && !stoppedBySteering) {
          await send(run, { type: "turn_end", message, toolResults: [] });
          await send(run, { type: "agent_end", messages: run.newMessages });
          return run.newMessages;
        }
        const calls = stoppedBySteering ? [] : toolCallsOf(message);
        hasToolCalls = calls.length > 0;
        if (hasToolCalls) {
          const delivery = config.steeringDelivery ?? "skip-remaining";
          const outcome = await executeToolCalls({
            context: run.context,
            assistantMessage: message,
            toolCalls: calls,
            config,
            signal: turn.signal,
            emit: run.emit,
            ...(resume ? { resume: resume.batch } : {}),
            checkBoundary: async (): Promise<SkipCause | undefined> => {
              if (run.signal?.aborted) return "aborted";
              if (turn.signal?.aborted) return "steering";
              if (delivery !== "skip-remaining" || pending.length > 0)
                return pending.length > 0 ? "steering" : undefined;
              const got = await drain(config.getSteeringMessages);
              if (got.length === 0) return undefined;
              pending = got;
              return "steering";
            },
          });
          resume = undefined;
          toolResults = outcome.results;
          terminate = outcome.terminate;
          for (const result of toolResults) {
            run.context.messages.push(result);
            run.newMessages.push(result);
          }
        }
      } finally {
        turn.dispose();
      }
      await send(run, { type: "turn_end", message, toolResults });
      if (terminate) hasToolCalls = false;
      if (
        config.shouldStopAfterTurn &&
        (await config.shouldStopAfterTurn({
          message,
          toolResults,
          context: run.context,
          newMessages: run.newMessages,
        }))
      ) {
        await send(run, { type: "agent_end", messages: run.newMessages });
        return run.newMessages;
      }
      if (run.signal?.aborted) {
        // Aborted during tools: end here, with an aborted assistant turn, without asking the model again.
        await send(run, { type: "turn_start" });
        const aborted = await finishWith(run, failedAssistantMessage(config, "aborted", "Request was aborted"));
        await send(run, { type: "turn_end", message: aborted, toolResults: [] });
        await send(run, { type: "agent_end", messages: run.newMessages });
        return run.newMessages;
      }
      // Steering drained at a tool boundary is already waiting; otherwise poll before the next LLM call.
      if (pending.length === 0) pending = await drain(config.getSteeringMessages);
    }
    const followUps = await drain(config.getFollowUpMessages);
    if (followUps.length === 0) break;
    pending = followUps;
  }
  await send(run, { type: "agent_end", messages: run.newMessages });
  return run.newMessages;
}

function makeRun(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn | undefined,
): Run {
  return {
    // The caller's context is not mutated: the loop works on its own transcript array.
    context: { ...context, messages: context.messages.slice() },
    config,
    emit,
    signal,
    streamFn: streamFn ?? defaultStreamFn,
    newMessages: [],
    llmView: [],
    llmViewCount: 0,
  };
}

/** Options of `runAgentLoop` beyond pi-agent-core's: the Agent's `continue()` path skips the first poll. */
export interface RunAgentLoopOptions {
  skipInitialSteeringPoll?: boolean;
}

/**
 * Runs a loop that starts with `prompts` and reports to `emit` (awaited when it returns a promise). Resolves to
 * every message the run added (prompts included).
 */
export async function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
  options: RunAgentLoopOptions = {},
): Promise<AgentMessage[]> {
  const run = makeRun(context, config, emit, signal, streamFn);
  await send(run, { type: "agent_start" });
  await send(run, { type: "turn_start" });
  for (const prompt of prompts) await pushMessage(run, prompt);
  const pending = options.skipInitialSteeringPoll ? [] : await drain(config.getSteeringMessages);
  return runLoop(run, pending);
}

/** Runs a loop from the context as it is (its last message must be a user or tool result message for the LLM). */
export async function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  checkContinuable(context);
  const run = makeRun(context, config, emit, signal, streamFn);
  await send(run, { type: "agent_start" });
  await send(run, { type: "turn_start" });
  return runLoop(run, []);
}

/**
 * Finishes a tool batch that was waiting for approval (e.g. in a process that has since stopped), then goes on as
 * the loop would: results appended, steering polled, the model called again. The context's transcript must end
 * with the assistant message of the approvals (see `ToolCallsResume`). Throws at once when it does not.
 */
export async function runAgentLoopResume(
  context: AgentContext,
  resume: ToolCallsResume,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  const batch = checkResumable(context, resume);
  const run = makeRun(context, config, emit, signal, streamFn);
  await send(run, { type: "agent_start" });
  await send(run, { type: "turn_start" });
  return runLoop(run, [], batch);
}

function checkContinuable(context: AgentContext): void {
  const last = context.messages[context.messages.length - 1];
  if (!last) throw new Error("Cannot continue: no messages in context");
  if ((last as { role?: unknown }).role === "assistant")
    throw new Error("Cannot continue from message role: assistant");
}

function eventStream(): EventStream<AgentEvent, AgentMessage[]> {
  return new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
  );
}

/** Starts a loop with new prompt messages; returns its events as a stream whose result is the new messages. */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  const stream = eventStream();
  void runAgentLoop(prompts, context, config, (event) => stream.push(event), signal, streamFn).then(
    (messages) => stream.end(messages),
    (error) => {
      stream.push({ type: "agent_end", messages: [failedAssistantMessage(config, "error", messageOf(error))] });
      stream.end();
    },
  );
  return stream;
}

/** Continues a loop from the context without new messages. Throws at once if the context cannot continue. */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  checkContinuable(context);
  const stream = eventStream();
  void runAgentLoopContinue(context, config, (event) => stream.push(event), signal, streamFn).then(
    (messages) => stream.end(messages),
    (error) => {
      stream.push({ type: "agent_end", messages: [failedAssistantMessage(config, "error", messageOf(error))] });
      stream.end();
    },
  );
  return stream;
}
