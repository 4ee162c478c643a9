import { afterEach, describe, expect, it } from "vitest";
import { streamOpenAIResponses, streamSimpleOpenAIResponses } from "../src/providers/openai-responses.js";
import type { Context, ToolCall } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { openaiResponsesRecordings } from "./helpers/recordings.js";
import { errorBodies, openaiResponsesEvents } from "./helpers/vendor-events.js";

runConformanceSuite({
  name: "openai-responses",
  api: "openai-responses",
  provider: "openai",
  startMock: startOpenAIMock,
  events: (t) => openaiResponsesEvents(t),
  stream: streamOpenAIResponses,
  streamSimple: streamSimpleOpenAIResponses,
  errors: {
    auth: { status: 401, json: errorBodies.openaiAuth, message: /Incorrect API key provided/ },
    rateLimit: {
      status: 429,
      json: errorBodies.openaiRateLimit,
      headers: { "retry-after": "3" },
      message: /Rate limit reached/,
      retryAfterMs: 3000,
    },
    server: { status: 500, json: errorBodies.openaiServer, message: /server had an error/ },
    overloaded: {
      status: 529,
      json: { error: { message: "Overloaded", type: "overloaded_error", code: null } },
      message: /Overloaded/,
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
  recordings: openaiResponsesRecordings,
});

describe("openai-responses specifics", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends input items, reasoning effort with encrypted content, store off and max_output_tokens", async () => {
    server = await startOpenAIMock([{ events: openaiResponsesEvents({ text: ["ok"] }) }]);
    const model = testModel("openai-responses", { provider: "openai", baseUrl: server.baseUrl });
    await collect(
      streamSimpleOpenAIResponses(model, CONTEXT, { apiKey: "k", reasoning: "high", maxTokens: 99, sessionId: "s1" }),
    );
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1/responses");
    expect(req.body.input[0]).toEqual({ role: "developer", content: "You are terse." });
    expect(req.body.input[1]).toEqual({
      role: "user",
      content: [{ type: "input_text", text: "Read a.txt and b.txt" }],
    });
    expect(req.body.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(req.body.include).toEqual(["reasoning.encrypted_content"]);
    expect(req.body.store).toBe(false);
    expect(req.body.max_output_tokens).toBe(99);
    expect(req.body.prompt_cache_key).toBe("s1");
    expect(req.body.tools[0]).toMatchObject({ type: "function", name: "read" });
  });

  it("replays the reasoning item and call ids to the same model on the next turn", async () => {
    const turn1 = openaiResponsesEvents({
      thinking: ["I should read."],
      signature: "gAAAA-secret",
      toolCalls: [{ id: "call_9", name: "read", args: ['{"path":"a.txt"}'] }],
      finish: "tool",
    });
    server = await startOpenAIMock([{ events: turn1 }, { events: openaiResponsesEvents({ text: ["done"] }) }]);
    const model = testModel("openai-responses", { provider: "openai", baseUrl: server.baseUrl });
    const first = await collect(streamOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    const call = first.result.content.find((b): b is ToolCall => b.type === "toolCall")!;
    expect(call.id).toBe("call_9|fc_call_9");
    expect(first.result.content[0]).toMatchObject({ type: "thinking", thinking: "I should read." });
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
    await collect(streamOpenAIResponses(model, context, { apiKey: "k" }));
    const input = server.requests[1]!.body.input;
    expect(input[2]).toMatchObject({ type: "reasoning", id: "rs_abc123", encrypted_content: "gAAAA-secret" });
    expect(input[3]).toEqual({
      type: "function_call",
      call_id: "call_9",
      name: "read",
      arguments: '{"path":"a.txt"}',
      id: "fc_call_9",
    });
    expect(input[4]).toEqual({ type: "function_call_output", call_id: "call_9", output: "A" });
  });

  it("ends with an error event on response.failed and on an `error` event", async () => {
    const failed = openaiResponsesEvents({ text: ["par"] }).slice(0, 5);
    failed.push({
      event: "response.failed",
      data: {
        type: "response.failed",
        response: {
          id: "resp_1",
          status: "failed",
          error: { code: "server_error", message: "The model failed to generate a response." },
        },
      },
    });
    const errored = openaiResponsesEvents({ text: ["par"] }).slice(0, 5);
    errored.push({
      event: "error",
      data: { type: "error", code: "rate_limit_exceeded", message: "Too many tokens in flight", param: null },
    });
    server = await startOpenAIMock([{ events: failed }, { events: errored }]);
    const model = testModel("openai-responses", { provider: "openai", baseUrl: server.baseUrl });
    const a = await collect(streamOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    expect(a.result.stopReason).toBe("error");
    expect(a.result.errorMessage).toBe("server_error: The model failed to generate a response.");
    expect(textOfMessage(a.result)).toBe("par");
    const b = await collect(streamOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    expect(b.result.errorMessage).toMatch(/rate_limit_exceeded: Too many tokens/);
  });
});

describe.skipIf(!process.env.OPENAI_API_KEY)("openai-responses live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("openai-responses", {
      id: "gpt-4o-mini",
      provider: "openai",
      baseUrl: "https://api.openai.com/v1",
      reasoning: false,
    });
    const { result } = await collect(
      streamOpenAIResponses(
        model,
        { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] },
        { maxTokens: 20 },
      ),
    );
    expect(result.stopReason).toBe("stop");
  });
});
