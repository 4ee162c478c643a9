import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropic } from "../src/providers/anthropic.js";
import { streamMistral, streamSimpleMistral } from "../src/providers/mistral.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import type { Context, Message, ToolCall } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { mistralEvents } from "./helpers/mistral-events.js";
import { type MockServer, startAnthropicMock, startMockServer, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { anthropicEvents, openaiResponsesEvents } from "./helpers/vendor-events.js";

/** Mistral's own call ids: 9 alphanumerics. */
const mistralId = (id: string) => `${id.replace(/[^a-zA-Z0-9]/g, "")}XXXXXXXXX`.slice(0, 9);

runConformanceSuite({
  name: "mistral-conversations",
  api: "mistral-conversations",
  provider: "mistral",
  startMock: (script) => startMockServer(script),
  events: (t) => mistralEvents(t, { toolCallIdFor: mistralId }),
  stream: streamMistral,
  streamSimple: streamSimpleMistral,
  errors: {
    auth: { status: 401, json: { message: "Unauthorized", request_id: "4d1e0a2b9c" }, message: /Unauthorized/ },
    rateLimit: {
      status: 429,
      json: { message: "Requests rate limit exceeded" },
      headers: { "retry-after": "6" },
      message: /Requests rate limit exceeded/,
      retryAfterMs: 6000,
    },
    server: {
      status: 500,
      json: {
        object: "error",
        message: "Internal server error",
        type: "internal_server_error",
        param: null,
        code: null,
      },
      message: /Internal server error/,
    },
    overloaded: {
      status: 503,
      json: {
        object: "error",
        message: "Service unavailable: the model is overloaded, please retry later",
        type: "service_unavailable",
        param: null,
        code: "1000",
      },
      message: /the model is overloaded/,
    },
    contextOverflow: {
      status: 400,
      json: {
        object: "error",
        message:
          "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
        type: "invalid_request_error",
        param: null,
        code: "3051",
      },
      message: /too large for model with 131072 maximum context length/,
    },
  },
  malformed: { data: '{"id":"cmpl-1","choices":[{"index":0,"delta":{"content":"oo' },
  streamsToolArguments: false,
  eventsBeforeText: () => 1,
});

describe("mistral specifics", () => {
  const servers: MockServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers.length = 0;
  });
  async function mistral(events: ReturnType<typeof mistralEvents>[]): Promise<MockServer> {
    const server = await startMockServer(events.map((e) => ({ events: e })));
    servers.push(server);
    return server;
  }

  it("posts /v1/chat/completions in Mistral's wire format with the bearer key, tools and affinity", async () => {
    const server = await mistral([mistralEvents({ text: ["ok"] })]);
    const model = testModel("mistral-conversations", {
      id: "mistral-large-latest",
      provider: "mistral",
      baseUrl: `${server.url}/v1`,
      reasoning: false,
    });
    await collect(
      streamMistral(model, CONTEXT, {
        apiKey: "mk",
        maxTokens: 64,
        temperature: 0.2,
        sessionId: "s-7",
        toolChoice: "any",
      }),
    );
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer mk");
    expect(req.headers.accept).toBe("text/event-stream");
    expect(req.headers["x-affinity"]).toBe("s-7");
    expect(req.body).toMatchObject({
      model: "mistral-large-latest",
      stream: true,
      max_tokens: 64,
      temperature: 0.2,
      tool_choice: "any",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Read a.txt and b.txt" },
      ],
    });
    expect(req.body.tools[0]).toMatchObject({ type: "function", function: { name: "read", strict: false } });
  });

  it("maps reasoning to prompt_mode (Magistral) or reasoning_effort (Small 4), and sends nothing by default", async () => {
    const server = await mistral([
      mistralEvents({ thinking: ["hmm"], text: ["a"] }),
      mistralEvents({ text: ["b"] }),
      mistralEvents({ text: ["c"] }),
      mistralEvents({ text: ["d"] }),
    ]);
    const magistral = testModel("mistral-conversations", { id: "magistral-medium-latest", baseUrl: server.url });
    const small = testModel("mistral-conversations", { id: "mistral-small-latest", baseUrl: server.url });
    const first = await collect(streamSimpleMistral(magistral, CONTEXT, { apiKey: "k", reasoning: "high" }));
    expect(first.result.content[0]).toMatchObject({ type: "thinking", thinking: "hmm" });
    await collect(streamSimpleMistral(small, CONTEXT, { apiKey: "k", reasoning: "medium" }));
    await collect(streamSimpleMistral(small, CONTEXT, { apiKey: "k", reasoning: "off" }));
    await collect(streamSimpleMistral(small, CONTEXT, { apiKey: "k" }));
    const bodies = server.requests.map((r) => r.body);
    expect(bodies[0].prompt_mode).toBe("reasoning");
    expect(bodies[0].reasoning_effort).toBeUndefined();
    expect(bodies[1].reasoning_effort).toBe("high");
    expect(bodies[1].prompt_mode).toBeUndefined();
    expect(bodies[2].reasoning_effort).toBe("none");
    expect(bodies[3].reasoning_effort).toBeUndefined();
    expect(bodies[3].prompt_mode).toBeUndefined();
  });

  it("replays a recorded mistral-large stream that stops at max_tokens", async () => {
    // Excerpt (first six chunks and the final one, verbatim) of a stream recorded from api.mistral.ai, in
    // M-Lai-ai/LLM-Provider-reference, Mistral/streaming.md (commit 007d4348).
    const head = (content: string, extra = "") =>
      `data: {"id":"f798ebd5c41a45d88bb079635121cade","object":"chat.completion.chunk","created":1732548656,"model":"mistral-large-latest","choices":[{"index":0,"delta":{${extra}"content":"${content}"},"finish_reason":null}]}\n\n`;
    const sse =
      head("", '"role":"assistant",') +
      head("C") +
      head("oca") +
      head("-") +
      head("Col") +
      head("a") +
      'data: {"id":"f798ebd5c41a45d88bb079635121cade","object":"chat.completion.chunk","created":1732548656,"model":"mistral-large-latest","choices":[{"index":0,"delta":{"content":"izable"},"finish_reason":"length"}],"usage":{"prompt_tokens":34,"total_tokens":134,"completion_tokens":100}}\n\n' +
      "data: [DONE]\n\n";
    const server = await startMockServer([{ sse }]);
    servers.push(server);
    const model = testModel("mistral-conversations", { id: "mistral-large-latest", baseUrl: server.url });
    const { result } = await collect(streamMistral(model, CONTEXT, { apiKey: "k" }));
    expect(textOfMessage(result)).toBe("Coca-Colaizable");
    expect(result.stopReason).toBe("length");
    expect(result.responseId).toBe("f798ebd5c41a45d88bb079635121cade");
    expect(result.usage).toMatchObject({ input: 34, output: 100, totalTokens: 134 });
    expect(result.usage.cost.total).toBeCloseTo((34 * 3 + 100 * 15) / 1e6, 12);
  });

  it("reassembles tool-call arguments sent in fragments by index", async () => {
    const events = mistralEvents({ text: [] });
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: {
        id: "c1",
        object: "chat.completion.chunk",
        model: "m",
        choices: [{ index: 0, delta, finish_reason: finish }],
      },
    });
    events.splice(
      1,
      events.length - 1,
      chunk({ tool_calls: [{ id: "AbC123xyz", index: 0, function: { name: "read", arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a.txt"}' } }] }),
      chunk({ tool_calls: [{ id: "ZZZ999aaa", index: 1, function: { name: "read", arguments: '{"path":"b.txt"}' } }] }),
      chunk({ content: "" }, "tool_calls"),
      { data: "[DONE]" },
    );
    const server = await mistral([events]);
    const model = testModel("mistral-conversations", { baseUrl: server.url });
    const { result } = await collect(streamMistral(model, CONTEXT, { apiKey: "k" }));
    const calls = result.content.filter((b): b is ToolCall => b.type === "toolCall");
    expect(calls).toEqual([
      { type: "toolCall", id: "AbC123xyz", name: "read", arguments: { path: "a.txt" } },
      { type: "toolCall", id: "ZZZ999aaa", name: "read", arguments: { path: "b.txt" } },
    ]);
    expect(result.stopReason).toBe("toolUse");
  });

  it("replays its own thinking as a thinking chunk and a tool's image to the same model", async () => {
    const server = await mistral([
      mistralEvents({
        thinking: ["Look at ", "the chart."],
        toolCalls: [{ id: "Xy7Kq2Lm9", name: "read", args: ['{"path":"chart.png"}'] }],
        finish: "tool",
      }),
      mistralEvents({ text: ["It rises."] }),
    ]);
    const model = testModel("mistral-conversations", { id: "magistral-medium-latest", baseUrl: server.url });
    const first = await collect(streamSimpleMistral(model, CONTEXT, { apiKey: "k", reasoning: "high" }));
    expect(first.result.stopReason).toBe("toolUse");
    const context: Context = {
      ...CONTEXT,
      messages: [
        ...CONTEXT.messages,
        first.result,
        {
          role: "toolResult",
          toolCallId: "Xy7Kq2Lm9",
          toolName: "read",
          content: [
            { type: "text", text: "chart" },
            { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          ],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    const second = await collect(streamMistral(model, context, { apiKey: "k" }));
    expect(second.result.errorMessage).toBeUndefined();
    expect(textOfMessage(second.result)).toBe("It rises.");
    const sent = server.requests[1]!.body.messages as Record<string, unknown>[];
    // (The SDK adds its defaults, `prefix: false` and the call `index`.)
    expect(sent[2]).toMatchObject({
      role: "assistant",
      content: [{ type: "thinking", thinking: [{ type: "text", text: "Look at the chart." }] }],
      tool_calls: [
        { id: "Xy7Kq2Lm9", type: "function", function: { name: "read", arguments: '{"path":"chart.png"}' } },
      ],
    });
    expect(sent[3]).toEqual({
      role: "tool",
      tool_call_id: "Xy7Kq2Lm9",
      name: "read",
      content: [
        { type: "text", text: "chart" },
        { type: "image_url", image_url: "data:image/png;base64,iVBORw0KGgo=" },
      ],
    });
  });

  it("ends with an error event, keeping the partial text, when Mistral finishes with reason error", async () => {
    const events = mistralEvents({ text: ["Half ", "an answer"] });
    const last = events.at(-2)!.data as { choices: { finish_reason: string }[] };
    last.choices[0]!.finish_reason = "error";
    const server = await mistral([events]);
    const model = testModel("mistral-conversations", { baseUrl: server.url });
    const { result, terminal } = await collect(streamMistral(model, CONTEXT, { apiKey: "k" }));
    expect(terminal).toMatchObject({ type: "error", reason: "error" });
    expect(result.errorMessage).toMatch(/^error: /);
    expect(textOfMessage(result)).toBe("Half an answer");
  });

  it("lets onPayload add fields the SDK does not know, and they reach the wire", async () => {
    const server = await mistral([mistralEvents({ text: ["ok"] })]);
    const model = testModel("mistral-conversations", { baseUrl: server.url });
    await collect(
      streamMistral(model, CONTEXT, {
        apiKey: "k",
        onPayload: (p) => ({ ...(p as object), safePrompt: true, custom_field: { a: 1 } }),
      }),
    );
    expect(server.requests[0]!.body.safe_prompt).toBe(true);
    expect(server.requests[0]!.body.custom_field).toEqual({ a: 1 });
  });

  it("replays another vendor's tool calls with 9-character alphanumeric ids, paired with their results", async () => {
    // Mistral answers 400 to any other id shape; ids must stay consistent between calls and results.
    const claudeServer = await startAnthropicMock([
      {
        events: anthropicEvents({
          thinking: ["plan"],
          text: ["Reading."],
          toolCalls: [
            { id: "toolu_01A09q90qw90lq917835lq9", name: "read", args: ['{"path":"a.txt"}'] },
            { id: "toolu_01B", name: "read", args: ['{"path":"b.txt"}'] },
          ],
          finish: "tool",
        }),
      },
    ]);
    servers.push(claudeServer);
    const claude = testModel("anthropic-messages", { provider: "anthropic", baseUrl: claudeServer.baseUrl });
    const first = await collect(streamAnthropic(claude, CONTEXT, { apiKey: "k" }));
    const calls = first.result.content.filter((b): b is ToolCall => b.type === "toolCall");
    const messages: Message[] = [
      ...CONTEXT.messages,
      first.result,
      ...calls.map((c, i) => ({
        role: "toolResult" as const,
        toolCallId: c.id,
        toolName: "read",
        content: [{ type: "text" as const, text: `file ${i}` }],
        isError: i === 1,
        timestamp: 2 + i,
      })),
    ];
    const server = await mistral([mistralEvents({ text: ["Done."] })]);
    const model = testModel("mistral-conversations", { provider: "mistral", baseUrl: server.url });
    const { result } = await collect(streamMistral(model, { ...CONTEXT, messages }, { apiKey: "k" }));
    expect(textOfMessage(result)).toBe("Done.");
    const sent = server.requests[0]!.body.messages as Record<string, unknown>[];
    const assistant = sent.find((m) => m.role === "assistant") as { tool_calls: { id: string }[]; content: unknown };
    const ids = assistant.tool_calls.map((c) => c.id);
    expect(ids.every((id) => /^[a-zA-Z0-9]{9}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    // Foreign thinking is replayed as text, not as a Mistral thinking chunk.
    expect(assistant.content).toEqual([
      { type: "text", text: "plan" },
      { type: "text", text: "Reading." },
    ]);
    const tools = sent.filter((m) => m.role === "tool");
    expect(tools).toEqual([
      { role: "tool", tool_call_id: ids[0], name: "read", content: "file 0" },
      { role: "tool", tool_call_id: ids[1], name: "read", content: "[tool error] file 1" },
    ]);
  });

  it("continues an OpenAI Responses turn (call|item ids) on Mistral", async () => {
    const oa = await startOpenAIMock([
      {
        events: openaiResponsesEvents({
          toolCalls: [{ id: "call_Q1w2E3r4T5y6", name: "read", args: ['{"path":"a.txt"}'] }],
          finish: "tool",
        }),
      },
    ]);
    servers.push(oa);
    const gpt = testModel("openai-responses", { provider: "openai", baseUrl: oa.baseUrl });
    const first = await collect(streamOpenAIResponses(gpt, CONTEXT, { apiKey: "k" }));
    const call = first.result.content.find((b): b is ToolCall => b.type === "toolCall")!;
    expect(call.id).toContain("|");
    const context: Context = {
      ...CONTEXT,
      messages: [
        ...CONTEXT.messages,
        first.result,
        {
          role: "toolResult",
          toolCallId: call.id,
          toolName: "read",
          content: [{ type: "text", text: "A" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    const server = await mistral([mistralEvents({ text: ["ok"] })]);
    const model = testModel("mistral-conversations", { provider: "mistral", baseUrl: server.url });
    await collect(streamMistral(model, context, { apiKey: "k" }));
    const sent = server.requests[0]!.body.messages as Record<string, unknown>[];
    const id = (sent.find((m) => m.role === "assistant") as { tool_calls: { id: string }[] }).tool_calls[0]!.id;
    expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(sent.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: id, content: "A" });
  });
});

describe.skipIf(!process.env.MISTRAL_API_KEY)("mistral live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("mistral-conversations", {
      id: "mistral-small-latest",
      provider: "mistral",
      baseUrl: "https://api.mistral.ai",
      reasoning: false,
    });
    const { result } = await collect(
      streamMistral(model, { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] }, { maxTokens: 20 }),
    );
    expect(result.stopReason).toBe("stop");
  });
});
