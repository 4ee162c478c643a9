/**
 * Faux provider for tests and demos: scripted replies (text, thinking, tool calls) streamed as realistic
 * chunked deltas, with abort and usage estimates, and no network. `registerFauxProvider` gives each caller an
 * isolated api id and response queue. The built-in `faux` api (no registration needed) echoes the last
 * user message, which is enough for demos and benchmarks of the layers above.
 */
import { registerApiProvider, unregisterApiProviders } from "../api-registry.js";
import { createEmptyUsage, describeThrown } from "../error-stream.js";
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  AssistantMessage,
  Context,
  Model,
  SimpleStreamOptions,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../types.js";
import { ContextMeter } from "./context-meter.js";
import { estimateTokens, serializeContext, streamScriptedMessage } from "./scripted-stream.js";

export interface FauxModelDefinition {
  id: string;
  name?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow?: number;
  maxTokens?: number;
}

export type FauxContentBlock = TextContent | ThinkingContent | ToolCall;

export function fauxText(text: string): TextContent {
  return { type: "text", text };
}

export function fauxThinking(thinking: string): ThinkingContent {
  return { type: "thinking", thinking };
}

let callIds = 0;

/** A tool call block; the id defaults to a unique `faux_call_N`. */
export function fauxToolCall(name: string, arguments_: ToolCall["arguments"], options?: { id?: string }): ToolCall {
  return { type: "toolCall", id: options?.id ?? `faux_call_${++callIds}`, name, arguments: arguments_ };
}

/**
 * A scripted reply. The stop reason defaults to `toolUse` when the content has a tool call, else `stop`;
 * an `error`/`aborted` stop reason makes the stream end with an `error` event after the content.
 */
export function fauxAssistantMessage(
  content: string | FauxContentBlock | FauxContentBlock[],
  options?: {
    stopReason?: AssistantMessage["stopReason"];
    errorMessage?: string;
    responseId?: string;
    timestamp?: number;
  },
): AssistantMessage {
  const blocks = typeof content === "string" ? [fauxText(content)] : Array.isArray(content) ? content : [content];
  const message: AssistantMessage = {
    role: "assistant",
    content: blocks,
    api: "faux",
    provider: "faux",
    model: "faux-model",
    usage: createEmptyUsage(),
    stopReason: options?.stopReason ?? (blocks.some((b) => b.type === "toolCall") ? "toolUse" : "stop"),
    timestamp: options?.timestamp ?? Date.now(),
  };
  if (options?.errorMessage !== undefined) message.errorMessage = options.errorMessage;
  if (options?.responseId !== undefined) message.responseId = options.responseId;
  return message;
}

export type FauxResponseFactory = (
  context: Context,
  options: StreamOptions | undefined,
  state: { callCount: number },
  model: Model<string>,
) => AssistantMessage | Promise<AssistantMessage>;

export type FauxResponseStep = AssistantMessage | FauxResponseFactory;

export interface RegisterFauxProviderOptions {
  /** Api id to register under; default a fresh unique id, so registrations never collide. */
  api?: string;
  provider?: string;
  models?: FauxModelDefinition[];
  /** Pace the stream in real time; default: as fast as the event loop allows, one macrotask per chunk. */
  tokensPerSecond?: number;
  /** Chunk size in tokens (4 characters), default 3–5. */
  tokenSize?: { min?: number; max?: number };
}

export interface FauxProviderRegistration {
  api: string;
  models: [Model<string>, ...Model<string>[]];
  getModel(): Model<string>;
  getModel(modelId: string): Model<string> | undefined;
  state: { callCount: number };
  /** Replaces the queue of replies; each request takes the next one. */
  setResponses: (responses: FauxResponseStep[]) => void;
  appendResponses: (responses: FauxResponseStep[]) => void;
  getPendingResponseCount: () => number;
  unregister: () => void;
}

function toModel(def: FauxModelDefinition, api: string, provider: string): Model<string> {
  return {
    id: def.id,
    name: def.name ?? def.id,
    api,
    provider,
    baseUrl: "http://faux.invalid",
    reasoning: def.reasoning ?? false,
    input: def.input ?? ["text", "image"],
    cost: def.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: def.contextWindow ?? 128_000,
    maxTokens: def.maxTokens ?? 16_384,
  };
}

/**
 * Usage for a request: input is characters/4 of the serialised context. With a `sessionId` (and caching not
 * disabled) the prefix shared with the session's previous prompt counts as `cacheRead`, like prompt caching.
 * Measured incrementally (`ContextMeter`), so a long conversation does not make each call cost its length.
 */
function estimateInputUsage(
  context: Context,
  options: StreamOptions | undefined,
  meters: Map<string | undefined, ContextMeter>,
): Usage {
  const usage = createEmptyUsage();
  const sessionId = options?.sessionId;
  const cached = !!sessionId && options?.cacheRetention !== "none";
  // Without caching, calls share one meter (it only measures); a session keeps its own previous prompt.
  const key = cached ? sessionId : undefined;
  let meter = meters.get(key);
  const first = !meter;
  if (!meter) {
    meter = new ContextMeter();
    meters.set(key, meter);
  }
  const measured = meter.measure(context, cached);
  const total = Math.ceil(measured.length / 4);
  if (cached && !first) {
    usage.cacheRead = Math.floor(measured.sharedPrefix / 4);
    usage.input = Math.max(0, total - usage.cacheRead);
    return usage;
  }
  usage.input = total;
  return usage;
}

let registrations = 0;

/** Registers an isolated faux api with its own models and reply queue. */
export function registerFauxProvider(options: RegisterFauxProviderOptions = {}): FauxProviderRegistration {
  const n = ++registrations;
  const api = options.api ?? `faux-${n}-${Math.random().toString(36).slice(2, 8)}`;
  const provider = options.provider ?? "faux";
  const sourceId = `faux:${api}:${n}`;
  const defs = options.models?.length ? options.models : [{ id: "faux-model" }];
  const models = defs.map((d) => toModel(d, api, provider)) as [Model<string>, ...Model<string>[]];
  const state = { callCount: 0 };
  let queue: FauxResponseStep[] = [];
  const meters = new Map<string | undefined, ContextMeter>();

  const streamFn = (
    model: Model<Api>,
    context: Context,
    streamOptions?: StreamOptions,
  ): AssistantMessageEventStream => {
    const stream = createAssistantMessageEventStream();
    state.callCount++;
    const step = queue.shift();
    void (async () => {
      const fail = (text: string) => {
        const error: AssistantMessage = {
          ...fauxAssistantMessage([], { stopReason: "error", errorMessage: text }),
          api: model.api,
          provider: model.provider,
          model: model.id,
        };
        stream.push({ type: "error", reason: "error", error });
      };
      if (!step) return fail("No more faux responses queued");
      let script: AssistantMessage;
      try {
        script = typeof step === "function" ? await step(context, streamOptions, state, model) : step;
      } catch (error) {
        return fail(`Faux response factory failed: ${describeThrown(error)}`);
      }
      await streamScriptedMessage(stream, model, script, {
        signal: streamOptions?.signal,
        tokensPerSecond: options.tokensPerSecond,
        tokenSize: options.tokenSize,
        seed: state.callCount,
        usage: estimateInputUsage(context, streamOptions, meters),
      });
    })();
    return stream;
  };

  registerApiProvider({ api, stream: streamFn, streamSimple: streamFn }, sourceId);

  function getModel(): Model<string>;
  function getModel(modelId: string): Model<string> | undefined;
  function getModel(modelId?: string): Model<string> | undefined {
    return modelId === undefined ? models[0] : models.find((m) => m.id === modelId);
  }

  return {
    api,
    models,
    getModel,
    state,
    setResponses: (responses) => {
      queue = [...responses];
    },
    appendResponses: (responses) => {
      queue.push(...responses);
    },
    getPendingResponseCount: () => queue.length,
    unregister: () => unregisterApiProviders(sourceId),
  };
}

function lastUserText(context: Context): string {
  for (let i = context.messages.length - 1; i >= 0; i--) {
    const m = context.messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    return m.content
      .filter((b): b is TextContent => b.type === "text")
      .map((b) => b.text)
      .join("\n");
  }
  return "";
}

/** Built-in `faux` api: replies "faux: <last user message>", streamed in chunks. Deterministic. */
export function streamFaux(model: Model<Api>, context: Context, options?: StreamOptions): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const usage = createEmptyUsage();
  usage.input = estimateTokens(serializeContext(context));
  void streamScriptedMessage(stream, model, fauxAssistantMessage(`faux: ${lastUserText(context)}`), {
    signal: options?.signal,
    usage,
  });
  return stream;
}

export function streamSimpleFaux(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  return streamFaux(model, context, options);
}
