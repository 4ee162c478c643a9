import { afterEach, describe, expect, it } from "vitest";
import { streamOpenAICompletions, streamSimpleOpenAICompletions } from "../src/providers/openai-completions.js";
import type { Api, Model } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { openaiCompletionsRecordings } from "./helpers/recordings.js";
import { errorBodies, openaiChatEvents } from "./helpers/vendor-events.js";

runConformanceSuite({
  name: "openai-completions",
  api: "openai-completions",
  provider: "openai",
  startMock: startOpenAIMock,
  events: (t) => openaiChatEvents(t),
  stream: streamOpenAICompletions,
  streamSimple: streamSimpleOpenAICompletions,
  errors: {
    auth: { status: 401, json: errorBodies.openaiAuth, message: /Incorrect API key provided/ },
    rateLimit: {
      status: 429,
      json: errorBodies.openaiRateLimit,
      headers: { "retry-after": "7" },
      message: /Rate limit reached/,
      retryAfterMs: 7000,
    },
    server: { status: 500, json: errorBodies.openaiServer, message: /server had an error/ },
    overloaded: {
      status: 529,
      json: { error: { message: "Overloaded", type: "overloaded_error", code: null } },
      headers: { "retry-after-ms": "1500" },
      message: /Overloaded/,
      retryAfterMs: 1500,
    },
    contextOverflow: {
      status: 400,
      json: errorBodies.openaiContextOverflow,
      message: /maximum context length is 128000 tokens/,
    },
  },
  malformed: { data: '{"id":"chatcmpl-abc123","choices":[{"index":0,"delta":{"content":"oops' },
  streamsToolArguments: true,
  eventsBeforeText: () => 1,
  recordings: openaiCompletionsRecordings,
});

describe("openai-completions specifics", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends OpenAI's request shape: developer role for reasoning models, max_completion_tokens, usage in stream, store off", async () => {
    server = await startOpenAIMock([{ events: openaiChatEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    await collect(
      streamSimpleOpenAICompletions(model, CONTEXT, {
        apiKey: "k",
        maxTokens: 123,
        reasoning: "high",
        sessionId: "s-1",
      }),
    );
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.url).toBe("/v1/chat/completions");
    expect(body.messages[0]).toEqual({ role: "developer", content: "You are terse." });
    expect(body.max_completion_tokens).toBe(123);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.store).toBe(false);
    expect(body.prompt_cache_key).toBe("s-1");
    expect(body.reasoning_effort).toBe("high");
    expect(body.tools[0].function.name).toBe("read");
  });

  it("auto-detects a local OpenAI-compatible server: system role, max_tokens, no key needed, no reasoning_effort", async () => {
    server = await startOpenAIMock([
      { events: openaiChatEvents({ thinking: ["hmm"], text: ["ok"] }, { reasoningField: "reasoning" }) },
    ]);
    const model = testModel("openai-completions", { provider: "ollama", baseUrl: server.baseUrl });
    const { result } = await collect(
      streamSimpleOpenAICompletions(model, CONTEXT, { maxTokens: 50, reasoning: "low" }),
    );
    const body = server.requests[0]!.body;
    expect(body.messages[0].role).toBe("system");
    expect(body.max_tokens).toBe(50);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
    expect(body.store).toBeUndefined();
    // Ollama and vLLM name the reasoning field "reasoning"; it still becomes a thinking block.
    expect(result.content[0]).toMatchObject({ type: "thinking", thinking: "hmm" });
  });

  it("honours explicit compat flags: tool result name, thinking as text, openrouter reasoning object", async () => {
    server = await startOpenAIMock([{ events: openaiChatEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-completions", {
      provider: "openrouter",
      baseUrl: server.baseUrl,
      compat: { requiresToolResultName: true, requiresThinkingAsText: true },
    });
    const context = {
      messages: [
        { role: "user" as const, content: "go", timestamp: 1 },
        {
          role: "assistant" as const,
          content: [
            { type: "thinking" as const, thinking: "plan" },
            { type: "toolCall" as const, id: "call_1", name: "read", arguments: { path: "a" } },
          ],
          api: "openai-completions" as Api,
          provider: "openrouter",
          model: "test-model",
          usage: {
            input: 0,
            output: 0,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 0,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: "toolUse" as const,
          timestamp: 2,
        },
        {
          role: "toolResult" as const,
          toolCallId: "call_1",
          toolName: "read",
          content: [{ type: "text" as const, text: "A" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await collect(streamSimpleOpenAICompletions(model, context, { apiKey: "k", reasoning: "medium" }));
    const body = server.requests[0]!.body;
    expect(body.reasoning).toEqual({ effort: "medium" });
    expect(body.messages[1].content).toContain("plan");
    expect(body.messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "A", name: "read" });
  });

  it("rewrites tool-call ids to Mistral's 9-character form and names tool results for api.mistral.ai", async () => {
    server = await startOpenAIMock([{ events: openaiChatEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-completions", { provider: "mistral", baseUrl: server.baseUrl });
    const usage = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const context = {
      messages: [
        { role: "user" as const, content: "go", timestamp: 1 },
        {
          role: "assistant" as const,
          content: [
            { type: "toolCall" as const, id: "toolu_01LongAnthropicId", name: "read", arguments: { path: "a" } },
          ],
          api: "anthropic-messages" as Api,
          provider: "anthropic",
          model: "claude",
          usage,
          stopReason: "toolUse" as const,
          timestamp: 2,
        },
        {
          role: "toolResult" as const,
          toolCallId: "toolu_01LongAnthropicId",
          toolName: "read",
          content: [{ type: "text" as const, text: "A" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await collect(streamOpenAICompletions(model, context, { apiKey: "k" }));
    const [, assistant, tool] = server.requests[0]!.body.messages;
    expect(assistant.tool_calls[0].id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(tool).toEqual({ role: "tool", tool_call_id: assistant.tool_calls[0].id, content: "A", name: "read" });
  });

  it("replays DeepSeek reasoning_content on its own turns and inserts an assistant turn after tool results when required", async () => {
    server = await startOpenAIMock([{ events: openaiChatEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-completions", {
      provider: "deepseek",
      baseUrl: server.baseUrl,
      compat: { requiresAssistantAfterToolResult: true },
    });
    const usage = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const context = {
      messages: [
        { role: "user" as const, content: "go", timestamp: 1 },
        {
          role: "assistant" as const,
          content: [
            { type: "thinking" as const, thinking: "need the file" },
            { type: "toolCall" as const, id: "call_1", name: "read", arguments: { path: "a" } },
          ],
          api: "openai-completions" as Api,
          provider: "deepseek",
          model: "test-model",
          usage,
          stopReason: "toolUse" as const,
          timestamp: 2,
        },
        {
          role: "toolResult" as const,
          toolCallId: "call_1",
          toolName: "read",
          content: [{ type: "text" as const, text: "A" }],
          isError: false,
          timestamp: 3,
        },
        { role: "user" as const, content: "and now?", timestamp: 4 },
      ],
    };
    await collect(streamOpenAICompletions(model, context, { apiKey: "k" }));
    const sent = server.requests[0]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[1].reasoning_content).toBe("need the file");
    expect(sent[1].content).toBeNull();
  });

  it("sends user images as image_url data URLs, and a text note instead for text-only models", async () => {
    server = await startOpenAIMock([
      { events: openaiChatEvents({ text: ["a"] }) },
      { events: openaiChatEvents({ text: ["b"] }) },
    ]);
    const context = {
      messages: [
        {
          role: "user" as const,
          content: [
            { type: "text" as const, text: "what is this?" },
            { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" },
          ],
          timestamp: 1,
        },
      ],
    };
    const vision = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    await collect(streamOpenAICompletions(vision, context, { apiKey: "k" }));
    expect(server.requests[0]!.body.messages[0].content[1]).toEqual({
      type: "image_url",
      image_url: { url: "data:image/png;base64,iVBORw0KGgo=" },
    });
    const textOnly = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl, input: ["text"] });
    await collect(streamOpenAICompletions(textOnly, context, { apiKey: "k" }));
    expect(JSON.stringify(server.requests[1]!.body.messages[0].content)).not.toContain("image_url");
    expect(JSON.stringify(server.requests[1]!.body.messages[0].content)).toContain("image omitted");
  });

  it("falls back to a weaker reasoning level, then off, when the server rejects reasoning_effort", async () => {
    const rejected = { status: 400, json: errorBodies.openaiReasoningRejected };
    server = await startOpenAIMock([rejected, rejected, { events: openaiChatEvents({ text: ["fine"] }) }]);
    const model: Model<Api> = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    const { result, types } = await collect(
      streamSimpleOpenAICompletions(model, CONTEXT, { apiKey: "k", reasoning: "high" }),
    );
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(["high", "medium", undefined]);
    expect(textOfMessage(result)).toBe("fine");
    expect(types[0]).toBe("start");
    expect(types.filter((t) => t === "start")).toHaveLength(1);
  });

  it("turns an in-stream error chunk into an error event with the vendor message", async () => {
    const events = openaiChatEvents({ text: ["Hi"] });
    events.splice(2, 0, { data: { error: { message: "The server is overloaded", type: "server_error", code: null } } });
    server = await startOpenAIMock([{ events }]);
    const model = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICompletions(model, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/server is overloaded/);
    expect(textOfMessage(result)).toBe("Hi");
  });

  it("reports a stream that ends without finish_reason as an error", async () => {
    const events = openaiChatEvents({ text: ["Hi"] }).filter(
      (e) => !JSON.stringify(e.data).includes('"finish_reason":"stop"'),
    );
    server = await startOpenAIMock([{ events }]);
    const model = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICompletions(model, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/finish_reason/);
  });

  it("fails with a clear message when no API key is configured for a remote provider", async () => {
    const model = testModel("openai-completions", { provider: "nokeyprovider", baseUrl: "https://api.example.com/v1" });
    const { result } = await collect(streamOpenAICompletions(model, CONTEXT));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/No API key for provider "nokeyprovider".*NOKEYPROVIDER_API_KEY/);
  });
});

describe.skipIf(!process.env.OPENAI_API_KEY)("openai-completions live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("openai-completions", {
      id: "gpt-4o-mini",
      provider: "openai",
      baseUrl: "https://api.openai.com/v1",
      reasoning: false,
    });
    const { result } = await collect(
      streamOpenAICompletions(
        model,
        { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] },
        { maxTokens: 20 },
      ),
    );
    expect(result.stopReason).toBe("stop");
    expect(result.usage.input).toBeGreaterThan(0);
  });
});
