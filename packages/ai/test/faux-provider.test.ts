import { afterEach, describe, expect, it } from "vitest";
import {
  type AssistantMessageEvent,
  type AssistantMessageEventStreamLike,
  type Context,
  complete,
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxText,
  fauxThinking,
  fauxToolCall,
  type Model,
  registerFauxProvider,
  stream,
  streamSimple,
} from "../src/index.js";

const ctx = (text = "hello"): Context => ({ messages: [{ role: "user", content: text, timestamp: 0 }] });

async function collect(s: AssistantMessageEventStreamLike): Promise<AssistantMessageEvent[]> {
  const events: AssistantMessageEvent[] = [];
  for await (const e of s) events.push(e);
  return events;
}

let reg: FauxProviderRegistration | undefined;
afterEach(() => reg?.unregister());

describe("faux provider", () => {
  it("streams text in several chunked deltas that add up to the scripted text", async () => {
    reg = registerFauxProvider();
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(4);
    reg.setResponses([fauxAssistantMessage(text)]);
    const events = await collect(stream(reg.getModel(), ctx()));
    const deltas = events.filter((e) => e.type === "text_delta");
    expect(deltas.length).toBeGreaterThan(3);
    for (const d of deltas) if (d.type === "text_delta") expect(d.delta.length).toBeLessThanOrEqual(20);
    expect(deltas.map((d) => (d.type === "text_delta" ? d.delta : "")).join("")).toBe(text);
    expect(events[0]?.type).toBe("start");
    const last = events.at(-1);
    expect(last?.type).toBe("done");
    if (last?.type === "done") {
      expect(last.message.content).toEqual([{ type: "text", text }]);
      expect(last.message.api).toBe(reg.api);
      expect(last.message.model).toBe("faux-model");
    }
  });

  it("emits the exact event order for thinking, text and a tool call with fixed-size chunks", async () => {
    reg = registerFauxProvider({ tokenSize: { min: 1, max: 1 } });
    reg.setResponses([
      fauxAssistantMessage([
        fauxThinking("abcdefgh"),
        fauxText("hi"),
        fauxToolCall("read", { path: "a" }, { id: "c1" }),
      ]),
    ]);
    const events = await collect(stream(reg.getModel(), ctx()));
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    const fragments = events.flatMap((e) => (e.type === "toolcall_delta" ? [e.delta] : []));
    expect(fragments.join("")).toBe('{"path":"a"}');
    const end = events.find((e) => e.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall).toEqual({
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: { path: "a" },
    });
    const done = events.at(-1);
    expect(done?.type === "done" && done.reason).toBe("toolUse");
  });

  it("shows partially parsed tool arguments while they stream", async () => {
    reg = registerFauxProvider({ tokenSize: { min: 1, max: 1 } });
    reg.setResponses([fauxAssistantMessage(fauxToolCall("write", { path: "notes.txt", content: "x".repeat(40) }))]);
    const seen: unknown[] = [];
    for await (const e of stream(reg.getModel(), ctx())) {
      if (e.type === "toolcall_delta") {
        const block = e.partial.content[e.contentIndex];
        if (block?.type === "toolCall") seen.push(JSON.parse(JSON.stringify(block.arguments)));
      }
    }
    expect(seen.some((a) => (a as { path?: string }).path === "notes.txt" && !("content" in (a as object)))).toBe(true);
    expect(seen.at(-1)).toEqual({ path: "notes.txt", content: "x".repeat(40) });
  });

  it("answers in queue order, supports factories and append, and errors when the queue is empty", async () => {
    reg = registerFauxProvider();
    reg.setResponses([fauxAssistantMessage("one")]);
    reg.appendResponses([
      (context, _o, state) => fauxAssistantMessage(`call ${state.callCount}: ${context.messages.length}`),
    ]);
    expect(reg.getPendingResponseCount()).toBe(2);
    const m = reg.getModel();
    expect((await complete(m, ctx())).content).toEqual([{ type: "text", text: "one" }]);
    expect((await complete(m, ctx())).content).toEqual([{ type: "text", text: "call 2: 1" }]);
    const empty = await complete(m, ctx());
    expect(empty.stopReason).toBe("error");
    expect(empty.errorMessage).toBe("No more faux responses queued");
    expect(reg.state.callCount).toBe(3);
  });

  it("a throwing factory becomes an error event", async () => {
    reg = registerFauxProvider();
    reg.setResponses([
      () => {
        throw new Error("script bug");
      },
    ]);
    const result = await complete(reg.getModel(), ctx());
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("script bug");
  });

  it("a scripted error message streams its content then ends with an error event", async () => {
    reg = registerFauxProvider();
    reg.setResponses([fauxAssistantMessage("partial", { stopReason: "error", errorMessage: "upstream 500" })]);
    const events = await collect(stream(reg.getModel(), ctx()));
    const last = events.at(-1);
    expect(last?.type).toBe("error");
    if (last?.type === "error") {
      expect(last.reason).toBe("error");
      expect(last.error.errorMessage).toBe("upstream 500");
      expect(last.error.content).toEqual([{ type: "text", text: "partial" }]);
    }
  });

  it("estimates usage from characters and simulates prompt caching per session", async () => {
    reg = registerFauxProvider({
      models: [{ id: "priced", cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 0 } }],
    });
    const model = reg.getModel();
    reg.setResponses([fauxAssistantMessage("x".repeat(40)), fauxAssistantMessage("ok"), fauxAssistantMessage("ok")]);
    const prompt = "p".repeat(400);
    const first = await complete(model, ctx(prompt), { sessionId: "s1" });
    expect(first.usage.input).toBe(100);
    expect(first.usage.output).toBe(10);
    expect(first.usage.totalTokens).toBe(110);
    expect(first.usage.cost.total).toBeCloseTo((100 * 1 + 10 * 2) / 1e6);
    const second = await complete(model, ctx(prompt + "q".repeat(40)), { sessionId: "s1" });
    expect(second.usage.cacheRead).toBe(100);
    expect(second.usage.input).toBe(10);
    const noCache = await complete(model, ctx(prompt), { sessionId: "s1", cacheRetention: "none" });
    expect(noCache.usage.cacheRead).toBe(0);
  });

  it("supports several models with their own reasoning flag", () => {
    reg = registerFauxProvider({ models: [{ id: "a" }, { id: "b", reasoning: true }] });
    expect(reg.models.map((m: Model) => m.id)).toEqual(["a", "b"]);
    expect(reg.getModel("b")?.reasoning).toBe(true);
    expect(reg.getModel("zzz")).toBeUndefined();
  });

  it("unregister removes the api", async () => {
    reg = registerFauxProvider();
    reg.setResponses([fauxAssistantMessage("never")]);
    reg.unregister();
    const result = await complete(reg.getModel(), ctx());
    expect(result.errorMessage).toContain("No API provider registered");
  });
});

describe("faux provider abort", () => {
  it("abort before the first chunk ends with an aborted error and no content", async () => {
    reg = registerFauxProvider();
    reg.setResponses([fauxAssistantMessage("never sent")]);
    const controller = new AbortController();
    controller.abort();
    const events = await collect(stream(reg.getModel(), ctx(), { signal: controller.signal }));
    expect(events.map((e) => e.type)).toEqual(["error"]);
    const last = events[0];
    if (last?.type === "error") {
      expect(last.reason).toBe("aborted");
      expect(last.error.stopReason).toBe("aborted");
      expect(last.error.content).toEqual([]);
    }
  });

  for (const kind of ["text", "thinking", "toolCall"] as const) {
    it(`abort mid-${kind} keeps the partial content streamed so far`, async () => {
      reg = registerFauxProvider({ tokenSize: { min: 1, max: 1 } });
      const long = "0123456789".repeat(20);
      const block =
        kind === "text"
          ? fauxText(long)
          : kind === "thinking"
            ? fauxThinking(long)
            : fauxToolCall("bash", { command: long });
      reg.setResponses([fauxAssistantMessage([block, fauxText("after")])]);
      const controller = new AbortController();
      const events: AssistantMessageEvent[] = [];
      let deltas = 0;
      for await (const e of stream(reg.getModel(), ctx(), { signal: controller.signal })) {
        events.push(e);
        if (e.type.endsWith("_delta") && ++deltas === 3) controller.abort();
      }
      const last = events.at(-1);
      expect(last?.type).toBe("error");
      if (last?.type !== "error") return;
      expect(last.reason).toBe("aborted");
      expect(last.error.content).toHaveLength(1);
      const partial = last.error.content[0];
      if (partial?.type === "text") expect(partial.text).toBe(long.slice(0, 12));
      else if (partial?.type === "thinking") expect(partial.thinking).toBe(long.slice(0, 12));
      else expect(partial?.type).toBe("toolCall");
      expect(last.error.usage.output).toBeGreaterThan(0);
    });
  }

  it("paces with tokensPerSecond and abort interrupts the wait", async () => {
    reg = registerFauxProvider({ tokensPerSecond: 10, tokenSize: { min: 5, max: 5 } }); // 500 ms per chunk
    reg.setResponses([fauxAssistantMessage("a".repeat(200))]);
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const result = await complete(reg.getModel(), ctx(), { signal: controller.signal });
    expect(result.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(400);
  });
});

describe("built-in faux api", () => {
  it("echoes the last user message without registration", async () => {
    const model: Model = {
      id: "echo",
      name: "echo",
      api: "faux",
      provider: "faux",
      baseUrl: "",
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 1000,
      maxTokens: 100,
    };
    const events = await collect(streamSimple(model, ctx("ping")));
    const last = events.at(-1);
    expect(last?.type).toBe("done");
    if (last?.type === "done") expect(last.message.content).toEqual([{ type: "text", text: "faux: ping" }]);
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(0);
  });
});
