/**
 * Mistral chat streaming (`POST /v1/chat/completions`, `stream: true`) through the official
 * @mistralai/mistralai SDK (`chat.stream`): the SDK builds and sends the request and turns HTTP errors into
 * typed errors. A fetcher takes the successful body, which Tiller's linear SSE decoder reads (the SDK's
 * reader rescans its whole buffer for a boundary on every network read and copies it per event).
 * Thinking arrives as `thinking` content chunks; tool calls usually whole, sometimes in fragments by index.
 */
import { HTTPClient, Mistral } from "@mistralai/mistralai";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type { Api, Context, Model, SimpleStreamOptions, StreamOptions, ToolCall } from "../types.js";
import { convertMistralMessages, convertMistralTools, mistralReasoning } from "./mistral-shared.js";
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

export interface MistralOptions extends StreamOptions {
  toolChoice?: "auto" | "none" | "any" | "required" | { type: "function"; function: { name: string } };
  /** `reasoning` makes Magistral models think (their thinking streams as thinking blocks). */
  promptMode?: "reasoning";
  /** For the models that take it (Mistral Small 4, Medium 3.5): `none` or `high`. */
  reasoningEffort?: "none" | "high";
}

type ContentChunk = { type?: string; text?: string; thinking?: { type?: string; text?: string }[] };

interface MistralChunk {
  id?: string;
  model?: string;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
  choices?: {
    delta?: {
      content?: string | ContentChunk[] | null;
      tool_calls?: { id?: string | null; index?: number; function?: { name?: string; arguments?: unknown } }[] | null;
    };
    finish_reason?: string | null;
  }[];
}

/** Request fields the SDK knows, in its camelCase spelling; anything else `onPayload` adds is sent as is. */
function extraWireFields(payload: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (value !== undefined && !(key in sent) && !(snake in sent)) extra[key] = value;
  }
  return extra;
}

function buildPayload(
  model: Model<Api>,
  context: Context,
  options: MistralOptions | undefined,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    model: model.id,
    stream: true,
    messages: convertMistralMessages(model, context),
  };
  if (context.tools && context.tools.length > 0) {
    payload.tools = convertMistralTools(context.tools);
    if (options?.toolChoice) payload.toolChoice = options.toolChoice;
  }
  if (options?.temperature !== undefined) payload.temperature = options.temperature;
  if (options?.maxTokens !== undefined) payload.maxTokens = options.maxTokens;
  if (options?.promptMode) payload.promptMode = options.promptMode;
  if (options?.reasoningEffort) payload.reasoningEffort = options.reasoningEffort;
  return payload;
}

/** An SDK HTTP error as Tiller's error shape: status, headers (retry-after) and the vendor's JSON body. */
function fromSdkError(error: unknown): unknown {
  const e = error as { statusCode?: unknown; body?: unknown; headers?: unknown };
  if (!e || typeof e.statusCode !== "number") return error;
  let body: unknown;
  try {
    body = typeof e.body === "string" && e.body ? JSON.parse(e.body) : undefined;
  } catch {
    body = { message: e.body };
  }
  // `{"detail": …}` (request validation) has no message field: keep its text.
  if (body && typeof body === "object" && !("message" in body) && "detail" in body) {
    body = { message: JSON.stringify((body as { detail: unknown }).detail) };
  }
  const info = describeError({ status: e.statusCode, error: body ?? { message: String(e.body ?? "") } });
  const out = new ProviderStreamError(info.message, e.statusCode);
  (out as { headers?: unknown }).headers = e.headers;
  return out;
}

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: MistralOptions | undefined,
): Promise<void> {
  const payload = await applyOnPayload(buildPayload(model, context, options), model, options);
  let response: Response | undefined;
  let body: ReadableStream<Uint8Array> | null = null;
  const timeoutMs = options?.timeoutMs;
  const fetcher = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let request = input instanceof Request ? input : new Request(input, init);
    if (options?.onPayload) {
      // The SDK serialises only the fields it knows; put back what onPayload added.
      const sent = JSON.parse(await request.clone().text()) as Record<string, unknown>;
      const extra = extraWireFields(payload, sent);
      if (Object.keys(extra).length > 0)
        request = new Request(request, { body: JSON.stringify({ ...sent, ...extra }) });
    }
    // `timeoutMs` bounds the wait for the response, not the stream that follows.
    const timer = new AbortController();
    const timeout = timeoutMs
      ? setTimeout(() => timer.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs)
      : undefined;
    try {
      response = await fetch(request, { signal: AbortSignal.any([request.signal, timer.signal]) });
    } finally {
      clearTimeout(timeout);
    }
    if (!response.ok || !response.body) return response;
    body = response.body;
    return new Response("", { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const retries = options?.maxRetries ?? 0;
  const client = new Mistral({
    apiKey: resolveApiKey(model, options, false),
    serverURL: model.baseUrl.replace(/\/v1\/?$/, ""),
    httpClient: new HTTPClient({ fetcher }),
  });
  try {
    await client.chat.stream(payload as never, {
      // A signal of our own also keeps the SDK from arming its 5-minute whole-request timeout.
      signal: options?.signal ?? new AbortController().signal,
      headers: mergeHeaders(model.headers, options?.headers, mistralAffinity(options, model)),
      retries:
        retries > 0
          ? {
              strategy: "backoff",
              backoff: { initialInterval: 500, maxInterval: 30000, exponent: 2, maxElapsedTime: 120000 },
              retryConnectionErrors: true,
            }
          : { strategy: "none" },
      ...(retries > 0 ? { retryCodes: ["429", "500", "502", "503", "504"] } : {}),
    });
  } catch (error) {
    throw fromSdkError(error);
  }
  if (response) await reportResponse(model, options, response);
  b.start();
  const tools = new Map<number, number>();
  let finish: string | undefined;
  for await (const batch of readSse(body)) {
    for (const message of batch) {
      if (message.data === "[DONE]") continue;
      finish = handleChunk(b, model, parseSseJson(message.data) as MistralChunk, tools) ?? finish;
    }
  }
  if (options?.signal?.aborted) throw new Error("aborted");
  if (!finish) throw new ProviderStreamError("Connection closed before the stream finished: no finish_reason received");
  if (finish === "length" || finish === "model_length") return b.done("length");
  if (finish === "stop" || finish === "tool_calls") return b.done(b.hasToolCalls() ? "toolUse" : "stop");
  throw new ProviderStreamError(`${finish}: the model stopped without finishing`);
}

/** Mistral routes requests with the same `x-affinity` to the same KV cache (prefix caching). */
function mistralAffinity(options: MistralOptions | undefined, model: Model<Api>): Record<string, string> | undefined {
  const given = { ...model.headers, ...options?.headers };
  if (!options?.sessionId || options.cacheRetention === "none" || "x-affinity" in given) return undefined;
  return { "x-affinity": options.sessionId };
}

/** Applies one chunk; returns its finish_reason, if any. */
function handleChunk(
  b: MessageBuilder,
  model: Model<Api>,
  chunk: MistralChunk,
  tools: Map<number, number>,
): string | undefined {
  if (chunk.id && !b.output.responseId) b.output.responseId = chunk.id;
  if (chunk.model && chunk.model !== model.id) b.output.responseModel = chunk.model;
  if (chunk.usage) {
    const u = b.output.usage;
    const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    u.input = Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached);
    u.cacheRead = cached;
    u.output = chunk.usage.completion_tokens ?? 0;
    b.usageChanged();
  }
  const choice = chunk.choices?.[0];
  if (!choice) return undefined;
  const content = choice.delta?.content;
  if (typeof content === "string") {
    if (content) b.textDelta(b.current("text"), content);
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === "thinking") {
        const text = (part.thinking ?? []).map((t) => t.text ?? "").join("");
        if (text) b.thinkingDelta(b.current("thinking"), text);
      } else if (part.type === "text" && part.text) {
        b.textDelta(b.current("text"), part.text);
      }
    }
  }
  for (const call of choice.delta?.tool_calls ?? []) {
    const key = call.index ?? tools.size;
    const id = call.id && call.id !== "null" ? call.id : undefined;
    let index = tools.get(key);
    // A new id at a known index is a new call (servers that number every call 0).
    if (index !== undefined && id && b.block<ToolCall>(index).id !== id) index = undefined;
    if (index === undefined) {
      b.closeCurrent();
      index = b.openToolCall(id ?? `call${key}${tools.size}`.padEnd(9, "0").slice(0, 9), call.function?.name ?? "");
      tools.set(key, index);
    }
    const args = call.function?.arguments;
    if (typeof args === "string") b.toolCallDelta(index, args);
    else if (args && typeof args === "object") {
      b.toolCallDelta(index, JSON.stringify(args));
      b.setToolArguments(index, args);
    }
  }
  return choice.finish_reason ?? undefined;
}

/** Streams one assistant turn from Mistral. Never throws; failures end in an `error` event. */
export function streamMistral(
  model: Model<Api>,
  context: Context,
  options?: MistralOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamMistral`, with one provider-neutral `reasoning` level (`promptMode` or `reasoningEffort`). */
export function streamSimpleMistral(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (l) =>
    streamMistral(model, context, { ...options, ...mistralReasoning(model, l) }),
  );
}
