/**
 * Scripted LLM streams for tests: each call of the stream function plays the next scripted turn through a real
 * `AssistantMessageEventStream`, one event per macrotask, honouring the abort signal like a provider does.
 */
import {
  type AssistantMessage,
  type Context,
  createAssistantMessageEventStream,
  type Model,
  type SimpleStreamOptions,
  type ToolCall,
} from "@tiller/ai";
import type { AgentEvent, AgentMessage, StreamFn } from "../../src/index.js";

export const model: Model = {
  id: "scripted-1",
  name: "Scripted",
  api: "faux",
  provider: "offline",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1000,
};

export type Block = { text: string } | { call: string; args: Record<string, unknown>; id?: string };

export interface Turn {
  blocks: Block[];
  /** Text chunks per text block (default 1 chunk). */
  chunks?: number;
  /** After the blocks, wait until aborted instead of finishing. */
  hang?: boolean;
}

export interface Recorded {
  context: Context;
  options: SimpleStreamOptions | undefined;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function emptyMessage(): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

let callCounter = 0;

/**
 * A stream function playing `turns` in order (a function turn sees the request). Records each request (with a
 * copy of its messages). Past the script it answers "done.".
 */
export function scripted(turns: (Turn | ((context: Context) => Turn))[]): { streamFn: StreamFn; calls: Recorded[] } {
  const calls: Recorded[] = [];
  let index = 0;
  const streamFn: StreamFn = (_model, context, options) => {
    calls.push({ context: { ...context, messages: context.messages.slice() }, options });
    const entry = turns[index++] ?? { blocks: [{ text: "done." }] };
    const turn = typeof entry === "function" ? entry(context) : entry;
    const stream = createAssistantMessageEventStream();
    const signal = options?.signal;
    const partial = emptyMessage();
    const abortOut = () => {
      partial.stopReason = "aborted";
      partial.errorMessage = "Request was aborted";
      stream.push({ type: "error", reason: "aborted", error: partial });
    };
    void (async () => {
      await tick();
      if (signal?.aborted) return abortOut();
      stream.push({ type: "start", partial });
      for (const block of turn.blocks) {
        await tick();
        if (signal?.aborted) return abortOut();
        const contentIndex = partial.content.length;
        if ("text" in block) {
          const content = { type: "text" as const, text: "" };
          partial.content.push(content);
          stream.push({ type: "text_start", contentIndex, partial });
          const n = turn.chunks ?? 1;
          const size = Math.ceil(block.text.length / n);
          for (let i = 0; i < block.text.length; i += size) {
            if (i > 0) await tick();
            if (signal?.aborted) return abortOut();
            const delta = block.text.slice(i, i + size);
            content.text += delta;
            stream.push({ type: "text_delta", contentIndex, delta, partial });
          }
          stream.push({ type: "text_end", contentIndex, content: content.text, partial });
        } else {
          const toolCall: ToolCall = {
            type: "toolCall",
            id: block.id ?? `call_${++callCounter}`,
            name: block.call,
            arguments: block.args,
          };
          partial.content.push(toolCall);
          stream.push({ type: "toolcall_start", contentIndex, partial });
          stream.push({ type: "toolcall_end", contentIndex, toolCall, partial });
        }
      }
      if (turn.hang) {
        await new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          else signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        return abortOut();
      }
      await tick();
      if (signal?.aborted) return abortOut();
      const final = { ...partial, stopReason: partial.content.some((c) => c.type === "toolCall") ? "toolUse" : "stop" };
      stream.push({ type: "done", reason: final.stopReason as "stop" | "toolUse", message: final as AssistantMessage });
    })();
    return stream;
  };
  return { streamFn, calls };
}

/** Collects events; `types()` lists their types. */
export function recorder(): { events: AgentEvent[]; listener: (e: AgentEvent) => void; types: () => string[] } {
  const events: AgentEvent[] = [];
  return { events, listener: (e) => void events.push(e), types: () => events.map((e) => e.type) };
}

/** Text of a user, assistant or tool-result message. */
export function textOf(message: AgentMessage | undefined): string {
  if (!message) return "";
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("");
}

export function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export { tick };
