import { describe, expect, it } from "vitest";
import { IMAGE_OMITTED_NOTE, NO_RESULT_PROVIDED, sanitizeId, transformMessages } from "../src/transform-messages.js";
import type { AssistantMessage, Message, ToolResultMessage } from "../src/types.js";
import { testModel } from "./helpers/collect.js";

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const fromClaude = (content: AssistantMessage["content"], extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-x",
  usage,
  stopReason: "toolUse",
  timestamp: 1,
  ...extra,
});
const result = (id: string, text = "ok"): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "read",
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 2,
});
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 0 });
const claude = testModel("anthropic-messages", { id: "claude-x", provider: "anthropic" });
const gpt = testModel("openai-completions", { id: "gpt-x", provider: "openai" });

describe("transformMessages", () => {
  it("keeps thinking for the same model and turns it into text (dropping redacted) for another model", () => {
    const msgs: Message[] = [
      user("hi"),
      fromClaude(
        [
          { type: "thinking", thinking: "secret plan", thinkingSignature: "sig" },
          { type: "thinking", thinking: "[Reasoning redacted]", thinkingSignature: "enc", redacted: true },
          { type: "text", text: "Hello" },
        ],
        { stopReason: "stop" },
      ),
    ];
    expect(transformMessages(msgs, claude)[1]).toBe(msgs[1]);
    const forGpt = transformMessages(msgs, gpt)[1] as AssistantMessage;
    expect(forGpt.content).toEqual([
      { type: "text", text: "secret plan" },
      { type: "text", text: "Hello" },
    ]);
  });

  it("skips errored and aborted assistant turns together with the results of their calls", () => {
    const msgs: Message[] = [
      user("go"),
      fromClaude([{ type: "toolCall", id: "t1", name: "read", arguments: {} }], {
        stopReason: "error",
        errorMessage: "boom",
      }),
      result("t1"),
      fromClaude([{ type: "text", text: "half" }], { stopReason: "aborted" }),
      user("again"),
    ];
    const out = transformMessages(msgs, gpt);
    expect(out.map((m) => m.role)).toEqual(["user", "user"]);
  });

  it("adds a synthetic error result for tool calls left without one, mid-conversation and at the end", () => {
    const msgs: Message[] = [
      user("go"),
      fromClaude([
        { type: "toolCall", id: "a", name: "read", arguments: {} },
        { type: "toolCall", id: "b", name: "read", arguments: {} },
      ]),
      result("a"),
      user("stop that"),
      fromClaude([{ type: "toolCall", id: "c", name: "read", arguments: {} }]),
    ];
    const out = transformMessages(msgs, claude);
    expect(out.map((m) => (m.role === "toolResult" ? `result:${m.toolCallId}:${m.isError}` : m.role))).toEqual([
      "user",
      "assistant",
      "result:a:false",
      "result:b:true",
      "user",
      "assistant",
      "result:c:true",
    ]);
    const synthetic = out[3] as ToolResultMessage;
    expect(synthetic.content).toEqual([{ type: "text", text: NO_RESULT_PROVIDED }]);
  });

  it("rewrites tool-call ids consistently in calls and results without touching the input", () => {
    const msgs: Message[] = [
      user("go"),
      fromClaude([{ type: "toolCall", id: "call|weird id!", name: "read", arguments: { p: 1 } }]),
      result("call|weird id!"),
    ];
    const snapshot = JSON.stringify(msgs);
    const out = transformMessages(msgs, gpt, (id) => sanitizeId(id, /[^a-zA-Z0-9_-]/g, 40));
    const call = (out[1] as AssistantMessage).content[0] as { id: string };
    expect(call.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect((out[2] as ToolResultMessage).toolCallId).toBe(call.id);
    expect(JSON.stringify(msgs)).toBe(snapshot);
  });

  it("replaces images with a note for text-only models, in user messages and tool results", () => {
    const img = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    const msgs: Message[] = [
      { role: "user", content: [{ type: "text", text: "see" }, img], timestamp: 0 },
      fromClaude([{ type: "toolCall", id: "a", name: "shot", arguments: {} }]),
      { ...result("a"), content: [img] },
    ];
    const textOnly = testModel("openai-completions", { input: ["text"] });
    const out = transformMessages(msgs, textOnly);
    expect((out[0] as { content: unknown[] }).content[1]).toEqual({ type: "text", text: IMAGE_OMITTED_NOTE });
    expect((out[2] as ToolResultMessage).content).toEqual([{ type: "text", text: IMAGE_OMITTED_NOTE }]);
    const vision = transformMessages(msgs, gpt);
    expect(vision[0]).toBe(msgs[0]);
  });

  it("sanitizeId keeps distinct long ids distinct and within the limit", () => {
    const a = sanitizeId(`call_${"x".repeat(100)}a`, /[^a-zA-Z0-9_-]/g, 64);
    const b = sanitizeId(`call_${"x".repeat(100)}b`, /[^a-zA-Z0-9_-]/g, 64);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
    expect(sanitizeId("ok_id-1", /[^a-zA-Z0-9_-]/g, 64)).toBe("ok_id-1");
  });
});
