/**
 * What every wire provider shares: the message being built, block bookkeeping that turns vendor chunks into
 * start/delta/end events, usage and cost, and the mapping of any failure to a final `error` event.
 */

import { getEnvApiKey, getEnvApiKeyNames } from "../env-api-keys.js";
import { createEmptyUsage } from "../error-stream.js";
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from "../event-stream.js";
import { calculateCost } from "../models.js";
import { StreamedField } from "../streamed-field.js";
import { StreamingToolArguments } from "../streaming-json.js";
import type {
  Api,
  AssistantMessage,
  Model,
  StopReason,
  StreamOptions,
  TextContent,
  ThinkingContent,
  ToolCall,
} from "../types.js";

type BlockKind = "text" | "thinking" | "toolCall";

/**
 * Builds one AssistantMessage in place and pushes the matching events. Blocks are addressed by their
 * content index; `current*` helpers serve vendors whose chunks carry no block boundaries (OpenAI, Gemini):
 * a chunk of another kind ends the open block.
 */
export class MessageBuilder {
  readonly stream: AssistantMessageEventStream = createAssistantMessageEventStream();
  readonly output: AssistantMessage;
  private readonly open = new Map<number, BlockKind>();
  private readonly toolArgs = new Map<number, StreamingToolArguments>();
  /** The open text and thinking blocks' streamed strings (pieces joined when read, see StreamedField). */
  private readonly fields = new Map<number, StreamedField<"text"> | StreamedField<"thinking">>();
  private currentIndex = -1;
  private started = false;
  private finished = false;

  constructor(private readonly model: Model<Api>) {
    this.output = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  get isFinished(): boolean {
    return this.finished;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stream.push({ type: "start", partial: this.output });
  }

  /** Opens a block and returns its content index. */
  openText(): number {
    this.start();
    const index = this.output.content.length;
    const block: TextContent = { type: "text", text: "" };
    this.output.content.push(block);
    this.fields.set(index, new StreamedField(block, "text"));
    this.open.set(index, "text");
    this.currentIndex = index;
    this.stream.push({ type: "text_start", contentIndex: index, partial: this.output });
    return index;
  }

  openThinking(signature?: string, redacted?: boolean): number {
    this.start();
    const index = this.output.content.length;
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    if (signature !== undefined) block.thinkingSignature = signature;
    if (redacted) block.redacted = true;
    this.output.content.push(block);
    this.fields.set(index, new StreamedField(block, "thinking"));
    this.open.set(index, "thinking");
    this.currentIndex = index;
    this.stream.push({ type: "thinking_start", contentIndex: index, partial: this.output });
    return index;
  }

  openToolCall(id: string, name: string): number {
    this.start();
    const index = this.output.content.length;
    const args = new StreamingToolArguments();
    this.toolArgs.set(index, args);
    this.output.content.push({ type: "toolCall", id, name, arguments: args.args });
    this.open.set(index, "toolCall");
    this.currentIndex = index;
    this.stream.push({ type: "toolcall_start", contentIndex: index, partial: this.output });
    return index;
  }

  block<T extends TextContent | ThinkingContent | ToolCall>(index: number): T {
    return this.output.content[index] as T;
  }

  textDelta(index: number, delta: string): void {
    if (!delta) return;
    const field = this.fields.get(index);
    if (field) field.append(delta);
    else (this.output.content[index] as TextContent).text += delta;
    this.stream.push({ type: "text_delta", contentIndex: index, delta, partial: this.output });
  }

  thinkingDelta(index: number, delta: string): void {
    if (!delta) return;
    const field = this.fields.get(index);
    if (field) field.append(delta);
    else (this.output.content[index] as ThinkingContent).thinking += delta;
    this.stream.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.output });
  }

  /** Appends a raw JSON fragment; the partial ToolCall's `arguments` is updated in O(fragment). */
  toolCallDelta(index: number, fragment: string): void {
    if (!fragment) return;
    const args = this.toolArgs.get(index);
    if (!args) return;
    args.push(fragment);
    const block = this.output.content[index] as ToolCall;
    // The object is live; reassign only when the document turned into one after starting as something else.
    if (block.arguments !== args.args) block.arguments = args.args;
    this.stream.push({ type: "toolcall_delta", contentIndex: index, delta: fragment, partial: this.output });
  }

  /** For vendors that send complete arguments (Gemini, Responses `.done`): replaces the streamed value. */
  setToolArguments(index: number, value: unknown): void {
    const block = this.output.content[index] as ToolCall;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      block.arguments = value as Record<string, unknown>;
    }
    this.toolArgs.delete(index);
  }

  /** Characters of streamed JSON received for a tool call (0 when none or already replaced). */
  toolArgsLength(index: number): number {
    return this.toolArgs.get(index)?.length ?? 0;
  }

  close(index: number): void {
    const kind = this.open.get(index);
    if (kind === undefined) return;
    this.open.delete(index);
    if (this.currentIndex === index) this.currentIndex = -1;
    this.sealField(index);
    const block = this.output.content[index];
    if (kind === "text") {
      this.stream.push({
        type: "text_end",
        contentIndex: index,
        content: (block as TextContent).text,
        partial: this.output,
      });
    } else if (kind === "thinking") {
      this.stream.push({
        type: "thinking_end",
        contentIndex: index,
        content: (block as ThinkingContent).thinking,
        partial: this.output,
      });
    } else {
      this.toolArgs.delete(index);
      this.stream.push({
        type: "toolcall_end",
        contentIndex: index,
        toolCall: block as ToolCall,
        partial: this.output,
      });
    }
  }

  /** The block's streamed string becomes a plain property again (its end, or the stream's). */
  private sealField(index: number): void {
    this.fields.get(index)?.seal();
    this.fields.delete(index);
  }

  closeAll(): void {
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) this.close(index);
  }

  /** The open block of `kind` that the next unframed chunk continues, opening one (and closing others). */
  current(kind: "text" | "thinking"): number {
    if (this.currentIndex >= 0 && this.open.get(this.currentIndex) === kind) return this.currentIndex;
    if (this.currentIndex >= 0) this.close(this.currentIndex);
    return kind === "text" ? this.openText() : this.openThinking();
  }

  /** Closes the block that unframed chunks were continuing, if any. */
  closeCurrent(): void {
    if (this.currentIndex >= 0) this.close(this.currentIndex);
  }

  hasToolCalls(): boolean {
    return this.output.content.some((b) => b.type === "toolCall");
  }

  /** Call after changing usage counters: recomputes the total and the cost. */
  usageChanged(): void {
    const u = this.output.usage;
    u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite;
    calculateCost(this.model, u);
  }

  done(reason: Extract<StopReason, "stop" | "length" | "toolUse">): void {
    if (this.finished) return;
    this.closeAll();
    this.finished = true;
    this.output.stopReason = reason;
    this.stream.push({ type: "done", reason, message: this.output });
  }

  /** Ends the stream with an `error` event; partial content and usage stay on the message. Never throws. */
  fail(error: unknown, signal?: AbortSignal, status?: number): void {
    if (this.finished) return;
    this.finished = true;
    // Blocks left open keep what arrived, as plain properties (the message is kept and may be replayed).
    for (const index of [...this.fields.keys()]) this.sealField(index);
    const aborted = signal?.aborted === true;
    const info = describeError(error);
    const out = this.output;
    out.stopReason = aborted ? "aborted" : "error";
    out.errorMessage = aborted ? "Request was aborted" : info.message;
    const st = status ?? info.status;
    if (st !== undefined && !aborted) out.errorStatus = st;
    if (info.retryAfterMs !== undefined && !aborted) out.retryAfterMs = info.retryAfterMs;
    this.stream.push({ type: "error", reason: aborted ? "aborted" : "error", error: out });
  }
}

export interface ErrorInfo {
  message: string;
  status?: number;
  retryAfterMs?: number;
}

interface HeaderBag {
  get?: (name: string) => string | null;
  [key: string]: unknown;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== "object") return undefined;
  const bag = headers as HeaderBag;
  if (typeof bag.get === "function") return bag.get(name) ?? undefined;
  const direct = bag[name] ?? bag[name.toLowerCase()];
  return typeof direct === "string" ? direct : undefined;
}

/** Milliseconds from `retry-after-ms`, or `retry-after` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: unknown, now = Date.now()): number | undefined {
  const ms = headerValue(headers, "retry-after-ms");
  if (ms !== undefined) {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return Math.round(n);
  }
  const ra = headerValue(headers, "retry-after");
  if (ra === undefined) return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(ra);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/** Gemini puts the wait in the body: `details: [{"@type": "...RetryInfo", "retryDelay": "12s"}]`. */
function retryAfterFromBody(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown })?.retryDelay;
    if (typeof delay === "string") {
      const m = /^([\d.]+)s$/.exec(delay.trim());
      if (m) return Math.round(Number(m[1]) * 1000);
    }
  }
  return undefined;
}

function tryJson(text: string): unknown {
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  try {
    return JSON.parse(text.slice(start));
  } catch {
    return undefined;
  }
}

/** The innermost `cause` with a system error code or message ("ECONNREFUSED", "other side closed"). */
function rootCause(error: unknown): string {
  let found = "";
  let current = (error as { cause?: unknown }).cause;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const c = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof c.code === "string") found = typeof c.message === "string" ? `${c.code}: ${c.message}` : c.code;
    else if (!found && typeof c.message === "string" && c.message !== "fetch failed") found = c.message;
    current = c.cause;
  }
  return found;
}

/**
 * Vendor message, HTTP status and requested wait from an SDK error, an in-stream error event or anything
 * thrown. The message starts with the status when there is one ("429 rate_limit_error: ...").
 */
export function describeError(error: unknown): ErrorInfo {
  if (error === null || error === undefined) return { message: "Unknown error" };
  if (typeof error !== "object") return { message: String(error) };
  const e = error as {
    status?: unknown;
    headers?: unknown;
    error?: unknown;
    message?: unknown;
    type?: unknown;
    code?: unknown;
  };
  const status = typeof e.status === "number" ? e.status : undefined;
  let body: unknown = e.error;
  const rawMessage = typeof e.message === "string" ? e.message : String(error);
  if (body === undefined) body = tryJson(rawMessage);
  // Bodies: OpenAI `{message, type, code}` (the SDK unwraps `error`), Anthropic `{type:"error", error:{type,
  // message}}`, Gemini `{error:{code, message, status, details}}`.
  const inner = (body as { error?: unknown } | undefined)?.error ?? body;
  let vendorMessage: string | undefined;
  let vendorType: string | undefined;
  if (inner && typeof inner === "object") {
    const i = inner as { message?: unknown; type?: unknown; status?: unknown; code?: unknown };
    if (typeof i.message === "string") vendorMessage = i.message;
    if (typeof i.type === "string") vendorType = i.type;
    else if (typeof i.status === "string") vendorType = i.status;
    else if (typeof i.code === "string") vendorType = i.code;
  }
  let message = vendorMessage ?? rawMessage.replace(/^\d{3} /, "");
  // undici reports a connection closed mid-body as a bare "terminated"; fetch failures hide the reason in `cause`.
  if (message === "terminated") message = "Connection closed before the stream finished (terminated)";
  const causeText = rootCause(error);
  if (causeText && !message.includes(causeText)) message = `${message} (${causeText})`;
  if (vendorType && !message.includes(vendorType)) message = `${vendorType}: ${message}`;
  if (status !== undefined && !message.startsWith(String(status))) message = `${status} ${message}`;
  const retryAfterMs = retryAfterFromHeaders(e.headers) ?? retryAfterFromBody(body);
  const info: ErrorInfo = { message };
  if (status !== undefined) info.status = status;
  if (retryAfterMs !== undefined) info.retryAfterMs = retryAfterMs;
  return info;
}

/** Error thrown by providers for failures they detect themselves (bad finish reason, cut stream). */
export class ProviderStreamError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * Runs a provider body with the never-throw contract: the stream is returned at once; whatever the body
 * throws (or an abort it did not notice) becomes the final `error` event.
 */
export function runStream(
  model: Model<Api>,
  options: StreamOptions | undefined,
  body: (b: MessageBuilder) => Promise<void>,
): AssistantMessageEventStream {
  const builder = new MessageBuilder(model);
  const signal = options?.signal;
  void (async () => {
    try {
      if (signal?.aborted) throw new Error("aborted before the request was sent");
      await body(builder);
      if (!builder.isFinished) {
        if (signal?.aborted) throw new Error("aborted");
        throw new ProviderStreamError("Connection closed before the stream finished: no stop reason received");
      }
    } catch (error) {
      try {
        builder.fail(error, signal);
      } catch {
        // fail() never throws; this guard keeps a bug there from becoming an unhandled rejection.
      }
    }
  })();
  return builder.stream;
}

/** Applies `onPayload` (which may replace the body). */
export async function applyOnPayload<T>(payload: T, model: Model<Api>, options: StreamOptions | undefined): Promise<T> {
  if (!options?.onPayload) return payload;
  const replaced = await options.onPayload(payload, model);
  return (replaced ?? payload) as T;
}

/** Calls `onResponse` with status and headers as a plain record. */
export async function reportResponse(
  model: Model<Api>,
  options: StreamOptions | undefined,
  response: { status: number; headers: Headers } | undefined,
): Promise<void> {
  if (!options?.onResponse || !response) return;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  await options.onResponse({ status: response.status, headers }, model);
}

export function mergeHeaders(...sources: (Record<string, string> | undefined)[]): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const s of sources) if (s) out = { ...(out ?? {}), ...s };
  return out;
}

/** Text of tool-result or user content blocks, images left out. */
export function textOf(content: string | ({ type: string; text?: string } | { type: string })[]): string {
  if (typeof content === "string") return content;
  let out = "";
  for (const part of content) {
    if (part.type === "text") out += (out ? "\n" : "") + ((part as { text?: string }).text ?? "");
  }
  return out;
}

/**
 * `options.apiKey`, else the provider's environment variable. Local servers get a placeholder (they ignore
 * it); anywhere else a missing key is a clear error instead of an opaque 401.
 */
export function resolveApiKey(model: Model<Api>, options: StreamOptions | undefined, allowMissing: boolean): string {
  const key = options?.apiKey ?? getEnvApiKey(model.provider);
  if (key) return key;
  if (allowMissing) return "not-needed";
  throw new ProviderStreamError(
    `No API key for provider "${model.provider}": pass options.apiKey or set ${getEnvApiKeyNames(model.provider).join(" or ")}`,
  );
}
