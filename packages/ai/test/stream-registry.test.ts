import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStreamLike,
  classifyError,
  clearApiProviders,
  complete,
  createAssistantMessageEventStream,
  createEmptyUsage,
  getApiProvider,
  getApiProviders,
  getBuiltInApis,
  type Model,
  registerApiProvider,
  registerLazyApiProvider,
  resetApiProviders,
  type SimpleStreamOptions,
  type StreamOptions,
  stream,
  streamSimple,
  unregisterApiProviders,
} from "../src/index.js";

function model(api: string, extra: Partial<Model> = {}): Model {
  return {
    id: "m1",
    name: "M1",
    api,
    provider: "tiller-test",
    baseUrl: "http://127.0.0.1:9/v1",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 8000,
    maxTokens: 1000,
    ...extra,
  };
}

function reply(m: Model, text: string): AssistantMessageEventStreamLike {
  const s = createAssistantMessageEventStream();
  const msg: AssistantMessage = {
    role: "assistant",
    content: [],
    api: m.api,
    provider: m.provider,
    model: m.id,
    usage: createEmptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
  queueMicrotask(() => {
    s.push({ type: "start", partial: msg });
    msg.content.push({ type: "text", text: "" });
    s.push({ type: "text_start", contentIndex: 0, partial: msg });
    (msg.content[0] as { text: string }).text = text;
    s.push({ type: "text_delta", contentIndex: 0, delta: text, partial: msg });
    s.push({ type: "text_end", contentIndex: 0, content: text, partial: msg });
    s.push({ type: "done", reason: "stop", message: msg });
  });
  return s;
}

async function collect(s: AssistantMessageEventStreamLike): Promise<AssistantMessageEvent[]> {
  const events: AssistantMessageEvent[] = [];
  for await (const e of s) events.push(e);
  return events;
}

afterEach(() => {
  resetApiProviders();
  delete process.env.TILLER_TEST_API_KEY;
});

describe("stream entry points", () => {
  it("an unknown api yields a stream ending in an error event instead of throwing", async () => {
    const s = stream(model("no-such-api"), { messages: [] });
    const events = await collect(s);
    expect(events.map((e) => e.type)).toEqual(["error"]);
    const result = await s.result();
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain('No API provider registered for api "no-such-api"');
    const simple = await complete(model("no-such-api"), { messages: [] });
    expect(simple.stopReason).toBe("error");
  });

  it("routes to a registered custom api and passes options.apiKey over the environment", async () => {
    const seen: (string | undefined)[] = [];
    registerApiProvider({
      api: "custom-wire",
      stream: (m, _c, o?: StreamOptions) => {
        seen.push(o?.apiKey);
        return reply(m, "hello");
      },
      streamSimple: (m) => reply(m, "simple"),
    });
    process.env.TILLER_TEST_API_KEY = "from-env";
    const events = await collect(stream(model("custom-wire"), { messages: [] }, { apiKey: "explicit" }));
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    await complete(model("custom-wire"), { messages: [] });
    expect(seen).toEqual(["explicit", "from-env"]);
  });

  it("streamSimple clamps the reasoning level to what the model supports", async () => {
    const levels: (string | undefined)[] = [];
    registerApiProvider({
      api: "custom-wire",
      stream: (m) => reply(m, ""),
      streamSimple: (m, _c, o?: SimpleStreamOptions) => {
        levels.push(o?.reasoning);
        return reply(m, "ok");
      },
    });
    await streamSimple(model("custom-wire"), { messages: [] }, { reasoning: "high" }).result();
    const gemini = model("custom-wire", {
      reasoning: true,
      thinkingLevelMap: { off: null, minimal: null, low: "LOW", medium: null, high: "HIGH" },
    });
    await streamSimple(gemini, { messages: [] }, { reasoning: "medium" }).result();
    await streamSimple(gemini, { messages: [] }, { reasoning: "off" }).result();
    await streamSimple(gemini, { messages: [] }).result();
    expect(levels).toEqual(["off", "high", "low", undefined]);
  });

  it("a provider that throws synchronously becomes an error event", async () => {
    registerApiProvider({
      api: "custom-wire",
      stream: () => {
        throw new Error("boom");
      },
      streamSimple: () => {
        throw new Error("boom");
      },
    });
    const result = await complete(model("custom-wire"), { messages: [] });
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("boom");
  });

  it("a provider called with a model of another api answers with an error stream", async () => {
    registerApiProvider({ api: "custom-wire", stream: (m) => reply(m, "x"), streamSimple: (m) => reply(m, "x") });
    const provider = getApiProvider("custom-wire");
    const result = await provider!.stream(model("other"), { messages: [] }).result();
    expect(result.errorMessage).toContain("Mismatched api");
  });
});

describe("api registry", () => {
  it("unregisters exactly the providers of one source", () => {
    registerApiProvider({ api: "a1", stream: (m) => reply(m, ""), streamSimple: (m) => reply(m, "") }, "ext-1");
    registerApiProvider({ api: "a2", stream: (m) => reply(m, ""), streamSimple: (m) => reply(m, "") }, "ext-1");
    registerApiProvider({ api: "a3", stream: (m) => reply(m, ""), streamSimple: (m) => reply(m, "") }, "ext-2");
    unregisterApiProviders("ext-1");
    expect(getApiProvider("a1")).toBeUndefined();
    expect(getApiProvider("a2")).toBeUndefined();
    expect(getApiProvider("a3")).toBeDefined();
    expect(getApiProvider("anthropic-messages")).toBeDefined();
  });

  it("registers every built-in api at import and restores them after clearing", () => {
    const apis = getApiProviders().map((p) => p.api);
    for (const api of [
      "openai-completions",
      "openai-responses",
      "anthropic-messages",
      "google-generative-ai",
      "faux",
      "offline",
    ]) {
      expect(apis).toContain(api);
    }
    expect(getBuiltInApis()).toContain("offline");
    clearApiProviders();
    expect(getApiProviders()).toEqual([]);
    resetApiProviders();
    expect(getApiProvider("openai-completions")).toBeDefined();
  });
});

describe("lazy api providers", () => {
  it("loads the module on first use only, once, and forwards its events", async () => {
    let loads = 0;
    registerLazyApiProvider({
      api: "lazy-wire",
      load: async () => {
        loads++;
        await new Promise((r) => setTimeout(r, 5));
        return { stream: (m) => reply(m, "lazy"), streamSimple: (m) => reply(m, "lazy simple") };
      },
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([
      collect(stream(model("lazy-wire"), { messages: [] })),
      collect(streamSimple(model("lazy-wire"), { messages: [] })),
    ]);
    expect(loads).toBe(1);
    expect(a.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    const last = b.at(-1);
    expect(last?.type === "done" && last.message.content[0]).toEqual({ type: "text", text: "lazy simple" });
    await complete(model("lazy-wire"), { messages: [] });
    expect(loads).toBe(1);
  });

  it("a module that fails to load ends the stream with an error event, and a later call retries", async () => {
    let loads = 0;
    registerLazyApiProvider({
      api: "lazy-wire",
      load: async () => {
        loads++;
        if (loads === 1) throw new Error("Cannot find module 'vendor-sdk'");
        return { stream: (m) => reply(m, "second try"), streamSimple: (m) => reply(m, "") };
      },
    });
    const events = await collect(stream(model("lazy-wire"), { messages: [] }));
    expect(events).toHaveLength(1);
    const first = events[0];
    expect(first?.type).toBe("error");
    if (first?.type === "error") expect(first.error.errorMessage).toContain("Cannot find module 'vendor-sdk'");
    const retry = await complete(model("lazy-wire"), { messages: [] });
    expect(retry.stopReason).toBe("stop");
    expect(loads).toBe(2);
  });

  it("each built-in wire api loads lazily and reports a closed loopback port as a network error event", async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, "127.0.0.1", () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    for (const api of ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]) {
      const m = model(api, { baseUrl: `http://127.0.0.1:${port}/v1` });
      const result = await complete(
        m,
        { messages: [{ role: "user", content: "hi", timestamp: 0 }] },
        {
          apiKey: "k",
          maxRetries: 0,
        },
      );
      expect(result.stopReason).toBe("error");
      expect(result.errorMessage).toBeTruthy();
      // The provider module loaded and failed on the connection (not on loading), which classifies as network.
      expect(classifyError(result).class).toBe("network");
    }
  });
});
