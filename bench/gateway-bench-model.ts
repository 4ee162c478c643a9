/**
 * A load-test model for `bench/gateway-load.bench.ts`: api "tiller-bench", registered by the bench gateway
 * (bench/gateway-bench-server.ts). For a prompt "[deltas:N]" it streams N text deltas,
 * each carrying its emission time ("t<epoch ms with µs>|"), yielding to the event loop every 16 deltas the
 * way a socket read would, so the benchmark can measure delivery latency from model to client. It builds the
 * message as `@tiller/ai`'s wire providers do (their MessageBuilder): the text block's field accumulates through
 * `StreamedField` and is sealed at the block's end, so the bench pays what a real provider's stream costs.
 */
import { performance } from "node:perf_hooks";
import {
  type AssistantMessage,
  type AssistantMessageEventStreamLike,
  type Context,
  createAssistantMessageEventStream,
  createEmptyUsage,
  type Model,
  registerApiProvider,
  type SimpleStreamOptions,
  StreamedField,
  type TextContent,
} from "@tiller/ai";

export const BENCH_API = "tiller-bench";
const YIELD_EVERY = 16;

function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

function lastUserText(context: Context): string {
  const m = [...context.messages].reverse().find((x) => x.role === "user");
  if (m?.role !== "user") return "";
  return typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

function streamBench(model: Model, context: Context, options?: SimpleStreamOptions): AssistantMessageEventStreamLike {
  const stream = createAssistantMessageEventStream();
  const n = Number(/\[deltas:(\d+)\]/.exec(lastUserText(context))?.[1] ?? 10);
  const partial: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "" }],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: createEmptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  const text = new StreamedField(partial.content[0] as TextContent, "text");
  void (async () => {
    stream.push({ type: "start", partial });
    stream.push({ type: "text_start", contentIndex: 0, partial });
    for (let i = 0; i < n; i++) {
      if (options?.signal?.aborted) {
        text.seal();
        partial.stopReason = "aborted";
        stream.push({ type: "error", reason: "aborted", error: partial });
        return;
      }
      // join() makes one flat string, as a provider's JSON.parse does; `t${x}|` would be a two-node rope.
      const delta = ["t", nowMs().toFixed(3), "|"].join("");
      text.append(delta);
      stream.push({ type: "text_delta", contentIndex: 0, delta, partial });
      if ((i + 1) % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
    }
    stream.push({ type: "text_end", contentIndex: 0, content: text.seal(), partial });
    partial.usage.output = n;
    partial.usage.totalTokens = n;
    stream.push({ type: "done", reason: "stop", message: partial });
  })();
  return stream;
}

/** Registers the bench api (idempotent). */
export function registerBenchModel(): void {
  registerApiProvider({ api: BENCH_API, stream: streamBench, streamSimple: streamBench }, "tiller-gateway-bench");
}
