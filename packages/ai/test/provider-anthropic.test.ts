import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropic, streamSimpleAnthropic } from "../src/providers/anthropic.js";
import type { AssistantMessage, Context, Message } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startAnthropicMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { anthropicRecordings } from "./helpers/recordings.js";
import { anthropicEvents, errorBodies } from "./helpers/vendor-events.js";

runConformanceSuite({
  name: "anthropic",
  api: "anthropic-messages",
  provider: "anthropic",
  startMock: startAnthropicMock,
  events: (t) => anthropicEvents(t),
  stream: streamAnthropic,
  streamSimple: streamSimpleAnthropic,
  errors: {
    auth: { status: 401, json: errorBodies.anthropicAuth, message: /authentication_error: invalid x-api-key/ },
    rateLimit: {
      status: 429,
      json: errorBodies.anthropicRateLimit,
      headers: { "retry-after": "12" },
      message: /rate_limit_error/,
      retryAfterMs: 12000,
    },
    server: { status: 500, json: errorBodies.anthropicServer, message: /api_error: Internal server error/ },
    overloaded: { status: 529, json: errorBodies.anthropicOverloaded, message: /overloaded_error: Overloaded/ },
    contextOverflow: {
      status: 400,
      json: errorBodies.anthropicContextOverflow,
      message: /prompt is too long: 213462 tokens/,
    },
  },
  malformed: {
    event: "content_block_delta",
    data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oo',
  },
  streamsToolArguments: true,
  eventsBeforeText: () => 3,
  recordings: anthropicRecordings,
});

const usage0 = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function assistant(content: AssistantMessage["content"], extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "test-model",
    usage: usage0,
    stopReason: "toolUse",
    timestamp: 2,
    ...extra,
  };
}

describe("anthropic specifics", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends system with cache_control, a thinking budget below max_tokens, and no temperature with thinking", async () => {
    server = await startAnthropicMock([{ events: anthropicEvents({ text: ["ok"] }) }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    await collect(
      streamSimpleAnthropic(model, CONTEXT, { apiKey: "k", reasoning: "medium", maxTokens: 4000, temperature: 0.5 }),
    );
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe("k");
    expect(req.headers.authorization).toBeUndefined();
    const body = req.body;
    expect(body.system).toEqual([{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(body.max_tokens).toBeGreaterThan(8192);
    expect(body.temperature).toBeUndefined();
    expect(body.tools[0]).toMatchObject({ name: "read", input_schema: { type: "object" } });
    expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
  });

  it("keeps thinking signatures and redacted thinking from the stream", async () => {
    const events = anthropicEvents({ thinking: ["deep"], signature: "sig-A", text: ["ok"] });
    events.splice(
      2,
      0,
      {
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index: 9,
          content_block: { type: "redacted_thinking", data: "ENCRYPTED" },
        },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 9 } },
    );
    server = await startAnthropicMock([{ events }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const { result } = await collect(streamAnthropic(model, CONTEXT, { apiKey: "k" }));
    expect(result.content[0]).toMatchObject({ type: "thinking", redacted: true, thinkingSignature: "ENCRYPTED" });
    expect(result.content[1]).toMatchObject({ type: "thinking", thinking: "deep", thinkingSignature: "sig-A" });
  });

  it("keeps the input tokens from message_start when the stream is aborted", async () => {
    const events = anthropicEvents({ text: ["a", "b", "c"], usage: { input: 1234, output: 9, cacheRead: 100 } });
    server = await startAnthropicMock([{ events, hangAfter: 5 }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const controller = new AbortController();
    const stream = streamAnthropic(model, CONTEXT, { apiKey: "k", signal: controller.signal });
    for await (const e of stream) if (e.type === "text_delta" && e.delta === "b") controller.abort();
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.usage.input).toBe(1234);
    expect(result.usage.cacheRead).toBe(100);
    expect(result.usage.cost.input).toBeGreaterThan(0);
  });

  it("turns an in-stream `event: error` (overloaded) into an error event keeping the partial text", async () => {
    const events = anthropicEvents({ text: ["Hel", "lo"] });
    events.splice(4, 0, { event: "error", data: errorBodies.anthropicOverloaded });
    server = await startAnthropicMock([{ events }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const { result } = await collect(streamAnthropic(model, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/overloaded_error: Overloaded/);
    expect(textOfMessage(result)).toBe("Hel");
  });

  it("repairs the conversation: sanitized tool ids, merged user turns, tool results as user tool_result blocks", async () => {
    server = await startAnthropicMock([{ events: anthropicEvents({ text: ["ok"] }) }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const longId = `call_abc|fc_${"x".repeat(100)}`;
    const messages: Message[] = [
      { role: "user", content: "first", timestamp: 1 },
      { role: "user", content: [{ type: "text", text: "second" }], timestamp: 1 },
      assistant([
        { type: "text", text: "" },
        { type: "toolCall", id: longId, name: "read", arguments: { path: "a" } },
        { type: "toolCall", id: "call.2", name: "read", arguments: { path: "b" } },
      ]),
      {
        role: "toolResult",
        toolCallId: longId,
        toolName: "read",
        content: [{ type: "text", text: "A" }],
        isError: false,
        timestamp: 3,
      },
      {
        role: "toolResult",
        toolCallId: "call.2",
        toolName: "read",
        content: [{ type: "text", text: "B" }],
        isError: true,
        timestamp: 3,
      },
      { role: "user", content: "now what?", timestamp: 4 },
    ];
    await collect(streamAnthropic(model, { messages }, { apiKey: "k", cacheRetention: "none" }));
    const sent = server.requests[0]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[0].content.map((b: { text: string }) => b.text)).toEqual(["first", "second"]);
    const uses = sent[1].content;
    expect(uses).toHaveLength(2); // empty text block dropped
    for (const u of uses) {
      expect(u.id).toMatch(/^[a-zA-Z0-9_-]+$/);
      expect(u.id.length).toBeLessThanOrEqual(64);
    }
    expect(sent[2].content.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(sent[2].content[0].tool_use_id).toBe(uses[0].id);
    expect(sent[2].content[1]).toMatchObject({ tool_use_id: uses[1].id, is_error: true });
  });

  it("falls back to a weaker thinking level when the budget is rejected", async () => {
    const rejected = {
      status: 400,
      json: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "thinking.budget_tokens: Input should be less than max_tokens",
        },
      },
    };
    server = await startAnthropicMock([rejected, { events: anthropicEvents({ text: ["ok"] }) }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const { result } = await collect(streamSimpleAnthropic(model, CONTEXT, { apiKey: "k", reasoning: "high" }));
    expect(result.stopReason).toBe("stop");
    expect(server.requests.map((r) => r.body.thinking?.budget_tokens)).toEqual([16384, 8192]);
  });

  it("uses adaptive thinking with an effort when the model maps levels to effort names", async () => {
    server = await startAnthropicMock([{ events: anthropicEvents({ text: ["ok"] }) }]);
    const model = testModel("anthropic-messages", {
      provider: "anthropic",
      baseUrl: server.baseUrl,
      thinkingLevelMap: { low: "low", medium: "medium", high: "high", xhigh: "max" },
    });
    await collect(streamSimpleAnthropic(model, CONTEXT, { apiKey: "k", reasoning: "xhigh" }));
    expect(server.requests[0]!.body.thinking).toEqual({ type: "adaptive" });
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "max" });
  });

  it("takes tool input given whole in content_block_start (compatible servers that do not stream it)", async () => {
    const events = anthropicEvents({ toolCalls: [{ id: "toolu_1", name: "read", args: [] }], finish: "tool" });
    const start = events.find((e) => e.event === "content_block_start")!;
    (start.data as { content_block: { input: unknown } }).content_block.input = { path: "whole.txt" };
    server = await startAnthropicMock([{ events }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const { result, events: seen } = await collect(streamAnthropic(model, CONTEXT, { apiKey: "k" }));
    expect(result.content[0]).toMatchObject({ type: "toolCall", id: "toolu_1", arguments: { path: "whole.txt" } });
    expect(seen.find((e) => e.type === "toolcall_end")).toMatchObject({
      toolCall: { arguments: { path: "whole.txt" } },
    });
  });

  it("sends no thinking for reasoning off", async () => {
    server = await startAnthropicMock([{ events: anthropicEvents({ text: ["ok"] }) }]);
    const model = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const ctx: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
    await collect(streamSimpleAnthropic(model, ctx, { apiKey: "k", reasoning: "off" }));
    expect(server.requests[0]!.body.thinking).toBeUndefined();
  });
});

describe.skipIf(!process.env.ANTHROPIC_API_KEY)("anthropic live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("anthropic-messages", {
      id: "claude-haiku-4-5",
      provider: "anthropic",
      baseUrl: "https://api.anthropic.com",
      reasoning: false,
    });
    const { result } = await collect(
      streamAnthropic(model, { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] }, { maxTokens: 20 }),
    );
    expect(result.stopReason).toBe("stop");
    expect(result.usage.input).toBeGreaterThan(0);
  });
});
