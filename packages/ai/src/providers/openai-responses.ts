/**
 * OpenAI Responses API streaming (`/responses`, `stream: true`) through the official SDK. Reasoning summaries
 * become thinking blocks whose signature is the reasoning item (with its encrypted content), so the same
 * model can continue the chain of thought on replay.
 */
import type OpenAI from "openai";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  Context,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  StreamOptions,
  TextContent,
  TextSignatureV1,
  ThinkingContent,
} from "../types.js";
import { createOpenAIClient } from "./openai-completions.js";
import { applyResponsesReasoning, convertResponsesInput, convertResponsesTools } from "./openai-responses-shared.js";
import { parseSseJson, readSse } from "./sse-decoder.js";
import {
  applyOnPayload,
  type MessageBuilder,
  ProviderStreamError,
  reportResponse,
  runStream,
} from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface OpenAIResponsesOptions extends StreamOptions {
  /** Reasoning level; undefined sends no reasoning settings (server default). */
  reasoningEffort?: ModelThinkingLevel;
  /** `reasoning.summary` (default "auto"); given alone, it turns reasoning on at "medium" effort. */
  reasoningSummary?: "auto" | "detailed" | "concise" | null;
  /** `service_tier`. Flex and priority change the price, and the cost reflects it. */
  serviceTier?: OpenAI.Responses.ResponseCreateParamsStreaming["service_tier"];
  toolChoice?: "auto" | "none" | "required" | { type: "function"; name: string };
}

interface ResponseBody {
  id?: string;
  model?: string;
  status?: string;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  service_tier?: string | null;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number } | null;
  } | null;
}

interface ItemBody {
  id?: string;
  type?: string;
  /** gpt-5.x message items: "commentary" (between tool calls) or "final_answer". */
  phase?: string | null;
  call_id?: string;
  name?: string;
  arguments?: string;
  summary?: { text?: string }[];
  content?: { type?: string; text?: string; refusal?: string }[];
}

interface StreamEvent {
  type: string;
  output_index?: number;
  summary_index?: number;
  delta?: string;
  arguments?: string;
  item?: ItemBody;
  response?: ResponseBody;
  code?: string | null;
  message?: string;
  /** The real API nests an `error` event's details here; the documented form has them at the top level. */
  error?: { type?: string | null; code?: string | null; message?: string | null } | null;
}

/** The `/responses` body for `model` (`model.id` as the model name; Azure swaps in its deployment name). */
export function buildResponsesParams(
  model: Model<Api>,
  context: Context,
  options: OpenAIResponsesOptions | undefined,
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    model: model.id,
    input: convertResponsesInput(model, context),
    stream: true,
    store: false,
  };
  if (options?.maxTokens !== undefined) params.max_output_tokens = options.maxTokens;
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (options?.sessionId && options.cacheRetention !== "none") params.prompt_cache_key = options.sessionId;
  if (context.tools && context.tools.length > 0) {
    params.tools = convertResponsesTools(context.tools);
    if (options?.toolChoice) params.tool_choice = options.toolChoice;
  }
  if (options?.serviceTier !== undefined) params.service_tier = options.serviceTier;
  const effort = options?.reasoningEffort ?? (options?.reasoningSummary ? "medium" : undefined);
  if (effort !== undefined) applyResponsesReasoning(params, model, effort);
  const reasoning = params.reasoning as { summary?: string } | undefined;
  if (options?.reasoningSummary && reasoning?.summary) reasoning.summary = options.reasoningSummary;
  return params;
}

function parseArgs(text: string | undefined): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: OpenAIResponsesOptions | undefined,
): Promise<void> {
  const client = createOpenAIClient(model, options);
  const params = await applyOnPayload(buildResponsesParams(model, context, options), model, options);
  return streamResponsesRequest(b, model, client, params, options);
}

/**
 * Sends a built `/responses` request through `client` and turns its event stream into `b`'s events. Shared by
 * every Responses-speaking API (OpenAI, Azure, the ChatGPT Codex backend), which differ only in client and body.
 */
export async function streamResponsesRequest(
  b: MessageBuilder,
  model: Model<Api>,
  client: OpenAI,
  params: Record<string, unknown>,
  options: StreamOptions | undefined,
): Promise<void> {
  const response = await client.responses
    .create(params as unknown as OpenAI.Responses.ResponseCreateParamsStreaming, { signal: options?.signal })
    .asResponse();
  await reportResponse(model, options, response);
  b.start();
  /** output_index → content index */
  const blocks = new Map<number, number>();
  let final: ResponseBody | undefined;
  for await (const batch of readSse(response.body)) {
    for (const message of batch) {
      if (message.data === "[DONE]") continue;
      const ev = parseSseJson(message.data) as StreamEvent;
      final = handleEvent(b, model, ev, blocks, options) ?? final;
    }
  }
  if (options?.signal?.aborted) throw new Error("aborted");
  if (!final)
    throw new ProviderStreamError("Connection closed before the stream finished: no response.completed received");
  if (final.status === "failed") {
    const e = final.error;
    throw new ProviderStreamError(`${e?.code ? `${e.code}: ` : ""}${e?.message ?? "response failed"}`);
  }
  if (final.status === "incomplete") {
    const reason = final.incomplete_details?.reason;
    if (reason === "max_output_tokens") return b.done("length");
    throw new ProviderStreamError(`incomplete: ${reason ?? "unknown reason"}`);
  }
  return b.done(b.hasToolCalls() ? "toolUse" : "stop");
}

/** Applies one Responses stream event; returns the final response body on completed/incomplete/failed. */
function handleEvent(
  b: MessageBuilder,
  model: Model<Api>,
  ev: StreamEvent,
  blocks: Map<number, number>,
  options: OpenAIResponsesOptions | undefined,
): ResponseBody | undefined {
  let final: ResponseBody | undefined;
  const index = ev.output_index === undefined ? undefined : blocks.get(ev.output_index);
  switch (ev.type) {
    case "response.created":
      if (ev.response?.id) b.output.responseId = ev.response.id;
      break;
    case "response.output_item.added": {
      const item = ev.item;
      if (!item || ev.output_index === undefined) break;
      if (item.type === "reasoning") blocks.set(ev.output_index, b.openThinking());
      else if (item.type === "message") blocks.set(ev.output_index, b.openText());
      else if (item.type === "function_call") {
        const id = item.id ? `${item.call_id}|${item.id}` : (item.call_id ?? `call_${ev.output_index}`);
        const i = b.openToolCall(id, item.name ?? "");
        blocks.set(ev.output_index, i);
        if (item.arguments) b.toolCallDelta(i, item.arguments);
      }
      break;
    }
    case "response.reasoning_summary_part.added":
      if (index !== undefined && (ev.summary_index ?? 0) > 0) b.thinkingDelta(index, "\n\n");
      break;
    case "response.reasoning_summary_text.delta":
    case "response.reasoning_text.delta":
      if (index !== undefined && ev.delta) b.thinkingDelta(index, ev.delta);
      break;
    case "response.output_text.delta":
    case "response.refusal.delta":
      if (index !== undefined && ev.delta) b.textDelta(index, ev.delta);
      break;
    case "response.function_call_arguments.delta":
      if (index !== undefined && ev.delta) b.toolCallDelta(index, ev.delta);
      break;
    case "response.output_item.done": {
      const item = ev.item;
      if (!item) break;
      if (index === undefined) {
        // An item sent whole, without `added`/deltas before it (the ChatGPT Codex backend does this).
        wholeItem(b, item);
        break;
      }
      if (item.type === "reasoning") {
        b.block<ThinkingContent>(index).thinkingSignature = JSON.stringify(item);
      } else if (item.type === "message" && item.id) {
        b.block<TextContent>(index).textSignature = textSignatureOf(item);
      } else if (item.type === "function_call" && b.toolArgsLength(index) === 0) {
        // Arguments that arrived only in the final item.
        const args = parseArgs(item.arguments);
        if (args !== undefined) b.setToolArguments(index, args);
      }
      b.close(index);
      break;
    }
    case "response.completed":
    case "response.done": // the ChatGPT Codex backend's name for `completed`
    case "response.incomplete":
    case "response.failed":
      final = ev.response;
      applyUsage(b, final?.usage, final?.service_tier ?? options?.serviceTier);
      if (final?.model && final.model !== model.id) b.output.responseModel = final.model;
      break;
    case "error": {
      const code = ev.error?.code ?? ev.error?.type ?? ev.code;
      const message = ev.error?.message ?? ev.message ?? "error event in stream";
      throw new ProviderStreamError(`${code ? `${code}: ` : ""}${message}`);
    }
  }
  return final;
}

/** The item id and phase, sent back with the text on replay (pi-ai's v1 text signature). */
function textSignatureOf(item: ItemBody): string {
  const signature: TextSignatureV1 = { v: 1, id: item.id ?? "" };
  if (item.phase === "commentary" || item.phase === "final_answer") signature.phase = item.phase;
  return JSON.stringify(signature);
}

/** Emits the blocks of an output item that arrived only as `output_item.done`. */
function wholeItem(b: MessageBuilder, item: ItemBody): void {
  if (item.type === "message") {
    const text = (item.content ?? []).map((p) => p.text ?? p.refusal ?? "").join("");
    if (!text) return;
    const i = b.openText();
    b.textDelta(i, text);
    if (item.id) b.block<TextContent>(i).textSignature = textSignatureOf(item);
    b.close(i);
  } else if (item.type === "reasoning") {
    const i = b.openThinking(JSON.stringify(item));
    b.thinkingDelta(i, (item.summary ?? []).map((p) => p.text ?? "").join("\n\n"));
    b.close(i);
  } else if (item.type === "function_call") {
    const i = b.openToolCall(item.id ? `${item.call_id}|${item.id}` : (item.call_id ?? "call_0"), item.name ?? "");
    if (item.arguments) b.toolCallDelta(i, item.arguments);
    const args = parseArgs(item.arguments);
    if (args !== undefined) b.setToolArguments(i, args);
    b.close(i);
  }
}

function applyUsage(b: MessageBuilder, usage: ResponseBody["usage"], serviceTier: string | null | undefined): void {
  if (!usage) return;
  const u = b.output.usage;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  u.input = Math.max(0, (usage.input_tokens ?? 0) - cached);
  u.cacheRead = cached;
  u.output = usage.output_tokens ?? 0;
  b.usageChanged();
  const factor = serviceTierPriceFactor(b.output.model, serviceTier);
  if (factor !== 1) {
    const c = u.cost;
    c.input *= factor;
    c.output *= factor;
    c.cacheRead *= factor;
    c.cacheWrite *= factor;
    c.total = c.input + c.output + c.cacheRead + c.cacheWrite;
  }
}

/** OpenAI's price multiplier per service tier: flex is half price, priority double (2.5x for gpt-5.5). */
function serviceTierPriceFactor(modelId: string, serviceTier: string | null | undefined): number {
  if (serviceTier === "flex") return 0.5;
  if (serviceTier === "priority") return modelId === "gpt-5.5" ? 2.5 : 2;
  return 1;
}

/** Streams one assistant turn from the Responses API. Never throws; failures end in an `error` event. */
export function streamOpenAIResponses(
  model: Model<Api>,
  context: Context,
  options?: OpenAIResponsesOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamOpenAIResponses`, with one provider-neutral `reasoning` level. */
export function streamSimpleOpenAIResponses(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (reasoningEffort) =>
    streamOpenAIResponses(model, context, { ...options, reasoningEffort }),
  );
}
