/**
 * Regressions found by replaying streams recorded from the real vendor APIs (see fixtures/recorded/SOURCES.md).
 * Each test is named after the bug it pins down.
 */
import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../src/classify-error.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import type { AssistantMessage, Context, TextContent, ThinkingContent, ToolCall } from "../src/types.js";
import { collect, testModel } from "./helpers/collect.js";
import { type MockServer, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT } from "./helpers/provider-conformance.js";
import { type Recording, recordedEvents } from "./helpers/recorded-streams.js";
import { openaiChatEvents, openaiResponsesEvents } from "./helpers/vendor-events.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const recording = (file: string, framing: Recording["framing"], model: string, done = false): Recording => ({
  file,
  source: "vercel/ai",
  framing,
  model,
  done,
  check: () => {},
});

/** The body of the replayed (second) request; fails the test when there was none. */
function secondRequestBody(): Record<string, unknown> {
  const request = server?.requests[1];
  if (!request) throw new Error("the second request never reached the server");
  return request.body as Record<string, unknown>;
}

/** The next turn's context: the recorded reply, plus a tool result for each of its calls. */
function followUp(reply: AssistantMessage): Context {
  const results = reply.content
    .filter((b): b is ToolCall => b.type === "toolCall")
    .map((call) => ({
      role: "toolResult" as const,
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text" as const, text: "18°C, fog" }],
      isError: false,
      timestamp: 3,
    }));
  return { ...CONTEXT, messages: [...CONTEXT.messages, reply, ...results] };
}

describe("OpenAI Responses", () => {
  it("an error event with code and message nested under `error` keeps the message and classifies as quota", async () => {
    const rec = recording("openai-responses-quota-error.jsonl", "typed", "gpt-5-nano-2025-08-07");
    server = await startOpenAIMock([{ events: recordedEvents(rec) }]);
    const model = testModel("openai-responses", { id: rec.model, provider: "openai", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/^insufficient_quota: You exceeded your current quota/);
    expect(result.errorMessage).not.toContain("error event in stream");
    expect(classifyError(result).class).toBe("quota");
  });

  it("text blocks carry the output item's id and phase (textSignature) and send them back on replay", async () => {
    const rec = recording("openai-responses-phase.jsonl", "typed", "gpt-5.3-codex");
    server = await startOpenAIMock([
      { events: recordedEvents(rec) },
      { events: openaiResponsesEvents({ model: rec.model, text: ["ok"] }) },
    ]);
    const model = testModel("openai-responses", { id: rec.model, provider: "openai", baseUrl: server.baseUrl });
    const first = await collect(streamOpenAIResponses(model, CONTEXT, { apiKey: "k" }));
    const texts = first.result.content.filter((b): b is TextContent => b.type === "text");
    expect(texts.map((t) => t.text)).toEqual(["I'm going to search for that", "The capital of France is Paris."]);
    expect(texts.map((t) => JSON.parse(t.textSignature ?? "null"))).toEqual([
      { v: 1, id: "msg_phase_commentary", phase: "commentary" },
      { v: 1, id: "msg_phase_final", phase: "final_answer" },
    ]);

    await collect(streamOpenAIResponses(model, followUp(first.result), { apiKey: "k" }));
    const replayed = (secondRequestBody().input as Record<string, unknown>[]).filter((i) => i.type === "message");
    expect(replayed).toEqual([
      {
        type: "message",
        role: "assistant",
        id: "msg_phase_commentary",
        status: "completed",
        content: [{ type: "output_text", text: "I'm going to search for that", annotations: [] }],
        phase: "commentary",
      },
      {
        type: "message",
        role: "assistant",
        id: "msg_phase_final",
        status: "completed",
        content: [{ type: "output_text", text: "The capital of France is Paris.", annotations: [] }],
        phase: "final_answer",
      },
    ]);
  });

  it("another model gets the text without the foreign item ids", async () => {
    const rec = recording("openai-responses-phase.jsonl", "typed", "gpt-5.3-codex");
    server = await startOpenAIMock([
      { events: recordedEvents(rec) },
      { events: openaiResponsesEvents({ text: ["ok"] }) },
    ]);
    const codex = testModel("openai-responses", { id: rec.model, provider: "openai", baseUrl: server.baseUrl });
    const first = await collect(streamOpenAIResponses(codex, CONTEXT, { apiKey: "k" }));
    const other = testModel("openai-responses", { id: "gpt-5.5", provider: "openai", baseUrl: server.baseUrl });
    await collect(streamOpenAIResponses(other, followUp(first.result), { apiKey: "k" }));
    const input = JSON.stringify(server.requests[1]?.body.input);
    expect(input).not.toContain("msg_phase_");
    expect(input).toContain("The capital of France is Paris.");
  });
});

describe("chat completions", () => {
  it("DeepSeek reasoning_content marks the thinking block and is echoed back in reasoning_content on replay", async () => {
    const rec = recording("deepseek-v4-flash-tool-call.jsonl", "data", "deepseek-v4-flash", true);
    server = await startOpenAIMock([{ events: recordedEvents(rec) }, { events: openaiChatEvents({ text: ["ok"] }) }]);
    // A DeepSeek-compatible server the base URL does not give away, so only the signature can drive the echo.
    const model = testModel("openai-completions", { id: rec.model, provider: "my-proxy", baseUrl: server.baseUrl });
    const first = await collect(streamOpenAICompletions(model, CONTEXT, { apiKey: "k" }));
    const thinking = first.result.content.find((b): b is ThinkingContent => b.type === "thinking");
    expect(thinking?.thinking).toBe("The user asks about the weather in San Francisco. I should use the weather tool.");
    expect(thinking?.thinkingSignature).toBe("reasoning_content");

    await collect(streamOpenAICompletions(model, followUp(first.result), { apiKey: "k" }));
    const assistant = (secondRequestBody().messages as Record<string, unknown>[]).find((m) => m.role === "assistant");
    expect(assistant?.reasoning_content).toBe(thinking?.thinking);
    expect(assistant?.tool_calls).toHaveLength(1);
  });

  it("xAI reasoning tokens counted beside completion_tokens are included in output usage and cost", async () => {
    const rec = recording("xai-grok-3-mini-tool-call.jsonl", "data", "grok-3-mini", true);
    server = await startOpenAIMock([{ events: recordedEvents(rec) }]);
    const model = testModel("openai-completions", { id: rec.model, provider: "xai", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICompletions(model, CONTEXT, { apiKey: "k" }));
    // 513 total = 291 prompt + 26 completion + 196 reasoning: the reasoning is billed output.
    expect(result.usage).toMatchObject({ input: 1, cacheRead: 290, output: 26 + 196, totalTokens: 513 });
    expect(result.usage.cost.output).toBeCloseTo((222 * 15) / 1e6, 12);
  });

  it("reasoning already inside completion_tokens (OpenAI, DeepSeek) is not counted twice", async () => {
    const rec = recording("deepseek-v4-flash-tool-call.jsonl", "data", "deepseek-v4-flash", true);
    server = await startOpenAIMock([{ events: recordedEvents(rec) }]);
    const model = testModel("openai-completions", { id: rec.model, provider: "deepseek", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICompletions(model, CONTEXT, { apiKey: "k" }));
    // 435 total = 374 prompt + 61 completion, of which 17 reasoning.
    expect(result.usage).toMatchObject({ input: 118, cacheRead: 256, output: 61, totalTokens: 435 });
  });
});
