/** pi-ai's chat-completions compat flags reach the wire (loopback server speaking chat.completion.chunk). */
import { afterEach, describe, expect, it } from "vitest";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import type { AssistantMessage, Context, Model } from "../src/types.js";
import { collect, testModel } from "./helpers/collect.js";
import { type MockServer, startOpenAIMock } from "./helpers/mock-server.js";
import { openaiChatEvents } from "./helpers/vendor-events.js";

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [{ name: "read", description: "Read", parameters: { type: "object", properties: {} } as never }];
const context: Context = {
  systemPrompt: "Be brief.",
  messages: [{ role: "user", content: "hi", timestamp: 1 }],
  tools,
};

async function requestFor(compat: Model<"openai-completions">["compat"], options = {}, ctx = context) {
  server = await startOpenAIMock(() => ({ events: openaiChatEvents({ text: ["ok"] }) }));
  const model = testModel("openai-completions", { provider: "custom", baseUrl: server.baseUrl, compat });
  const { result } = await collect(streamOpenAICompletions(model, ctx, { apiKey: "k", ...options }));
  expect(result.stopReason).toBe("stop");
  const request = server.requests[0];
  await server.close();
  server = undefined;
  return request as NonNullable<typeof request>;
}

describe("chat-completions compat flags", () => {
  it("sends OpenRouter and Vercel AI Gateway routing, and z.ai tool streaming", async () => {
    const a = await requestFor({ openRouterRouting: { only: ["anthropic"], allow_fallbacks: false } });
    expect(a.body.provider).toEqual({ only: ["anthropic"], allow_fallbacks: false });
    const b = await requestFor({ vercelGatewayRouting: { order: ["bedrock", "anthropic"] } });
    expect(b.body.providerOptions).toEqual({ gateway: { order: ["bedrock", "anthropic"] } });
    const c = await requestFor({ zaiToolStream: true });
    expect(c.body.tool_stream).toBe(true);
  });

  it("qwen-chat-template switches thinking through chat_template_kwargs", async () => {
    const on = await requestFor({ thinkingFormat: "qwen-chat-template" }, { reasoningEffort: "high" });
    expect(on.body.chat_template_kwargs).toEqual({ enable_thinking: true, preserve_thinking: true });
    const off = await requestFor({ thinkingFormat: "qwen-chat-template" }, { reasoningEffort: "off" });
    expect(off.body.chat_template_kwargs).toEqual({ enable_thinking: false, preserve_thinking: true });
  });

  it("marks the system prompt and last user message for Anthropic-style caching", async () => {
    const r = await requestFor(
      { cacheControlFormat: "anthropic", supportsLongCacheRetention: true },
      {
        cacheRetention: "long",
      },
    );
    const messages = r.body.messages as { role: string; content: unknown }[];
    expect(messages[0]?.content).toEqual([
      { type: "text", text: "Be brief.", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect(messages[1]?.content).toEqual([
      { type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    const none = await requestFor({ cacheControlFormat: "anthropic" }, { cacheRetention: "none" });
    expect(JSON.stringify(none.body.messages)).not.toContain("cache_control");
  });

  it("sends session affinity headers and long cache retention when enabled", async () => {
    const r = await requestFor(
      { sendSessionAffinityHeaders: true, supportsLongCacheRetention: true },
      { sessionId: "sess-1", cacheRetention: "long" },
    );
    expect(r.headers.session_id).toBe("sess-1");
    expect(r.headers["x-session-affinity"]).toBe("sess-1");
    expect(r.body.prompt_cache_key).toBe("sess-1");
    expect(r.body.prompt_cache_retention).toBe("24h");
    const plain = await requestFor({}, { sessionId: "sess-1" });
    expect(plain.headers.session_id).toBeUndefined();
  });

  it("requiresReasoningContentOnAssistantMessages sends an empty reasoning_content on turns without reasoning", async () => {
    const earlier: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: "hello" }],
      api: "openai-completions",
      provider: "custom",
      model: "test-model",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: 2,
    };
    const ctx: Context = { messages: [...context.messages, earlier, { role: "user", content: "again", timestamp: 3 }] };
    const r = await requestFor({ requiresReasoningContentOnAssistantMessages: true }, {}, ctx);
    const assistant = (r.body.messages as Record<string, unknown>[]).find((m) => m.role === "assistant");
    expect(assistant?.reasoning_content).toBe("");
  });
});
