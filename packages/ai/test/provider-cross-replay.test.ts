import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropic } from "../src/providers/anthropic.js";
import { streamGoogle } from "../src/providers/google.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import type { Context, Message, ToolCall } from "../src/types.js";
import { collect, testModel } from "./helpers/collect.js";
import { type MockServer, startAnthropicMock, startGeminiMock, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT } from "./helpers/provider-conformance.js";
import { anthropicEvents, geminiEvents, openaiChatEvents, openaiResponsesEvents } from "./helpers/vendor-events.js";

describe("cross-provider replay: an Anthropic conversation with thinking and tool calls continued elsewhere", () => {
  const servers: MockServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers.length = 0;
  });

  async function anthropicTurn(): Promise<Context> {
    const server = await startAnthropicMock([
      {
        events: anthropicEvents({
          thinking: ["Both files ", "are needed."],
          signature: "claude-signature",
          text: ["Reading both."],
          toolCalls: [
            { id: "toolu_01A", name: "read", args: ['{"path":"a.txt"}'] },
            { id: "toolu_01B", name: "read", args: ['{"path":"b.txt"}'] },
          ],
          finish: "tool",
        }),
      },
    ]);
    servers.push(server);
    const claude = testModel("anthropic-messages", {
      id: "claude-sonnet",
      provider: "anthropic",
      baseUrl: server.baseUrl,
    });
    const { result } = await collect(streamAnthropic(claude, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("toolUse");
    const calls = result.content.filter((b): b is ToolCall => b.type === "toolCall");
    const messages: Message[] = [
      ...CONTEXT.messages,
      result,
      {
        role: "toolResult",
        toolCallId: calls[0]!.id,
        toolName: "read",
        content: [{ type: "text", text: "AAA" }],
        isError: false,
        timestamp: 3,
      },
      {
        role: "toolResult",
        toolCallId: calls[1]!.id,
        toolName: "read",
        content: [{ type: "text", text: "BBB" }],
        isError: false,
        timestamp: 4,
      },
      { role: "user", content: "Summarise.", timestamp: 5 },
    ];
    return { ...CONTEXT, messages };
  }

  it("on OpenAI chat completions: thinking becomes assistant text, calls and results keep their ids", async () => {
    const context = await anthropicTurn();
    const server = await startOpenAIMock([{ events: openaiChatEvents({ text: ["Summary"] }) }]);
    servers.push(server);
    const gpt = testModel("openai-completions", { id: "gpt-5", provider: "openai", baseUrl: server.baseUrl });
    const { result } = await collect(streamOpenAICompletions(gpt, context, { apiKey: "k" }));
    expect(result.stopReason).toBe("stop");
    const sent = server.requests[0]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual([
      "developer",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
    ]);
    expect(sent[2].content).toBe("Both files are needed.\n\nReading both.");
    expect(sent[2].reasoning_content).toBeUndefined();
    expect(sent[2].tool_calls).toEqual([
      { id: "toolu_01A", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } },
      { id: "toolu_01B", type: "function", function: { name: "read", arguments: '{"path":"b.txt"}' } },
    ]);
    expect(sent[3]).toEqual({ role: "tool", tool_call_id: "toolu_01A", content: "AAA" });
    expect(sent[4]).toEqual({ role: "tool", tool_call_id: "toolu_01B", content: "BBB" });
    expect(JSON.stringify(sent)).not.toContain("claude-signature");
  });

  it("on OpenAI Responses: plain assistant text, function_call items without foreign item ids, outputs", async () => {
    const context = await anthropicTurn();
    const server = await startOpenAIMock([{ events: openaiResponsesEvents({ text: ["Summary"] }) }]);
    servers.push(server);
    const gpt = testModel("openai-responses", { id: "gpt-5", provider: "openai", baseUrl: server.baseUrl });
    await collect(streamOpenAIResponses(gpt, context, { apiKey: "k" }));
    const input = server.requests[0]!.body.input;
    expect(input.slice(2)).toEqual([
      { role: "assistant", content: "Both files are needed.\n\nReading both." },
      { type: "function_call", call_id: "toolu_01A", name: "read", arguments: '{"path":"a.txt"}' },
      { type: "function_call", call_id: "toolu_01B", name: "read", arguments: '{"path":"b.txt"}' },
      { type: "function_call_output", call_id: "toolu_01A", output: "AAA" },
      { type: "function_call_output", call_id: "toolu_01B", output: "BBB" },
      { role: "user", content: [{ type: "input_text", text: "Summarise." }] },
    ]);
  });

  it("on Gemini: thinking as plain text parts, function calls, and both responses in one user turn", async () => {
    const context = await anthropicTurn();
    const server = await startGeminiMock([{ events: geminiEvents({ text: ["Summary"] }) }]);
    servers.push(server);
    const gemini = testModel("google-generative-ai", { id: "gemini-2.5-pro", provider: "google", baseUrl: server.url });
    await collect(streamGoogle(gemini, context, { apiKey: "k" }));
    const contents = server.requests[0]!.body.contents;
    expect(contents.map((c: { role: string }) => c.role)).toEqual(["user", "model", "user"]);
    expect(contents[1].parts).toEqual([
      { text: "Both files are needed." },
      { text: "Reading both." },
      { functionCall: { name: "read", args: { path: "a.txt" } } },
      { functionCall: { name: "read", args: { path: "b.txt" } } },
    ]);
    expect(contents[2].parts).toEqual([
      { functionResponse: { name: "read", response: { output: "AAA" } } },
      { functionResponse: { name: "read", response: { output: "BBB" } } },
      { text: "Summarise." },
    ]);
  });

  it("back on the same Anthropic model: the signed thinking block is replayed as thinking", async () => {
    const context = await anthropicTurn();
    const server = await startAnthropicMock([{ events: anthropicEvents({ text: ["Summary"] }) }]);
    servers.push(server);
    const claude = testModel("anthropic-messages", {
      id: "claude-sonnet",
      provider: "anthropic",
      baseUrl: server.baseUrl,
    });
    await collect(streamAnthropic(claude, context, { apiKey: "k", cacheRetention: "none" }));
    const sent = server.requests[0]!.body.messages;
    expect(sent[1].content[0]).toEqual({
      type: "thinking",
      thinking: "Both files are needed.",
      signature: "claude-signature",
    });
    expect(sent[2].content.map((b: { type: string }) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
  });
});
