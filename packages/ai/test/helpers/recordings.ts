/**
 * The recorded vendor streams each provider's conformance suite replays, with what the final message must
 * hold. Files and their origin: `fixtures/recorded/SOURCES.md` (all captured by the Vercel AI SDK project,
 * github.com/vercel/ai, from the real APIs).
 */
import { expect } from "vitest";
import { classifyError } from "../../src/classify-error.js";
import type { AssistantMessage, TextContent, ThinkingContent, ToolCall } from "../../src/types.js";
import type { Recording } from "./recorded-streams.js";

const blocks = <T extends AssistantMessage["content"][number]["type"]>(m: AssistantMessage, type: T) =>
  m.content.filter((b) => b.type === type) as Extract<AssistantMessage["content"][number], { type: T }>[];

export const anthropicRecordings: Recording[] = [
  {
    file: "anthropic-tool-no-args.jsonl",
    source: "vercel/ai packages/anthropic/src/__fixtures__/anthropic-tool-no-args.chunks.txt",
    framing: "typed",
    model: "claude-sonnet-4-5-20250929",
    check: (m) => {
      expect(m.stopReason).toBe("toolUse");
      expect(blocks(m, "text").map((b: TextContent) => b.text)).toEqual(["I'll update the issue list for you."]);
      const [call] = blocks(m, "toolCall") as ToolCall[];
      expect(call).toMatchObject({ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {} });
      expect(m.usage).toMatchObject({ input: 565, output: 48, cacheRead: 0, cacheWrite: 0 });
      expect(m.responseId).toBe("msg_01GE2RKp1VYsPzdFs3sS9z5S");
    },
  },
];

export const openaiResponsesRecordings: Recording[] = [
  {
    file: "openai-responses-phase.jsonl",
    source: "vercel/ai packages/openai/src/responses/__fixtures__/openai-phase.1.chunks.txt",
    framing: "typed",
    model: "gpt-5.3-codex",
    check: (m) => {
      expect(m.stopReason).toBe("stop");
      expect(blocks(m, "text").map((b: TextContent) => b.text)).toEqual([
        "I'm going to search for that",
        "The capital of France is Paris.",
      ]);
      expect(m.usage).toMatchObject({ input: 50, output: 100, cacheRead: 0 });
      expect(m.responseId).toBe("resp_phase_001");
    },
  },
  {
    file: "openai-responses-quota-error.jsonl",
    source: "vercel/ai packages/openai/src/responses/__fixtures__/openai-error.1.chunks.txt",
    framing: "typed",
    model: "gpt-5-nano-2025-08-07",
    check: (m) => {
      expect(m.stopReason).toBe("error");
      expect(m.errorMessage).toContain("You exceeded your current quota");
      expect(classifyError(m)).toMatchObject({ class: "quota", retryable: false });
    },
  },
];

const weather = (m: AssistantMessage): ToolCall => {
  const calls = blocks(m, "toolCall") as ToolCall[];
  expect(calls).toHaveLength(1);
  expect(calls[0]).toMatchObject({ name: "weather", arguments: { location: "San Francisco" } });
  return calls[0] as ToolCall;
};

export const openaiCompletionsRecordings: Recording[] = [
  {
    file: "deepseek-v4-flash-tool-call.jsonl",
    source: "vercel/ai packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt",
    framing: "data",
    done: true,
    model: "deepseek-v4-flash",
    check: (m) => {
      expect(m.stopReason).toBe("toolUse");
      const [thinking] = blocks(m, "thinking") as ThinkingContent[];
      expect(thinking?.thinking).toBe(
        "The user asks about the weather in San Francisco. I should use the weather tool.",
      );
      expect(weather(m).id).toBe("call_00_IhCAliIHtM9gKpgfqbBV9873");
      // Thinking closes before the tool call opens; no empty text block from the final `content: ""`.
      expect(m.content.map((b) => b.type)).toEqual(["thinking", "toolCall"]);
      expect(m.usage).toMatchObject({ input: 118, cacheRead: 256, output: 61, totalTokens: 435 });
    },
  },
  {
    file: "xai-grok-3-mini-tool-call.jsonl",
    source: "vercel/ai packages/xai/src/__fixtures__/xai-tool-call.chunks.txt",
    framing: "data",
    done: true,
    model: "grok-3-mini",
    check: (m) => {
      expect(m.stopReason).toBe("toolUse");
      expect((blocks(m, "thinking") as ThinkingContent[])[0]?.thinking).toBe("First, the user is");
      expect(weather(m).id).toBe("call_55117580");
      expect(m.usage).toMatchObject({ input: 1, cacheRead: 290, output: 222, totalTokens: 513 });
    },
  },
];

export const googleRecordings: Recording[] = [
  {
    file: "gemini-3-pro-tool-call.jsonl",
    source: "vercel/ai packages/google/src/__fixtures__/google-tool-call-gemini3.chunks.txt",
    framing: "data",
    model: "gemini-3-pro-preview",
    check: (m) => {
      expect(m.stopReason).toBe("toolUse");
      const call = weather(m);
      expect(call.thoughtSignature).toMatch(/^EpEgCo4gAb4\+9vvW/);
      expect(blocks(m, "text")).toEqual([]);
      expect(m.usage).toMatchObject({ input: 29, output: 15 + 804, totalTokens: 848 });
      expect(m.responseId).toBe("QHiLaa6LBrb8vdIPoNztsAg");
    },
  },
];
