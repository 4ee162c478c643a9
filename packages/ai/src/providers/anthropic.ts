/**
 * Anthropic Messages streaming (`/v1/messages`, `stream: true`) through the official SDK. Input tokens are
 * recorded at `message_start`, so an aborted or failed stream still reports what the prompt cost.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  Context,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  StreamOptions,
  ThinkingBudgets,
  ThinkingContent,
} from "../types.js";
import {
  type AnthropicEffort,
  type AnthropicThinkingDisplay,
  applyAnthropicThinking,
  applyExplicitAnthropicThinking,
  cacheControl,
  convertAnthropicMessages,
  convertAnthropicTools,
  supportsAdaptiveThinking,
} from "./anthropic-shared.js";
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

export interface AnthropicOptions extends StreamOptions {
  /** Thinking level (Tiller's form); undefined or "off" sends no thinking settings. Wins over `thinkingEnabled`. */
  thinking?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
  /**
   * pi-ai's form: `true` enables thinking (adaptive on Opus 4.6+/Sonnet 4.6, else budget-based), `false` sends
   * `{type: "disabled"}`. Used only when `thinking` is not set.
   */
  thinkingEnabled?: boolean;
  /** Budget for budget-based thinking with `thinkingEnabled` (default 1024). */
  thinkingBudgetTokens?: number;
  /** Effort for adaptive thinking with `thinkingEnabled` (`output_config.effort`). */
  effort?: AnthropicEffort;
  /** `display` of the thinking settings ("summarized" by default, so Opus 4.7 shows its thinking too). */
  thinkingDisplay?: AnthropicThinkingDisplay;
  /**
   * Sends the `interleaved-thinking-2025-05-14` beta (thinking between tool calls) on models without
   * adaptive thinking. Off unless set: pi-ai sends it by default.
   */
  interleavedThinking?: boolean;
  toolChoice?: "auto" | "any" | "none" | { type: "tool"; name: string };
  /** A ready client (e.g. `AnthropicVertex`); Tiller then builds none and ignores key and header options. */
  client?: AnthropicClient;
}

/**
 * The part of an Anthropic SDK client Tiller calls. Structural, so a client from another copy or version of
 * `@anthropic-ai/sdk` (pi-ai brings its own) is accepted; `create` is a method, so its parameter is checked
 * bivariantly across those versions.
 */
export interface AnthropicClient {
  messages: {
    create(
      body: Anthropic.MessageCreateParamsStreaming,
      options?: { signal?: AbortSignal | null },
    ): { asResponse(): Promise<Response> };
  };
}

interface UsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";

function createClient(model: Model<Api>, options: AnthropicOptions | undefined): Anthropic {
  const key = resolveApiKey(model, options, false);
  // Claude subscription (OAuth) tokens go in Authorization; API keys in the documented x-api-key header, which
  // Anthropic-compatible gateways also expect.
  const oauth = key.startsWith("sk-ant-oat");
  const betas = oauth ? ["oauth-2025-04-20"] : [];
  if (options?.interleavedThinking && !supportsAdaptiveThinking(model.id)) betas.push(INTERLEAVED_THINKING_BETA);
  return new Anthropic({
    apiKey: null,
    authToken: oauth ? key : null,
    baseURL: model.baseUrl,
    defaultHeaders: mergeHeaders(
      { ...(oauth ? {} : { "x-api-key": key }), ...(betas.length ? { "anthropic-beta": betas.join(",") } : {}) },
      model.headers,
      options?.headers,
    ),
    maxRetries: options?.maxRetries ?? 0,
    ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    dangerouslyAllowBrowser: true,
    logLevel: "off",
  });
}

function buildParams(
  model: Model<Api>,
  context: Context,
  options: AnthropicOptions | undefined,
): Record<string, unknown> {
  const retention = options?.cacheRetention ?? "short";
  const params: Record<string, unknown> = {
    model: model.id,
    max_tokens: options?.maxTokens ?? model.maxTokens,
    messages: convertAnthropicMessages(model, context, retention),
    stream: true,
  };
  if (context.systemPrompt) {
    const control = cacheControl(retention);
    params.system = [{ type: "text", text: context.systemPrompt, ...(control ? { cache_control: control } : {}) }];
  }
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    params.tools = convertAnthropicTools(context.tools);
    if (options?.toolChoice) {
      params.tool_choice = typeof options.toolChoice === "string" ? { type: options.toolChoice } : options.toolChoice;
    }
  }
  const userId = options?.metadata?.user_id;
  if (typeof userId === "string") params.metadata = { user_id: userId };
  if (options?.thinking) applyAnthropicThinking(params, model, options.thinking, options.thinkingBudgets);
  else if (options) applyExplicitAnthropicThinking(params, model, options);
  const thinking = params.thinking as { type?: string } | undefined;
  if (options?.thinkingDisplay && thinking && thinking.type !== "disabled") {
    params.thinking = { ...thinking, display: options.thinkingDisplay };
  }
  return params;
}

function applyUsage(b: MessageBuilder, usage: UsageFields | undefined | null): void {
  if (!usage) return;
  const u = b.output.usage;
  if (typeof usage.input_tokens === "number") u.input = usage.input_tokens;
  if (typeof usage.output_tokens === "number") u.output = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === "number") u.cacheRead = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === "number") u.cacheWrite = usage.cache_creation_input_tokens;
  b.usageChanged();
}

// The SDK's event union is wide; these are the fields read here.
interface RawEvent {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: UsageFields };
  content_block?: {
    type: string;
    id?: string;
    name?: string;
    input?: Record<string, unknown>;
    text?: string;
    thinking?: string;
    signature?: string;
    data?: string;
  };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: UsageFields;
}

/** Applies one Messages stream event; returns the stop reason from message_delta. */
function handleEvent(
  b: MessageBuilder,
  model: Model<Api>,
  ev: RawEvent,
  blocks: Map<number, number>,
): string | undefined {
  let stopReason: string | undefined;
  switch (ev.type) {
    case "message_start":
      if (ev.message?.id) b.output.responseId = ev.message.id;
      if (ev.message?.model && ev.message.model !== model.id) b.output.responseModel = ev.message.model;
      applyUsage(b, ev.message?.usage);
      break;
    case "content_block_start": {
      const cb = ev.content_block;
      if (!cb || ev.index === undefined) break;
      if (cb.type === "text") {
        const i = b.openText();
        blocks.set(ev.index, i);
        if (cb.text) b.textDelta(i, cb.text);
      } else if (cb.type === "thinking") {
        const i = b.openThinking(cb.signature || undefined);
        blocks.set(ev.index, i);
        if (cb.thinking) b.thinkingDelta(i, cb.thinking);
      } else if (cb.type === "redacted_thinking") {
        const i = b.openThinking(cb.data, true);
        blocks.set(ev.index, i);
        b.thinkingDelta(i, "[Reasoning redacted]");
      } else if (cb.type === "tool_use") {
        const i = b.openToolCall(cb.id ?? `toolu_${ev.index}`, cb.name ?? "");
        blocks.set(ev.index, i);
        // Anthropic sends `input: {}` and streams the JSON; some compatible servers put it all here instead.
        if (cb.input && typeof cb.input === "object" && Object.keys(cb.input).length > 0) {
          b.setToolArguments(i, cb.input);
        }
      }
      break;
    }
    case "content_block_delta": {
      const i = ev.index === undefined ? undefined : blocks.get(ev.index);
      const d = ev.delta;
      if (i === undefined || !d) break;
      if (d.type === "text_delta" && d.text) b.textDelta(i, d.text);
      else if (d.type === "thinking_delta" && d.thinking) b.thinkingDelta(i, d.thinking);
      else if (d.type === "signature_delta" && d.signature) {
        const block = b.block<ThinkingContent>(i);
        block.thinkingSignature = (block.thinkingSignature ?? "") + d.signature;
      } else if (d.type === "input_json_delta" && d.partial_json) b.toolCallDelta(i, d.partial_json);
      break;
    }
    case "content_block_stop": {
      const i = ev.index === undefined ? undefined : blocks.get(ev.index);
      if (i !== undefined) b.close(i);
      break;
    }
    case "message_delta":
      if (ev.delta?.stop_reason) stopReason = ev.delta.stop_reason;
      applyUsage(b, ev.usage);
      break;
  }
  return stopReason;
}

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: AnthropicOptions | undefined,
): Promise<void> {
  const client = options?.client ?? createClient(model, options);
  const params = await applyOnPayload(buildParams(model, context, options), model, options);
  const response = await client.messages
    .create(params as unknown as Anthropic.MessageCreateParamsStreaming, { signal: options?.signal })
    .asResponse();
  await reportResponse(model, options, response);
  b.start();
  const blocks = new Map<number, number>();
  let stopReason: string | undefined;
  for await (const batch of readSse(response.body)) {
    for (const message of batch) {
      const ev = parseSseJson(message.data) as RawEvent;
      if (ev.type === "error" || message.event === "error") {
        throw new ProviderStreamError(describeError({ error: ev }).message);
      }
      const reason = handleEvent(b, model, ev, blocks);
      if (reason) stopReason = reason;
    }
  }
  if (options?.signal?.aborted) throw new Error("aborted");
  if (!stopReason)
    throw new ProviderStreamError(
      "Connection closed before the stream finished: no stop_reason (message_delta) received",
    );
  switch (stopReason) {
    case "max_tokens":
      return b.done("length");
    case "tool_use":
      return b.done("toolUse");
    case "refusal":
      throw new ProviderStreamError("refusal: the model declined to answer");
    case "model_context_window_exceeded":
      throw new ProviderStreamError("model_context_window_exceeded: the context window filled up while generating");
    default:
      return b.done(b.hasToolCalls() ? "toolUse" : "stop");
  }
}

/** Streams one assistant turn from the Anthropic Messages API. Never throws; failures end in an `error` event. */
export function streamAnthropic(
  model: Model<Api>,
  context: Context,
  options?: AnthropicOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamAnthropic`, with one provider-neutral `reasoning` level mapped to a thinking budget. */
export function streamSimpleAnthropic(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (thinking) =>
    streamAnthropic(model, context, { ...options, thinking, thinkingBudgets: options?.thinkingBudgets }),
  );
}
