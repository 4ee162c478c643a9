import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Api,
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageEventStream,
  type Model,
  type SimpleStreamOptions,
} from "@tiller/ai";
import { afterEach, beforeEach, expect, test } from "vitest";
import { AuthProfileStore } from "../src/resilience/auth-profile-store.js";
import { withFailover } from "../src/resilience/failover-model-call.js";

const model = (provider: string, id: string): Model<Api> => ({
  id,
  name: id,
  api: "openai-completions",
  provider,
  baseUrl: "http://127.0.0.1:1/v1",
  reasoning: true,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1000,
  maxTokens: 100,
});
const primary = model("openai", "gpt-x");
const fallback = model("anthropic", "claude-y");

function message(m: Model<Api>, text: string, stop: AssistantMessage["stopReason"], err?: string): AssistantMessage {
  return {
    role: "assistant",
    content: text ? [{ type: "text", text }] : [],
    api: m.api,
    provider: m.provider,
    model: m.id,
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: stop,
    errorMessage: err,
    errorStatus: err ? Number(/\d{3}/.exec(err)?.[0]) : undefined,
    timestamp: 0,
  };
}

type Script = (m: Model<Api>, o?: SimpleStreamOptions) => { text?: string; error?: string; errorAfterText?: boolean };
const calls: string[] = [];
function fakeCall(script: Script) {
  return (m: Model<Api>, _c: unknown, o?: SimpleStreamOptions) => {
    calls.push(`${m.provider}/${m.id}@${o?.apiKey ?? "-"}:${o?.reasoning ?? "-"}`);
    const s = createAssistantMessageEventStream();
    const plan = script(m, o);
    queueMicrotask(() => {
      const partial = message(m, "", "stop");
      s.push({ type: "start", partial });
      if (plan.text !== undefined) {
        s.push({ type: "text_start", contentIndex: 0, partial });
        s.push({ type: "text_delta", contentIndex: 0, delta: plan.text, partial });
        s.push({ type: "text_end", contentIndex: 0, content: plan.text, partial });
      }
      if (plan.error)
        s.push({ type: "error", reason: "error", error: message(m, plan.text ?? "", "error", plan.error) });
      else s.push({ type: "done", reason: "stop", message: message(m, plan.text ?? "", "stop") });
    });
    return s;
  };
}
async function collect(stream: AsyncIterable<AssistantMessageEvent>): Promise<AssistantMessageEvent[]> {
  const out: AssistantMessageEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

let dir = "";
let store: AuthProfileStore;
beforeEach(() => {
  calls.length = 0;
  dir = mkdtempSync(join(tmpdir(), "tiller-fo-call-"));
  store = new AuthProfileStore(join(dir, "auth-profiles.json"));
  store.upsert({ id: "openai:a", provider: "openai", type: "api_key", key: "ka" });
  store.upsert({ id: "openai:b", provider: "openai", type: "api_key", key: "kb" });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a 429 on the first key is invisible: the caller sees only the answer from the second key", async () => {
  const call = withFailover(
    fakeCall((_m, o) =>
      o?.apiKey === "ka" ? { error: "429 Too Many Requests: rate limit exceeded" } : { text: "hi" },
    ),
    { fallbacks: [fallback], store },
  );
  const events = await collect(call(primary, { messages: [] }));
  expect(calls).toEqual(["openai/gpt-x@ka:-", "openai/gpt-x@kb:-"]);
  expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
  expect(store.isAvailable("openai:a")).toBe(false);
});

test("an overloaded primary fails over to the fallback model", async () => {
  const call = withFailover(
    fakeCall((m) =>
      m.provider === "openai" ? { error: "529 overloaded_error: Overloaded" } : { text: "from fallback" },
    ),
    { fallbacks: [fallback], store },
  );
  const stream = call(primary, { messages: [] });
  const events = await collect(stream);
  expect(events.filter((e) => e.type === "error")).toHaveLength(0);
  expect((await stream.result()).provider).toBe("anthropic");
});

test("an error after text was streamed is final: no second reply", async () => {
  const call = withFailover(
    fakeCall(() => ({ text: "half a repl", error: "500 stream cut" })),
    {
      fallbacks: [fallback],
      store,
    },
  );
  const events = await collect(call(primary, { messages: [] }));
  expect(calls).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({ type: "error", reason: "error" });
  expect(events.filter((e) => e.type === "text_delta")).toHaveLength(1);
});

test("context overflow is not failed over: it surfaces for compaction", async () => {
  const call = withFailover(
    fakeCall(() => ({
      error:
        "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens.",
    })),
    { fallbacks: [fallback], store },
  );
  const stream = call(primary, { messages: [] });
  await collect(stream);
  expect(calls).toHaveLength(1);
  expect((await stream.result()).stopReason).toBe("error");
});

test("a rejected thinking level is retried at a supported level on the same model", async () => {
  const call = withFailover(
    fakeCall((_m, o) =>
      o?.reasoning === "xhigh"
        ? {
            error:
              "400 Unsupported value: reasoning_effort 'xhigh' is not supported. Supported values are: low, medium, high.",
          }
        : { text: `thought at ${o?.reasoning}` },
    ),
    { fallbacks: [], store },
  );
  const stream = call(primary, { messages: [] }, { reasoning: "xhigh" });
  await collect(stream);
  expect(calls).toEqual(["openai/gpt-x@ka:xhigh", "openai/gpt-x@ka:high"]);
  expect((await stream.result()).content[0]).toMatchObject({ text: "thought at high" });
});

test("a whole chain failing transiently is tried again after a backoff; the caller sees only the answer", async () => {
  let n = 0;
  const call = withFailover(
    fakeCall(() => (++n <= 2 ? { error: "529 overloaded_error: Overloaded" } : { text: "third time" })),
    { fallbacks: [fallback], store, retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 100 } },
  );
  const started = Date.now();
  const stream = call(primary, { messages: [] });
  const events = await collect(stream);
  expect(calls).toEqual(["openai/gpt-x@ka:-", "anthropic/claude-y@-:-", "openai/gpt-x@ka:-"]);
  expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  expect(events.filter((e) => e.type === "error")).toHaveLength(0);
  expect((await stream.result()).content[0]).toMatchObject({ text: "third time" });
});

test("chain retries stop after maxRetries and never retry an auth failure", async () => {
  const overloaded = withFailover(
    fakeCall(() => ({ error: "529 overloaded_error: Overloaded" })),
    {
      fallbacks: [],
      store,
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    },
  );
  await collect(overloaded(primary, { messages: [] }));
  expect(calls).toHaveLength(3);
  calls.length = 0;
  const denied = withFailover(
    fakeCall(() => ({ error: "401 Incorrect API key provided" })),
    {
      fallbacks: [],
      store,
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    },
  );
  const stream = denied(primary, { messages: [] });
  await collect(stream);
  // Each key once (rotation), then no round two: auth is not transient.
  expect(calls).toHaveLength(2);
  expect((await stream.result()).stopReason).toBe("error");
});
