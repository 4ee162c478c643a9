/**
 * `streamProxy`: a `StreamFn` for apps whose LLM calls go through their own server (which holds the provider
 * keys). The server receives `{ model, context, options }` at `POST <proxyUrl>/api/stream` and answers with
 * `data: <ProxyAssistantMessageEvent>` lines: assistant events without their `partial` message, to save
 * bandwidth. This side rebuilds the message from them, so consumers see ordinary `AssistantMessageEvent`s.
 *
 * Wire-compatible with pi-agent-core 0.73's proxy. Like every stream function it never throws once it returns:
 * HTTP errors, bad lines, a cut stream and abort all end the stream with an `error` event.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Context,
  createAssistantMessageEventStream,
  createEmptyUsage,
  describeThrown,
  type Model,
  SseDecoder,
  StreamingToolArguments,
  type TextContent,
  type ThinkingContent,
  type ToolCall,
} from "@tiller/ai";
import type { ProxyAssistantMessageEvent, ProxySerializableStreamOptions, ProxyStreamOptions } from "./types.js";

const ABORTED = "Request aborted by user";

/** Thrown inside the reader for a protocol violation; becomes the error event's message. */
class ProxyProtocolError extends Error {}

/** Only the serializable options travel; the signal and credentials never go into the body. */
function requestOptions(options: ProxyStreamOptions): ProxySerializableStreamOptions {
  return {
    temperature: options.temperature,
    maxTokens: options.maxTokens,
    reasoning: options.reasoning,
    cacheRetention: options.cacheRetention,
    sessionId: options.sessionId,
    headers: options.headers,
    metadata: options.metadata,
    transport: options.transport,
    thinkingBudgets: options.thinkingBudgets,
    maxRetryDelayMs: options.maxRetryDelayMs,
  };
}

async function httpErrorMessage(response: Response): Promise<string> {
  let message = `Proxy error: ${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body?.error === "string" && body.error) message = `Proxy error: ${body.error}`;
  } catch {
    // Not JSON: the status line is all there is.
  }
  return message;
}

/** Rebuilds the assistant message from stripped proxy events (one instance per request). */
class ProxyMessageRebuilder {
  readonly message: AssistantMessage;
  private readonly toolArgs = new Map<number, StreamingToolArguments>();

  constructor(model: Model) {
    this.message = {
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

  private block<K extends "text" | "thinking" | "toolCall">(
    event: { type: string; contentIndex: number },
    kind: K,
  ): Extract<TextContent | ThinkingContent | ToolCall, { type: K }> {
    const block = this.message.content[event.contentIndex];
    if (block?.type !== kind) {
      throw new ProxyProtocolError(
        `Proxy sent ${event.type} for content ${event.contentIndex}, which is not a ${kind} block`,
      );
    }
    return block as Extract<TextContent | ThinkingContent | ToolCall, { type: K }>;
  }

  /** The full event for one proxy event, or undefined for one that adds nothing. */
  apply(event: ProxyAssistantMessageEvent): AssistantMessageEvent | undefined {
    const partial = this.message;
    switch (event.type) {
      case "start":
        return { type: "start", partial };
      case "text_start":
        partial.content[event.contentIndex] = { type: "text", text: "" };
        return { type: "text_start", contentIndex: event.contentIndex, partial };
      case "text_delta": {
        this.block(event, "text").text += event.delta;
        return { type: "text_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
      }
      case "text_end": {
        const block = this.block(event, "text");
        if (event.contentSignature !== undefined) block.textSignature = event.contentSignature;
        return { type: "text_end", contentIndex: event.contentIndex, content: block.text, partial };
      }
      case "thinking_start":
        partial.content[event.contentIndex] = { type: "thinking", thinking: "" };
        return { type: "thinking_start", contentIndex: event.contentIndex, partial };
      case "thinking_delta": {
        this.block(event, "thinking").thinking += event.delta;
        return { type: "thinking_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
      }
      case "thinking_end": {
        const block = this.block(event, "thinking");
        if (event.contentSignature !== undefined) block.thinkingSignature = event.contentSignature;
        return { type: "thinking_end", contentIndex: event.contentIndex, content: block.thinking, partial };
      }
      case "toolcall_start": {
        const args = new StreamingToolArguments();
        this.toolArgs.set(event.contentIndex, args);
        partial.content[event.contentIndex] = {
          type: "toolCall",
          id: event.id,
          name: event.toolName,
          arguments: args.args,
        };
        return { type: "toolcall_start", contentIndex: event.contentIndex, partial };
      }
      case "toolcall_delta": {
        const block = this.block(event, "toolCall");
        const args = this.toolArgs.get(event.contentIndex);
        if (args) {
          // Incremental parse: each fragment costs its own length, never a re-parse of the whole buffer.
          args.push(event.delta);
          if (block.arguments !== args.args) block.arguments = args.args;
        }
        return { type: "toolcall_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
      }
      case "toolcall_end": {
        const block = partial.content[event.contentIndex];
        // An end for a block that is not a tool call carries nothing to report (pi ignores it too).
        if (block?.type !== "toolCall") return undefined;
        this.toolArgs.delete(event.contentIndex);
        return { type: "toolcall_end", contentIndex: event.contentIndex, toolCall: block, partial };
      }
      case "done":
        partial.stopReason = event.reason;
        partial.usage = event.usage;
        return { type: "done", reason: event.reason, message: partial };
      case "error":
        partial.stopReason = event.reason;
        if (event.errorMessage !== undefined) partial.errorMessage = event.errorMessage;
        partial.usage = event.usage;
        return { type: "error", reason: event.reason, error: partial };
      default:
        // A newer server's event type: skip it rather than fail the whole answer.
        return undefined;
    }
  }

  fail(reason: "aborted" | "error", errorMessage: string): AssistantMessageEvent {
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    return { type: "error", reason, error: this.message };
  }
}

async function run(
  stream: AssistantMessageEventStream,
  rebuilder: ProxyMessageRebuilder,
  model: Model,
  context: Context,
  options: ProxyStreamOptions,
): Promise<void> {
  const signal = options.signal;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // fetch's own signal does not interrupt a pending read() on every runtime: cancel the reader as well.
  const onAbort = () => {
    reader?.cancel(ABORTED).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort);
  try {
    if (signal?.aborted) throw new Error(ABORTED);
    const response = await fetch(`${options.proxyUrl}/api/stream`, {
      method: "POST",
      headers: { Authorization: `Bearer ${options.authToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model, context, options: requestOptions(options) }),
      signal,
    });
    if (!response.ok) throw new Error(await httpErrorMessage(response));
    if (!response.body) throw new Error("Proxy error: response has no body");
    reader = response.body.getReader();
    const decoder = new SseDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw new Error(ABORTED);
      const messages = done ? decoder.flush() : decoder.push(value);
      for (const m of messages) {
        if (!m.data.trim()) continue;
        let parsed: ProxyAssistantMessageEvent;
        try {
          parsed = JSON.parse(m.data) as ProxyAssistantMessageEvent;
        } catch {
          throw new ProxyProtocolError(`Proxy sent a line that is not JSON: ${m.data.slice(0, 200)}`);
        }
        const event = rebuilder.apply(parsed);
        if (!event) continue;
        stream.push(event);
        if (event.type === "done" || event.type === "error") {
          reader.cancel().catch(() => {});
          return;
        }
      }
      if (done) break;
    }
    // Pi ends such a stream without a final message; a cut answer must still end in an error the caller sees.
    throw new Error("Proxy stream ended before its done or error event");
  } catch (error) {
    const aborted = signal?.aborted === true;
    stream.push(rebuilder.fail(aborted ? "aborted" : "error", aborted ? ABORTED : describeThrown(error)));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Streams `model`'s answer to `context` through a proxy server. Use as an Agent's `streamFn`:
 * `streamFn: (model, context, opts) => streamProxy(model, context, { ...opts, authToken, proxyUrl })`.
 */
export function streamProxy(model: Model, context: Context, options: ProxyStreamOptions): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const rebuilder = new ProxyMessageRebuilder(model);
  void run(stream, rebuilder, model, context, options);
  return stream;
}
