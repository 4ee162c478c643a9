/**
 * Gemini streaming (`models/{id}:streamGenerateContent?alt=sse`) through the official @google/genai SDK.
 * Gemini sends function calls whole, so each tool call is one start/delta/end triple. A fetch wrapper keeps
 * the HTTP response so `onResponse` and `retry-after` work although the SDK does not expose headers.
 */
import { GoogleGenAI } from "@google/genai";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  Context,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  StreamOptions,
  TextContent,
  ThinkingBudgets,
  ThinkingContent,
  ToolCall,
} from "../types.js";
import {
  convertGeminiContents,
  convertGeminiTools,
  explicitGeminiThinkingConfig,
  type GoogleThinkingSettings,
  geminiThinkingConfig,
} from "./google-shared.js";
import { parseSseJson, readSse } from "./sse-decoder.js";
import {
  applyOnPayload,
  describeError,
  type MessageBuilder,
  mergeHeaders,
  ProviderStreamError,
  reportResponse,
  resolveApiKey,
  retryAfterFromHeaders,
  runStream,
} from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface GoogleOptions extends StreamOptions {
  /**
   * Thinking: a level (Tiller's form, clamped per model) or pi-ai's explicit `{enabled, budgetTokens?, level?}`.
   * Undefined sends no thinking settings (model default).
   */
  thinking?: ModelThinkingLevel | GoogleThinkingSettings;
  thinkingBudgets?: ThinkingBudgets;
  toolChoice?: "auto" | "none" | "any";
}

interface GeminiPartIn {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
}

interface GeminiChunk {
  responseId?: string;
  modelVersion?: string;
  candidates?: { content?: { parts?: GeminiPartIn[] }; finishReason?: string; finishMessage?: string }[];
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    cachedContentTokenCount?: number;
  };
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  error?: { code?: unknown; message?: string; status?: string };
}

/** "https://host/v1beta" → base "https://host" + apiVersion "v1beta" (the SDK appends the version itself). */
export function splitBaseUrl(baseUrl: string): { baseUrl: string; apiVersion?: string } {
  const m = /^(.*?)\/(v\d+(?:alpha|beta)?\d*)\/?$/.exec(baseUrl);
  return m ? { baseUrl: m[1] as string, apiVersion: m[2] as string } : { baseUrl };
}

let callCounter = 0;

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: GoogleOptions | undefined,
): Promise<void> {
  const { baseUrl, apiVersion } = splitBaseUrl(model.baseUrl);
  const retries = options?.maxRetries ?? 0;
  const makeClient: GeminiClientFactory = (fetch) =>
    new GoogleGenAI({
      apiKey: resolveApiKey(model, options, false),
      httpOptions: {
        baseUrl,
        ...(apiVersion ? { apiVersion } : {}),
        headers: mergeHeaders(model.headers, options?.headers),
        ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
        ...(retries > 0 ? { retryOptions: { attempts: retries + 1 } } : {}),
        fetch,
      },
    });
  const thinking = options?.thinking;
  const thinkingConfig =
    thinking === undefined
      ? undefined
      : typeof thinking === "string"
        ? geminiThinkingConfig(model, thinking, options?.thinkingBudgets)
        : explicitGeminiThinkingConfig(model, thinking);
  return streamGeminiRequest(b, model, context, options, makeClient, thinkingConfig);
}

/** Builds the SDK client around the `fetch` it must use (which keeps the response body for the SSE decoder). */
export type GeminiClientFactory = (
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
) => GoogleGenAI;

/**
 * Sends one `generateContentStream` request through the client `makeClient` builds and turns the chunks into
 * `b`'s events. Shared by the Gemini API and Vertex AI, which differ only in client (endpoint, auth).
 */
export async function streamGeminiRequest(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: (StreamOptions & { toolChoice?: "auto" | "none" | "any" }) | undefined,
  makeClient: GeminiClientFactory,
  thinkingConfig: Record<string, unknown> | undefined,
): Promise<void> {
  let lastResponse: Response | undefined;
  let body: ReadableStream<Uint8Array> | null = null;
  // The SDK builds and sends the request and turns HTTP errors into ApiError; a successful stream body is
  // taken here and read with the linear SSE decoder (the SDK's reader rescans its whole buffer for three
  // delimiters per event and builds a Response per chunk: ~15x slower on bursts). The SDK gets an empty body.
  const takingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    lastResponse = response;
    if (!response.ok || !response.body) return response;
    body = response.body;
    return new Response("", { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const ai = makeClient(takingFetch);
  const config: Record<string, unknown> = {};
  if (context.systemPrompt) config.systemInstruction = context.systemPrompt;
  if (options?.maxTokens !== undefined) config.maxOutputTokens = options.maxTokens;
  if (options?.temperature !== undefined) config.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    config.tools = convertGeminiTools(context.tools);
    if (options?.toolChoice) {
      config.toolConfig = { functionCallingConfig: { mode: options.toolChoice.toUpperCase() } };
    }
  }
  if (thinkingConfig) config.thinkingConfig = thinkingConfig;
  const payload = await applyOnPayload(
    { model: model.id, contents: convertGeminiContents(model, context), config } as Record<string, unknown>,
    model,
    options,
  );
  // Keys the SDK does not know (added by onPayload) still reach the wire through extraBody.
  const { model: modelId, contents, config: finalConfig, ...extra } = payload;
  const requestConfig: Record<string, unknown> = { ...(finalConfig as Record<string, unknown>) };
  if (options?.signal) requestConfig.abortSignal = options.signal;
  if (Object.keys(extra).length > 0) requestConfig.httpOptions = { extraBody: extra };

  try {
    const drained = (await ai.models.generateContentStream({
      model: modelId as string,
      contents: contents as never,
      config: requestConfig as never,
    })) as AsyncGenerator<unknown>;
    for await (const _ of drained); // empty: the body was taken above
  } catch (error) {
    throw withHeaders(error, lastResponse);
  }
  if (lastResponse) await reportResponse(model, options, lastResponse);
  b.start();
  let finish: string | undefined;
  let finishMessage: string | undefined;
  for await (const batch of readSse(body)) {
    for (const message of batch) {
      const chunk = parseSseJson(message.data) as GeminiChunk;
      if (chunk.error) {
        const status = typeof chunk.error.code === "number" ? chunk.error.code : undefined;
        throw new ProviderStreamError(describeError({ status, error: chunk }).message, status);
      }
      if (chunk.responseId && !b.output.responseId) b.output.responseId = chunk.responseId;
      if (chunk.modelVersion && chunk.modelVersion !== model.id) b.output.responseModel = chunk.modelVersion;
      if (chunk.usageMetadata) applyUsage(b, chunk.usageMetadata);
      if (chunk.promptFeedback?.blockReason) {
        const fb = chunk.promptFeedback;
        throw new ProviderStreamError(
          `blocked: ${fb.blockReason}${fb.blockReasonMessage ? ` (${fb.blockReasonMessage})` : ""}`,
        );
      }
      const candidate = chunk.candidates?.[0];
      if (!candidate) continue;
      for (const part of candidate.content?.parts ?? []) handlePart(b, part);
      if (candidate.finishReason) {
        finish = candidate.finishReason;
        finishMessage = candidate.finishMessage;
      }
    }
  }
  if (options?.signal?.aborted) throw new Error("aborted");
  if (!finish) throw new ProviderStreamError("Connection closed before the stream finished: no finishReason received");
  if (finish === "STOP") return b.done(b.hasToolCalls() ? "toolUse" : "stop");
  if (finish === "MAX_TOKENS") return b.done("length");
  throw new ProviderStreamError(
    `${finish}${finishMessage ? `: ${finishMessage}` : ": the model stopped without finishing"}`,
  );
}

function handlePart(b: MessageBuilder, part: GeminiPartIn): void {
  if (part.functionCall) {
    b.closeCurrent();
    const name = part.functionCall.name ?? "";
    const id = part.functionCall.id || `${name}_${Date.now().toString(36)}_${(callCounter++).toString(36)}`;
    const index = b.openToolCall(id, name);
    if (part.thoughtSignature) b.block<ToolCall>(index).thoughtSignature = part.thoughtSignature;
    b.toolCallDelta(index, JSON.stringify(part.functionCall.args ?? {}));
    b.setToolArguments(index, part.functionCall.args ?? {});
    b.close(index);
    return;
  }
  if (typeof part.text !== "string") return;
  if (part.thought) {
    const index = b.current("thinking");
    b.thinkingDelta(index, part.text);
    if (part.thoughtSignature) b.block<ThinkingContent>(index).thinkingSignature = part.thoughtSignature;
    return;
  }
  if (!part.text && !part.thoughtSignature) return;
  const index = b.current("text");
  b.textDelta(index, part.text);
  if (part.thoughtSignature) b.block<TextContent>(index).textSignature = part.thoughtSignature;
}

function applyUsage(b: MessageBuilder, usage: NonNullable<GeminiChunk["usageMetadata"]>): void {
  const u = b.output.usage;
  const cached = usage.cachedContentTokenCount ?? 0;
  u.input = Math.max(0, (usage.promptTokenCount ?? 0) - cached);
  u.cacheRead = cached;
  u.output = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  b.usageChanged();
}

/** Adds the HTTP headers the SDK dropped, so a `retry-after` header is honoured like the body's RetryInfo. */
function withHeaders(error: unknown, response: Response | undefined): unknown {
  if (!response || response.ok || !error || typeof error !== "object") return error;
  const info = describeError(error);
  const fromHeader = retryAfterFromHeaders(response.headers);
  const out = new ProviderStreamError(info.message, info.status ?? response.status);
  (out as { headers?: Headers }).headers = response.headers;
  if (fromHeader === undefined && info.retryAfterMs !== undefined) {
    (out as { headers?: Record<string, string> }).headers = { "retry-after-ms": String(info.retryAfterMs) };
  }
  return out;
}

/** Streams one assistant turn from Gemini. Never throws; failures end in an `error` event. */
export function streamGoogle(
  model: Model<Api>,
  context: Context,
  options?: GoogleOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamGoogle`, with one provider-neutral `reasoning` level mapped to `thinkingConfig`. */
export function streamSimpleGoogle(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (thinking) =>
    streamGoogle(model, context, { ...options, thinking, thinkingBudgets: options?.thinkingBudgets }),
  );
}
