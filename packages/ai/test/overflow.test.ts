import { describe, expect, it } from "vitest";
import { type AssistantMessage, createEmptyUsage, getOverflowPatterns, isContextOverflow } from "../src/index.js";

function msg(extra: Partial<AssistantMessage>): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "p",
    model: "m",
    usage: createEmptyUsage(),
    stopReason: "error",
    timestamp: 0,
    ...extra,
  };
}

describe("isContextOverflow", () => {
  it.each([
    "prompt is too long: 213462 tokens > 200000 maximum",
    '413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 140000 tokens.",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "Please reduce the length of the messages or completion.",
    "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
    "the request exceeds the available context size, try increasing it",
    "tokens to keep from the initial prompt is greater than the context length",
    "prompt too long; exceeded max context length by 1200 tokens",
    "Your request exceeded model token limit: 262144 (requested: 300000)",
  ])("recognises %s", (text) => {
    expect(isContextOverflow(msg({ errorMessage: text }))).toBe(true);
  });

  it("does not mistake throttling that mentions tokens for overflow", () => {
    expect(
      isContextOverflow(
        msg({ errorMessage: "ThrottlingException: Too many tokens, please wait before trying again." }),
      ),
    ).toBe(false);
    expect(isContextOverflow(msg({ errorMessage: "Rate limit reached on tokens per min (TPM): Limit 30000" }))).toBe(
      false,
    );
    expect(isContextOverflow(msg({ errorMessage: "Invalid API key" }))).toBe(false);
  });

  it("treats HTTP 413 as overflow", () => {
    expect(isContextOverflow(msg({ errorStatus: 413, errorMessage: "413 (no body)" }))).toBe(true);
  });

  it("detects silent overflow from usage when the window is known", () => {
    const usage = { ...createEmptyUsage(), input: 120_000, cacheRead: 10_000, output: 50 };
    const ok = msg({ stopReason: "stop", usage });
    expect(isContextOverflow(ok, 128_000)).toBe(true);
    expect(isContextOverflow(ok, 200_000)).toBe(false);
    expect(isContextOverflow(ok)).toBe(false);
  });

  it("detects a length stop with no output and a full window", () => {
    const usage = { ...createEmptyUsage(), input: 127_900, output: 0 };
    expect(isContextOverflow(msg({ stopReason: "length", usage }), 128_000)).toBe(true);
    expect(isContextOverflow(msg({ stopReason: "length", usage: { ...usage, output: 10 } }), 128_000)).toBe(false);
  });

  it("exposes its patterns", () => {
    expect(getOverflowPatterns().length).toBeGreaterThan(10);
  });
});
