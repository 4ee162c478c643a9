import { afterEach, describe, expect, it } from "vitest";
import { streamGoogle, streamSimpleGoogle } from "../src/providers/google.js";
import { sanitizeGeminiSchema } from "../src/providers/google-shared.js";
import type { Context, ToolCall } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startGeminiMock } from "./helpers/mock-server.js";
import { CONTEXT, runConformanceSuite } from "./helpers/provider-conformance.js";
import { googleRecordings } from "./helpers/recordings.js";
import { errorBodies, geminiEvents } from "./helpers/vendor-events.js";

runConformanceSuite({
  name: "google",
  api: "google-generative-ai",
  provider: "google",
  startMock: startGeminiMock,
  events: (t) => geminiEvents(t),
  stream: streamGoogle,
  streamSimple: streamSimpleGoogle,
  errors: {
    auth: {
      status: 401,
      json: errorBodies.geminiUnauthenticated,
      message: /UNAUTHENTICATED: Request had invalid authentication/,
    },
    rateLimit: {
      status: 429,
      json: errorBodies.geminiRateLimit,
      message: /RESOURCE_EXHAUSTED: You exceeded your current quota/,
      retryAfterMs: 17000,
      class: "quota", // Google's own wording for a per-minute quota
    },
    server: { status: 500, json: errorBodies.geminiServer, message: /INTERNAL: An internal error has occurred/ },
    overloaded: {
      status: 503,
      json: errorBodies.geminiOverloaded,
      headers: { "retry-after": "2" },
      message: /UNAVAILABLE: The model is overloaded/,
      retryAfterMs: 2000,
    },
    contextOverflow: {
      status: 400,
      json: errorBodies.geminiContextOverflow,
      message: /input token count \(1234567\) exceeds the maximum/,
    },
  },
  malformed: { data: '{"candidates":[{"content":{"parts":[{"text":"oo' },
  streamsToolArguments: false,
  eventsBeforeText: () => 0,
  recordings: googleRecordings,
});

describe("google specifics", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("posts to streamGenerateContent?alt=sse with contents, system instruction, sanitized tools and a thinking budget", async () => {
    server = await startGeminiMock([{ events: geminiEvents({ text: ["ok"] }) }]);
    const model = testModel("google-generative-ai", {
      id: "gemini-2.5-flash",
      provider: "google",
      baseUrl: `${server.url}/v1beta`,
    });
    await collect(streamSimpleGoogle(model, CONTEXT, { apiKey: "gk", reasoning: "medium", maxTokens: 77 }));
    const req = server.requests[0]!;
    expect(req.url).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(req.headers["x-goog-api-key"]).toBe("gk");
    expect(req.body.contents).toEqual([{ role: "user", parts: [{ text: "Read a.txt and b.txt" }] }]);
    expect(req.body.systemInstruction).toMatchObject({ parts: [{ text: "You are terse." }] });
    expect(req.body.generationConfig).toMatchObject({
      maxOutputTokens: 77,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
    });
    expect(req.body.tools[0].functionDeclarations[0]).toMatchObject({
      name: "read",
      parameters: { type: "OBJECT", required: ["path"] },
    });
  });

  it("sends no thinkingConfig when no reasoning level is given, and budget 0 for off", async () => {
    server = await startGeminiMock([
      { events: geminiEvents({ text: ["a"] }) },
      { events: geminiEvents({ text: ["b"] }) },
    ]);
    const model = testModel("google-generative-ai", {
      id: "gemini-2.5-flash",
      provider: "google",
      baseUrl: server.url,
    });
    await collect(streamSimpleGoogle(model, CONTEXT, { apiKey: "k" }));
    await collect(streamSimpleGoogle(model, CONTEXT, { apiKey: "k", reasoning: "off" }));
    expect(server.requests[0]!.body.generationConfig?.thinkingConfig).toBeUndefined();
    expect(server.requests[1]!.body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
  });

  it("strips JSON-schema keys Gemini rejects and maps const, type arrays and null branches", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      additionalProperties: false,
      patternProperties: { "^x-": { type: "string" } },
      properties: {
        mode: { const: "fast" },
        level: { type: ["integer", "null"], minimum: 0, exclusiveMinimum: 0 },
        tag: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
        list: {
          type: "array",
          items: { type: "object", properties: { n: { type: "number", enum: [1, 2] } }, additionalProperties: false },
        },
        choice: { oneOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["mode", "ghost"],
      examples: [{}],
    };
    expect(sanitizeGeminiSchema(schema)).toEqual({
      type: "object",
      properties: {
        mode: { type: "string", enum: ["fast"] },
        level: { type: "integer", nullable: true, minimum: 0 },
        tag: { type: "string", enum: ["a", "b"], nullable: true },
        list: { type: "array", items: { type: "object", properties: { n: { type: "number" } } } },
        choice: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["mode"],
    });
  });

  it("keeps the thought signature of a function call and replays it to the same model only", async () => {
    const turn = geminiEvents({
      toolCalls: [{ id: "x", name: "read", args: ['{"path":"a.txt"}'] }],
      signature: "SIG==",
      finish: "tool",
    });
    server = await startGeminiMock([
      { events: turn },
      { events: geminiEvents({ text: ["ok"] }) },
      { events: geminiEvents({ text: ["ok"] }) },
    ]);
    const model = testModel("google-generative-ai", {
      id: "gemini-3-pro-preview",
      provider: "google",
      baseUrl: server.url,
    });
    const first = await collect(streamGoogle(model, CONTEXT, { apiKey: "k" }));
    const call = first.result.content.find((b): b is ToolCall => b.type === "toolCall")!;
    expect(call).toMatchObject({ name: "read", arguments: { path: "a.txt" }, thoughtSignature: "SIG==" });
    expect(first.result.stopReason).toBe("toolUse");
    const context: Context = {
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
    await collect(streamGoogle(model, context, { apiKey: "k" }));
    const sent = server.requests[1]!.body.contents;
    expect(sent[1]).toEqual({
      role: "model",
      parts: [{ functionCall: { name: "read", args: { path: "a.txt" } }, thoughtSignature: "SIG==" }],
    });
    expect(sent[2]).toEqual({
      role: "user",
      parts: [{ functionResponse: { name: "read", response: { output: "A" } } }],
    });
    // Another Gemini 3 model gets Google's documented placeholder instead of a foreign signature.
    const other = testModel("google-generative-ai", {
      id: "gemini-3-flash-preview",
      provider: "google",
      baseUrl: server.url,
    });
    await collect(streamGoogle(other, context, { apiKey: "k" }));
    expect(server.requests[2]!.body.contents[1].parts[0].thoughtSignature).toBe("skip_thought_signature_validator");
  });

  it("keeps a thought signature sent on an empty text part and replays it to the same model", async () => {
    const events = geminiEvents({ text: ["Answer."] });
    events.push({
      data: {
        candidates: [{ content: { role: "model", parts: [{ text: "", thoughtSignature: "TXTSIG" }] }, index: 0 }],
      },
    });
    // The finish chunk must stay last.
    events.push(events.splice(events.length - 2, 1)[0]!);
    server = await startGeminiMock([{ events }, { events: geminiEvents({ text: ["ok"] }) }]);
    const model = testModel("google-generative-ai", {
      id: "gemini-3-pro-preview",
      provider: "google",
      baseUrl: server.url,
    });
    const first = await collect(streamGoogle(model, CONTEXT, { apiKey: "k" }));
    expect(first.result.content).toEqual([{ type: "text", text: "Answer.", textSignature: "TXTSIG" }]);
    const context: Context = {
      messages: [...CONTEXT.messages, first.result, { role: "user", content: "more", timestamp: 5 }],
    };
    await collect(streamGoogle(model, context, { apiKey: "k" }));
    expect(server.requests[1]!.body.contents[1]).toEqual({
      role: "model",
      parts: [{ text: "Answer.", thoughtSignature: "TXTSIG" }],
    });
  });

  it("ends with an error event when Gemini stops for SAFETY, keeping the partial text", async () => {
    const events = geminiEvents({ text: ["Some ", "text"] });
    (events.at(-1)!.data as { candidates: { finishReason: string }[] }).candidates[0]!.finishReason = "SAFETY";
    server = await startGeminiMock([{ events }]);
    const model = testModel("google-generative-ai", { provider: "google", baseUrl: server.url });
    const { result } = await collect(streamGoogle(model, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^SAFETY/);
    expect(textOfMessage(result)).toBe("Some text");
  });
});

describe.skipIf(!process.env.GEMINI_API_KEY)("google live", () => {
  it("streams a short answer from the real API", async () => {
    const model = testModel("google-generative-ai", {
      id: "gemini-2.5-flash",
      provider: "google",
      baseUrl: "https://generativelanguage.googleapis.com/v1beta",
      reasoning: false,
    });
    const { result } = await collect(
      streamGoogle(model, { messages: [{ role: "user", content: "Say OK", timestamp: 1 }] }, { maxTokens: 20 }),
    );
    expect(result.stopReason).toBe("stop");
  });
});
