import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../src/classify-error.js";
import { streamAnthropic } from "../src/providers/anthropic.js";
import {
  codexAccountId,
  resolveCodexBaseUrl,
  streamOpenAICodexResponses,
  streamSimpleOpenAICodexResponses,
} from "../src/providers/openai-codex-responses.js";
import type { Context, ToolCall } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockScript, type MockServer, startAnthropicMock, startMockServer } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { anthropicEvents, errorBodies, openaiResponsesEvents } from "./helpers/vendor-events.js";

/** An access token shaped like a ChatGPT login's: a JWT whose auth claim names the account. */
function chatgptToken(accountId: string): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part({
    "https://api.openai.com/auth": { chatgpt_account_id: accountId, chatgpt_plan_type: "plus" },
    exp: 4102444800,
  })}.c2lnbmF0dXJl`;
}
const TOKEN = chatgptToken("acct-1234");

const startCodexMock = (script: MockScript): Promise<MockServer> => startMockServer(script, "/backend-api");

runConformanceSuite({
  name: "openai-codex-responses",
  api: "openai-codex-responses",
  provider: "openai-codex",
  apiKey: TOKEN,
  startMock: startCodexMock,
  events: (t) => openaiResponsesEvents(t),
  stream: streamOpenAICodexResponses,
  streamSimple: streamSimpleOpenAICodexResponses,
  errors: {
    auth: {
      status: 401,
      json: {
        error: {
          message: "Provided authentication token is expired. Please try signing in again.",
          type: "invalid_request_error",
          code: "token_expired",
          param: null,
        },
      },
      message: /authentication token is expired/,
    },
    // The shape the backend answers when a plan's cap is used up: plan and reset time.
    rateLimit: {
      status: 429,
      json: {
        error: {
          type: "usage_limit_reached",
          message: "The usage limit has been reached",
          plan_type: "PLUS",
          resets_in_seconds: 1800,
        },
      },
      message: /usage_limit_reached: You have hit your ChatGPT usage limit \(plus plan\)\. It resets in ~30 min\./,
      retryAfterMs: 1_800_000,
      class: "quota",
    },
    server: { status: 500, json: errorBodies.openaiServer, message: /server had an error/ },
    overloaded: {
      status: 503,
      json: {
        error: { message: "Our servers are currently overloaded. Please try again later.", type: "server_error" },
      },
      headers: { "retry-after": "4" },
      message: /currently overloaded/,
      retryAfterMs: 4000,
    },
    contextOverflow: {
      status: 400,
      json: errorBodies.openaiResponsesContextOverflow,
      message: /exceeds the context window of this model/,
    },
  },
  malformed: { event: "response.output_text.delta", data: '{"type":"response.output_text.delta","delta":"oo' },
  streamsToolArguments: true,
  eventsBeforeText: () => 4,
});

describe("openai-codex-responses specifics", () => {
  const servers: MockServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers.length = 0;
  });
  async function codex(script: MockScript): Promise<MockServer> {
    const server = await startCodexMock(script);
    servers.push(server);
    return server;
  }

  it("posts the Codex body (instructions, store off, no token limit) with the account headers", async () => {
    const server = await codex([{ events: openaiResponsesEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-codex-responses", {
      id: "gpt-5.3-codex",
      provider: "openai-codex",
      baseUrl: server.baseUrl,
    });
    await collect(
      streamSimpleOpenAICodexResponses(model, CONTEXT, {
        apiKey: TOKEN,
        reasoning: "high",
        maxTokens: 500,
        sessionId: "sess-9",
      }),
    );
    const req = server.requests[0]!;
    expect(req.url).toBe("/backend-api/codex/responses");
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers["chatgpt-account-id"]).toBe("acct-1234");
    expect(req.headers["openai-beta"]).toBe("responses=experimental");
    expect(req.headers.originator).toBe("tiller");
    expect(req.headers.session_id).toBe("sess-9");
    expect(req.body).toMatchObject({
      model: "gpt-5.3-codex",
      store: false,
      stream: true,
      instructions: "You are terse.",
      text: { verbosity: "low" },
      include: ["reasoning.encrypted_content"],
      tool_choice: "auto",
      parallel_tool_calls: true,
      prompt_cache_key: "sess-9",
      reasoning: { effort: "high", summary: "auto" },
    });
    // The system prompt travels only as instructions; the backend has no output limit parameter.
    expect(req.body.input).toEqual([{ role: "user", content: [{ type: "input_text", text: "Read a.txt and b.txt" }] }]);
    expect(req.body.max_output_tokens).toBeUndefined();
    expect(req.body.tools[0]).toMatchObject({ type: "function", name: "read", strict: null });
  });

  it("maps levels through the model's map and sends effort none for off", async () => {
    const server = await codex([
      { events: openaiResponsesEvents({ text: ["a"] }) },
      { events: openaiResponsesEvents({ text: ["b"] }) },
    ]);
    const model = testModel("openai-codex-responses", {
      id: "gpt-5.1-codex-mini",
      baseUrl: server.baseUrl,
      thinkingLevelMap: { minimal: "medium", low: "medium", medium: "medium", high: "high" },
    });
    await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN, reasoningEffort: "minimal" }));
    await collect(streamSimpleOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN, reasoning: "off" }));
    expect(server.requests[0]!.body.reasoning).toEqual({ effort: "medium", summary: "auto" });
    expect(server.requests[1]!.body.reasoning).toEqual({ effort: "none" });
  });

  it("reads a message sent whole in output_item.done, as in the Codex CLI's own fixture", async () => {
    // Verbatim from openai/codex, codex-rs/core/tests/cli_responses_fixture.sse (commit 71163530): no
    // output_item.added, no deltas, no output_index, a stray "#" line and a completed response without status.
    const fixture =
      'event: response.created\ndata: {"type":"response.created","response":{"id":"resp1"}}\n\n' +
      "event: response.output_item.done\n# core/tests/cli_responses_fixture.sse\n" +
      'data: {"type":"response.output_item.done","item":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"fixture hello"}]}}\n\n' +
      'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp1","output":[]}}\n';
    const server = await codex([{ sse: fixture }]);
    const model = testModel("openai-codex-responses", { baseUrl: server.baseUrl });
    const { result, types } = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN }));
    expect(textOfMessage(result)).toBe("fixture hello");
    expect(result.responseId).toBe("resp1");
    expect(result.stopReason).toBe("stop");
    expect(types).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
  });

  it("treats the backend's response.done like response.completed", async () => {
    const events = openaiResponsesEvents({ text: ["done-named"], usage: { input: 7, output: 3 } });
    const last = events.at(-1)!;
    events[events.length - 1] = {
      event: "response.done",
      data: { ...(last.data as object), type: "response.done" },
    };
    const server = await codex([{ events }]);
    const model = testModel("openai-codex-responses", { baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN }));
    expect(result.stopReason).toBe("stop");
    expect(result.usage).toMatchObject({ input: 7, output: 3 });
  });

  it("prices usage for the service tier asked for", async () => {
    const turn = { text: ["x"], usage: { input: 1_000_000, output: 0 } };
    const server = await codex([{ events: openaiResponsesEvents(turn) }, { events: openaiResponsesEvents(turn) }]);
    const model = testModel("openai-codex-responses", { baseUrl: server.baseUrl }); // $3 per million input
    const flex = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN, serviceTier: "flex" }));
    const prio = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN, serviceTier: "priority" }));
    expect(flex.result.usage.cost.total).toBeCloseTo(1.5, 9);
    expect(prio.result.usage.cost.total).toBeCloseTo(6, 9);
    expect(server.requests[0]!.body.service_tier).toBe("flex");
  });

  it("refuses a token that is not a ChatGPT JWT with a clear error, before any request", async () => {
    const server = await codex([{ events: openaiResponsesEvents({ text: ["never"] }) }]);
    const model = testModel("openai-codex-responses", { baseUrl: server.baseUrl });
    const { result, types } = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: "sk-plain" }));
    expect(types).toEqual(["error"]);
    expect(result.errorMessage).toMatch(/not a ChatGPT OAuth access token/);
    expect(server.requests).toHaveLength(0);
    expect(() => codexAccountId("a.b.c")).toThrow(/chatgpt_account_id/);
  });

  it("resolves the endpoint from a backend-api, codex or full responses URL", () => {
    expect(resolveCodexBaseUrl("")).toBe("https://chatgpt.com/backend-api/codex");
    expect(resolveCodexBaseUrl("https://chatgpt.com/backend-api/")).toBe("https://chatgpt.com/backend-api/codex");
    expect(resolveCodexBaseUrl("http://h/x/codex")).toBe("http://h/x/codex");
    expect(resolveCodexBaseUrl("http://h/x/codex/responses")).toBe("http://h/x/codex");
  });

  it("continues an Anthropic conversation with tool calls: ids sanitized, results paired, no system item", async () => {
    const claudeServer = await startAnthropicMock([
      {
        events: anthropicEvents({
          thinking: ["need both"],
          signature: "claude-sig",
          toolCalls: [
            { id: "toolu_01A", name: "read", args: ['{"path":"a.txt"}'] },
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
    const context: Context = {
      ...CONTEXT,
      messages: [
        ...CONTEXT.messages,
        first.result,
        ...calls.map((c, i) => ({
          role: "toolResult" as const,
          toolCallId: c.id,
          toolName: "read",
          content: [{ type: "text" as const, text: `content ${i}` }],
          isError: false,
          timestamp: 3 + i,
        })),
      ],
    };
    const server = await codex([{ events: openaiResponsesEvents({ text: ["Both read."] }) }]);
    const model = testModel("openai-codex-responses", { provider: "openai-codex", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICodexResponses(model, context, { apiKey: TOKEN }));
    expect(textOfMessage(result)).toBe("Both read.");
    const input = server.requests[0]!.body.input as Record<string, unknown>[];
    expect(input.some((i) => i.role === "system" || i.role === "developer")).toBe(false);
    const fc = input.filter((i) => i.type === "function_call");
    const out = input.filter((i) => i.type === "function_call_output");
    expect(fc.map((i) => i.call_id)).toEqual(["toolu_01A", "toolu_01B"]);
    expect(fc.every((i) => i.id === undefined)).toBe(true); // no foreign reasoning to tie an item id to
    expect(out).toEqual([
      { type: "function_call_output", call_id: "toolu_01A", output: "content 0" },
      { type: "function_call_output", call_id: "toolu_01B", output: "content 1" },
    ]);
    // Foreign thinking is not replayed as a Responses reasoning item.
    expect(input.some((i) => i.type === "reasoning")).toBe(false);
  });

  it("classifies an expired login as auth", async () => {
    const server = await codex([
      { status: 401, json: { error: { message: "Your authentication token has expired.", code: "token_expired" } } },
    ]);
    const model = testModel("openai-codex-responses", { baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICodexResponses(model, CONTEXT, { apiKey: TOKEN }));
    expect(classifyError(result).class).toBe("auth");
  });
});

describe.skipIf(!process.env.OPENAI_CODEX_API_KEY)("openai-codex-responses live", () => {
  it("streams a short answer from the real backend", async () => {
    const model = testModel("openai-codex-responses", {
      id: "gpt-5.4-mini",
      provider: "openai-codex",
      baseUrl: "https://chatgpt.com/backend-api",
    });
    const { result } = await collect(
      streamOpenAICodexResponses(model, { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] }),
    );
    expect(result.stopReason).toBe("stop");
  });
});
