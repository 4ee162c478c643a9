/**
 * Streams a complete, pre-built assistant message the way a real provider would: start, then per block
 * start/delta.../end in small chunks (tool arguments as JSON fragments), then done or error. Shared by the
 * faux and offline providers. Honours abort between chunks, keeping what was streamed so far.
 */
import { createEmptyUsage } from "../error-stream.js";
import type { AssistantMessageEventStream } from "../event-stream.js";
import { calculateCost } from "../models.js";
import { StreamingToolArguments } from "../streaming-json.js";
import type {
  Api,
  AssistantMessage,
  Context,
  Message,
  Model,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "../types.js";

export interface ScriptedStreamOptions {
  signal?: AbortSignal;
  /** Pace in tokens per second (setTimeout); without it each chunk waits one macrotask turn only. */
  tokensPerSecond?: number;
  /** Chunk size in tokens (4 characters each), drawn per chunk from [min, max]. Default 3–5. */
  tokenSize?: { min?: number; max?: number };
  /** Seed of the chunk-size generator, so a given call always chunks the same way. */
  seed?: number;
  /** Usage to report; output tokens are re-estimated from what was actually streamed. */
  usage?: Usage;
}

const CHARS_PER_TOKEN = 4;

/** Token estimate used by the faux and offline providers: characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Plain-text rendering of a context, for usage estimates. O(size of the context). */
export function serializeContext(context: Context): string {
  const parts: string[] = [];
  if (context.systemPrompt) parts.push(context.systemPrompt);
  for (const message of context.messages) pushMessageParts(message, parts);
  pushToolParts(context.tools, parts);
  return parts.join("\n");
}

/** The text parts `serializeContext` renders for one message (joined with newlines there). */
export function pushMessageParts(message: Message, parts: string[]): void {
  if (typeof message.content === "string") {
    parts.push(message.content);
    return;
  }
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "thinking") parts.push(block.thinking);
    else if (block.type === "toolCall") parts.push(block.name, JSON.stringify(block.arguments));
    else if (block.type === "image") parts.push(`[image ${block.mimeType}]`);
  }
}

/** The text parts `serializeContext` renders for the tools (after the messages). */
export function pushToolParts(tools: Context["tools"], parts: string[]): void {
  for (const tool of tools ?? []) parts.push(tool.name, tool.description, JSON.stringify(tool.parameters));
}

/** Small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Unpaced streams give the event loop a full turn (timers, I/O) every this many chunks. */
const CHUNKS_PER_MACROTASK = 128;

function wait(ms: number | undefined, signal: AbortSignal | undefined, chunk: number): Promise<void> | undefined {
  if (ms === undefined) {
    // Between chunks a microtask turn lets the consumer see each event (and abort) before the next one;
    // a macrotask only now and then keeps long replies fast while timers and I/O still run.
    return chunk % CHUNKS_PER_MACROTASK === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined;
  }
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function outputChars(message: AssistantMessage): number {
  let n = 0;
  for (const block of message.content) {
    if (block.type === "text") n += block.text.length;
    else if (block.type === "thinking") n += block.thinking.length;
    else n += block.name.length + JSON.stringify(block.arguments).length;
  }
  return n;
}

/**
 * Pushes `script` onto `stream` as realistic chunked events for `model`. Resolves when the stream has ended.
 * The streamed message is a fresh object (api/provider/model rewritten to `model`); `script` is not mutated.
 */
export async function streamScriptedMessage(
  stream: AssistantMessageEventStream,
  model: Model<Api>,
  script: AssistantMessage,
  options: ScriptedStreamOptions = {},
): Promise<void> {
  const { signal } = options;
  const minTokens = Math.max(1, Math.floor(options.tokenSize?.min ?? 3));
  const maxTokens = Math.max(minTokens, Math.floor(options.tokenSize?.max ?? 5));
  const next = random(options.seed ?? 1);
  const output: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: options.usage ?? createEmptyUsage(),
    stopReason: "stop",
    timestamp: script.timestamp || Date.now(),
  };
  if (script.responseId) output.responseId = script.responseId;

  const finishUsage = () => {
    const u = output.usage;
    u.output = Math.ceil(outputChars(output) / CHARS_PER_TOKEN);
    u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite;
    calculateCost(model, u);
  };
  const abort = () => {
    output.stopReason = "aborted";
    output.errorMessage = "Request was aborted";
    finishUsage();
    stream.push({ type: "error", reason: "aborted", error: output });
  };
  /** Splits `text` into chunks, waiting between them; returns false when aborted. */
  let chunkCount = 0;
  /** Feeds `text` to `onChunk` in chunks, pausing between them; false when aborted part-way. */
  async function drain(text: string, onChunk: (chunk: string) => void): Promise<boolean> {
    let i = 0;
    while (i < text.length) {
      const tokens = minTokens + Math.floor(next() * (maxTokens - minTokens + 1));
      const size = tokens * CHARS_PER_TOKEN;
      const paced = options.tokensPerSecond ? (tokens / options.tokensPerSecond) * 1000 : undefined;
      await wait(paced, signal, chunkCount++);
      if (signal?.aborted) return false;
      onChunk(text.slice(i, i + size));
      i += size;
    }
    return true;
  }

  if (signal?.aborted) return abort();
  stream.push({ type: "start", partial: output });

  for (const block of script.content) {
    const index = output.content.length;
    if (block.type === "text") {
      const target: TextContent = { type: "text", text: "" };
      output.content.push(target);
      stream.push({ type: "text_start", contentIndex: index, partial: output });
      const ok = await drain(block.text, (delta) => {
        target.text += delta;
        stream.push({ type: "text_delta", contentIndex: index, delta, partial: output });
      });
      if (!ok) return abort();
      if (block.textSignature) target.textSignature = block.textSignature;
      stream.push({ type: "text_end", contentIndex: index, content: target.text, partial: output });
    } else if (block.type === "thinking") {
      const target: ThinkingContent = { type: "thinking", thinking: "" };
      output.content.push(target);
      stream.push({ type: "thinking_start", contentIndex: index, partial: output });
      const ok = await drain(block.thinking, (delta) => {
        target.thinking += delta;
        stream.push({ type: "thinking_delta", contentIndex: index, delta, partial: output });
      });
      if (!ok) return abort();
      if (block.thinkingSignature) target.thinkingSignature = block.thinkingSignature;
      if (block.redacted) target.redacted = true;
      stream.push({ type: "thinking_end", contentIndex: index, content: target.thinking, partial: output });
    } else {
      const args = new StreamingToolArguments();
      const target: ToolCall = { type: "toolCall", id: block.id, name: block.name, arguments: args.args };
      output.content.push(target);
      stream.push({ type: "toolcall_start", contentIndex: index, partial: output });
      const ok = await drain(JSON.stringify(block.arguments ?? {}), (delta) => {
        args.push(delta);
        target.arguments = args.args;
        stream.push({ type: "toolcall_delta", contentIndex: index, delta, partial: output });
      });
      if (!ok) return abort();
      target.arguments = structuredClone(block.arguments ?? {});
      if (block.thoughtSignature) target.thoughtSignature = block.thoughtSignature;
      stream.push({ type: "toolcall_end", contentIndex: index, toolCall: target, partial: output });
    }
  }

  finishUsage();
  if (script.stopReason === "error" || script.stopReason === "aborted") {
    output.stopReason = script.stopReason;
    output.errorMessage = script.errorMessage ?? (script.stopReason === "aborted" ? "Request was aborted" : "Error");
    if (script.errorStatus !== undefined) output.errorStatus = script.errorStatus;
    if (script.retryAfterMs !== undefined) output.retryAfterMs = script.retryAfterMs;
    stream.push({ type: "error", reason: script.stopReason, error: output });
    return;
  }
  output.stopReason = script.stopReason;
  stream.push({ type: "done", reason: script.stopReason, message: output });
}
