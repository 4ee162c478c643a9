/**
 * OpenAI chat-completions streaming (`/chat/completions`, `stream: true`) through the official SDK, for
 * OpenAI and every server that copies the API. Request building and compat flags live in
 * openai-completions-shared.ts.
 */
import OpenAI from "openai";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  Context,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  StreamOptions,
  ThinkingContent,
  ToolCall,
} from "../types.js";
import {
  applyCompatExtras,
  applyReasoning,
  convertMessages,
  convertTools,
  isLocalServer,
  REASONING_FIELDS,
  resolveCompat,
} from "./openai-completions-shared.js";
import { parseSseJson, readSse } from "./sse-decoder.js";
import {
  applyOnPayload,
  describeError,
  type MessageBuilder,
  mergeHeaders,
  ProviderStreamError,
  reportResponse,
  resolveApiKey,
  runStream,
} from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface OpenAICompletionsOptions extends StreamOptions {
  /** Reasoning level sent as the server's reasoning knob; undefined sends none (server default). */
  reasoningEffort?: ModelThinkingLevel;
  toolChoice?: "auto" | "none" | "required" | { type: "function"; function: { name: string } };
}

interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_text?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface StreamChunk {
  id?: string;
  model?: string;
  usage?: ChunkUsage | null;
  choices?: { delta?: ChunkDelta; finish_reason?: string | null }[];
  error?: unknown;
}

interface ChunkUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
}

export function createOpenAIClient(model: Model<Api>, options: StreamOptions | undefined): OpenAI {
  return new OpenAI({
    apiKey: resolveApiKey(model, options, isLocalServer(model.baseUrl)),
    baseURL: model.baseUrl,
    defaultHeaders: mergeHeaders(model.headers, options?.headers),
    maxRetries: options?.maxRetries ?? 0,
    ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    dangerouslyAllowBrowser: true,
    logLevel: "off",
  });
}

function buildParams(
  model: Model<Api>,
  context: Context,
  options: OpenAICompletionsOptions | undefined,
): Record<string, unknown> {
  const compat = resolveCompat(model);
  const params: Record<string, unknown> = {
    model: model.id,
    messages: convertMessages(model, context, compat),
    stream: true,
  };
  if (compat.supportsUsageInStreaming) params.stream_options = { include_usage: true };
  if (compat.supportsStore) params.store = false;
  // OpenAI routes requests with the same key to the same prompt cache.
  if (compat.supportsStore && options?.sessionId && options.cacheRetention !== "none") {
    params.prompt_cache_key = options.sessionId;
  }
  if (options?.cacheRetention === "long" && compat.supportsLongCacheRetention) {
    if (options.sessionId) params.prompt_cache_key = options.sessionId;
    params.prompt_cache_retention = "24h";
  }
  if (options?.maxTokens !== undefined) params[compat.maxTokensField] = options.maxTokens;
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    params.tools = convertTools(context.tools, compat);
    if (options?.toolChoice) params.tool_choice = options.toolChoice;
  }
  if (options?.reasoningEffort !== undefined) applyReasoning(params, model, compat, options.reasoningEffort);
  applyCompatExtras(params, model, compat, options?.cacheRetention);
  return params;
}

function applyUsage(b: MessageBuilder, usage: ChunkUsage): void {
  const u = b.output.usage;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  u.input = Math.max(0, (usage.prompt_tokens ?? 0) - cached);
  u.cacheRead = cached;
  u.output = usage.completion_tokens ?? 0;
  // OpenAI counts reasoning inside completion_tokens; xAI counts it beside them (total = prompt + completion +
  // reasoning). The total tells which, so billed reasoning is never dropped from output and cost.
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const prompt = usage.prompt_tokens ?? 0;
  if (reasoning > 0 && usage.total_tokens === prompt + u.output + reasoning) u.output += reasoning;
  b.usageChanged();
}

/** Applies one chat.completion.chunk; returns its finish_reason, if any. */
function handleChunk(
  b: MessageBuilder,
  model: Model<Api>,
  chunk: StreamChunk,
  toolIndex: Map<number, number>,
): string | undefined {
  if (chunk.id && !b.output.responseId) b.output.responseId = chunk.id;
  if (chunk.model && chunk.model !== model.id) b.output.responseModel = chunk.model;
  if (chunk.usage) applyUsage(b, chunk.usage);
  const choice = chunk.choices?.[0];
  if (!choice) return undefined;
  const delta = (choice.delta ?? {}) as ChunkDelta;
  // Servers disagree on the field name for reasoning text; the first non-empty one wins (some send the same
  // text under two names). The field name becomes the block's signature so replay sends it back there.
  const field = REASONING_FIELDS.find((f) => typeof delta[f] === "string" && delta[f] !== "");
  if (field) {
    const index = b.current("thinking");
    const block = b.block<ThinkingContent>(index);
    block.thinkingSignature ??= field;
    b.thinkingDelta(index, delta[field] as string);
  }
  if (typeof delta.content === "string" && delta.content) b.textDelta(b.current("text"), delta.content);
  if (delta.tool_calls) {
    for (const tc of delta.tool_calls) {
      const key = tc.index ?? 0;
      let index = toolIndex.get(key);
      // Some servers reuse index 0 for every call; a new id then means a new call.
      if (index !== undefined && tc.id && b.block<ToolCall>(index).id !== tc.id && b.toolArgsLength(index) > 0) {
        index = undefined;
      }
      if (index === undefined) {
        b.closeCurrent();
        index = b.openToolCall(tc.id ?? `call_${key}_${toolIndex.size}`, tc.function?.name ?? "");
        toolIndex.set(key, index);
      } else if (tc.function?.name && !b.block<ToolCall>(index).name) {
        b.block<ToolCall>(index).name = tc.function.name;
      }
      if (tc.function?.arguments) b.toolCallDelta(index, tc.function.arguments);
    }
  }
  return choice.finish_reason ?? undefined;
}

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: OpenAICompletionsOptions | undefined,
): Promise<void> {
  const sessionId = options?.sessionId;
  // Servers that keep a prompt cache per node route a conversation to one node by these headers.
  const affinity =
    sessionId && resolveCompat(model).sendSessionAffinityHeaders
      ? { session_id: sessionId, "x-client-request-id": sessionId, "x-session-affinity": sessionId }
      : undefined;
  const client = createOpenAIClient(
    model,
    affinity ? { ...options, headers: { ...affinity, ...options?.headers } } : options,
  );
  const params = await applyOnPayload(buildParams(model, context, options), model, options);
  const response = await client.chat.completions
    .create(params as unknown as OpenAI.ChatCompletionCreateParamsStreaming, { signal: options?.signal })
    .asResponse();
  await reportResponse(model, options, response);
  b.start();
  const toolIndex = new Map<number, number>();
  let finish: string | null | undefined;
  for await (const batch of readSse(response.body)) {
    for (const message of batch) {
      if (message.data === "[DONE]") continue;
      const chunk = parseSseJson(message.data) as StreamChunk;
      if (chunk.error) throw new ProviderStreamError(describeError({ error: chunk.error }).message);
      const f = handleChunk(b, model, chunk, toolIndex);
      if (f) finish = f;
    }
  }
  if (options?.signal?.aborted) throw new Error("aborted");
  if (!finish) throw new ProviderStreamError("Connection closed before the stream finished: no finish_reason received");
  switch (finish) {
    case "length":
      return b.done("length");
    case "tool_calls":
    case "function_call":
      return b.done("toolUse");
    case "content_filter":
      throw new ProviderStreamError("content_filter: the provider's content filter stopped the response");
    default:
      // Some servers report "stop" after tool calls.
      return b.done(b.hasToolCalls() ? "toolUse" : "stop");
  }
}

/** Streams one assistant turn from a chat-completions endpoint. Never throws; failures end in an `error` event. */
export function streamOpenAICompletions(
  model: Model<Api>,
  context: Context,
  options?: OpenAICompletionsOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamOpenAICompletions`, with one provider-neutral `reasoning` level. */
export function streamSimpleOpenAICompletions(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (reasoningEffort) =>
    streamOpenAICompletions(model, context, { ...options, reasoningEffort }),
  );
}
