/**
 * pi-ai's per-provider entry points and option forms, exported from @tiller/ai's index, reach the wire the
 * way pi-ai sends them (checked against loopback servers speaking each vendor's protocol).
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  findEnvKeys,
  type Static,
  StringEnum,
  streamAnthropic,
  streamGoogle,
  streamOpenAICompletions,
  streamOpenAIResponses,
  streamSimpleAnthropic,
  Type,
  validateToolArguments,
} from "../src/index.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { type MockServer, startAnthropicMock, startGeminiMock, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT } from "./helpers/provider-conformance.js";
import { anthropicEvents, geminiEvents, openaiChatEvents, openaiResponsesEvents } from "./helpers/vendor-events.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("per-provider stream functions from the index", () => {
  it("each streams from its own provider, loading it on first use", async () => {
    server = await startAnthropicMock(() => ({ events: anthropicEvents({ text: ["from ", "claude"] }) }));
    const claude = testModel("anthropic-messages", { provider: "anthropic", baseUrl: server.baseUrl });
    const first = await collect(streamAnthropic(claude, CONTEXT, { apiKey: "k" }));
    const second = await collect(streamSimpleAnthropic(claude, CONTEXT, { apiKey: "k" }));
    expect([textOfMessage(first.result), textOfMessage(second.result)]).toEqual(["from claude", "from claude"]);
    await server.close();

    server = await startOpenAIMock(() => ({ events: openaiChatEvents({ text: ["chat"] }) }));
    const chat = testModel("openai-completions", { provider: "openai", baseUrl: server.baseUrl });
    expect(textOfMessage((await collect(streamOpenAICompletions(chat, CONTEXT, { apiKey: "k" }))).result)).toBe("chat");
  });

  it("a failure is an error event, never a throw", async () => {
    const claude = testModel("anthropic-messages", { provider: "anthropic", baseUrl: "http://127.0.0.1:9" });
    const { result } = await collect(streamAnthropic(claude, CONTEXT, { apiKey: "k" }));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBeTruthy();
  });
});

describe("pi-ai's Anthropic options", () => {
  it("thinkingEnabled: budget thinking with display on older models, adaptive with effort on 4.6+", async () => {
    server = await startAnthropicMock(() => ({ events: anthropicEvents({ text: ["ok"] }) }));
    const old = testModel("anthropic-messages", { id: "claude-sonnet-4-5", baseUrl: server.baseUrl, maxTokens: 64000 });
    await collect(
      streamAnthropic(old, CONTEXT, {
        apiKey: "k",
        thinkingEnabled: true,
        thinkingBudgetTokens: 4096,
        temperature: 0.3,
        interleavedThinking: true,
      }),
    );
    const adaptive = testModel("anthropic-messages", { id: "claude-opus-4-7", baseUrl: server.baseUrl });
    await collect(streamAnthropic(adaptive, CONTEXT, { apiKey: "k", thinkingEnabled: true, effort: "xhigh" }));
    await collect(streamAnthropic(adaptive, CONTEXT, { apiKey: "k", thinkingEnabled: false }));
    const [a, b, c] = server.requests;
    expect(a?.body.thinking).toEqual({ type: "enabled", budget_tokens: 4096, display: "summarized" });
    expect(a?.body.temperature).toBeUndefined();
    expect(a?.headers["anthropic-beta"]).toContain("interleaved-thinking-2025-05-14");
    expect(b?.body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(b?.body.output_config).toEqual({ effort: "xhigh" });
    expect(c?.body.thinking).toEqual({ type: "disabled" });
  });
});

describe("pi-ai's Anthropic client option", () => {
  it("uses a ready client (here pi-ai's own SDK copy) instead of building one", async () => {
    server = await startAnthropicMock(() => ({ events: anthropicEvents({ text: ["via client"] }) }));
    // pi-ai's dependency (the hoisted copy, an older SDK major than Tiller's), as a pi user would construct it.
    const piSdk = new URL("../../../node_modules/@anthropic-ai/sdk/index.mjs", import.meta.url).href;
    const { default: Anthropic } = (await import(piSdk)) as typeof import("@anthropic-ai/sdk");
    const client = new Anthropic({ apiKey: "client-key", baseURL: server.baseUrl, maxRetries: 0 });
    // The model points nowhere and no key is given: only the client can reach the server.
    const claude = testModel("anthropic-messages", { provider: "anthropic", baseUrl: "http://127.0.0.1:9" });
    const { result } = await collect(streamAnthropic(claude, CONTEXT, { client }));
    expect(textOfMessage(result)).toBe("via client");
    expect(server.requests[0]?.headers["x-api-key"]).toBe("client-key");
    expect(server.requests[0]?.headers["user-agent"]).toMatch(/^Anthropic\/JS 0\./);
  });
});

describe("pi-ai's Google thinking settings", () => {
  it("sends the level name, the budget, or the off settings", async () => {
    server = await startGeminiMock(() => ({ events: geminiEvents({ text: ["ok"] }) }));
    const gemini = testModel("google-generative-ai", { id: "gemini-2.5-flash", baseUrl: server.baseUrl });
    await collect(streamGoogle(gemini, CONTEXT, { apiKey: "k", thinking: { enabled: true, level: "LOW" } }));
    await collect(streamGoogle(gemini, CONTEXT, { apiKey: "k", thinking: { enabled: true, budgetTokens: 2000 } }));
    await collect(streamGoogle(gemini, CONTEXT, { apiKey: "k", thinking: { enabled: false } }));
    const configs = server.requests.map((r) => r.body.generationConfig?.thinkingConfig);
    expect(configs).toEqual([
      { includeThoughts: true, thinkingLevel: "LOW" },
      { includeThoughts: true, thinkingBudget: 2000 },
      { thinkingBudget: 0 },
    ]);
  });
});

describe("pi-ai's OpenAI Responses options", () => {
  it("sends service_tier and reasoning summary, and prices the tier the response reports", async () => {
    server = await startOpenAIMock(() => ({
      events: openaiResponsesEvents({ text: ["ok"], usage: { input: 1_000_000, output: 0 } }),
    }));
    const gpt = testModel("openai-responses", { id: "gpt-5", baseUrl: server.baseUrl });
    const plain = await collect(streamOpenAIResponses(gpt, CONTEXT, { apiKey: "k" }));
    const flex = await collect(
      streamOpenAIResponses(gpt, CONTEXT, { apiKey: "k", serviceTier: "flex", reasoningSummary: "detailed" }),
    );
    const body = server.requests[1]?.body;
    expect(body.service_tier).toBe("flex");
    expect(body.reasoning).toEqual({ effort: "medium", summary: "detailed" });
    expect(plain.result.usage.cost.input).toBeCloseTo(3);
    expect(flex.result.usage.cost.input).toBeCloseTo(1.5);
    expect(flex.result.usage.cost.total).toBeCloseTo(1.5);
  });
});

describe("StringEnum and findEnvKeys", () => {
  it("StringEnum is a plain string enum that validates and types as the union", () => {
    const op = StringEnum(["add", "sub"] as const, { description: "operation", default: "add" });
    expect(JSON.parse(JSON.stringify(op))).toEqual({
      type: "string",
      enum: ["add", "sub"],
      description: "operation",
      default: "add",
    });
    const schema = Type.Object({ op });
    const value: Static<typeof schema> = { op: "sub" };
    const tool = { name: "calc", description: "", parameters: schema };
    expect(validateToolArguments(tool, { type: "toolCall", id: "1", name: "calc", arguments: value })).toEqual(value);
    expect(() =>
      validateToolArguments(tool, { type: "toolCall", id: "1", name: "calc", arguments: { op: "mul" } }),
    ).toThrow(/op: Expected union value/);
  });

  it("findEnvKeys lists the set variables in reading order, or undefined", () => {
    const saved = { ...process.env };
    try {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_OAUTH_TOKEN;
      expect(findEnvKeys("anthropic")).toBeUndefined();
      process.env.ANTHROPIC_OAUTH_TOKEN = "t";
      process.env.ANTHROPIC_API_KEY = "k";
      expect(findEnvKeys("anthropic")).toEqual(["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"]);
      process.env.HF_TOKEN = "h";
      expect(findEnvKeys("huggingface")).toEqual(["HF_TOKEN"]);
    } finally {
      process.env = saved;
    }
  });
});
