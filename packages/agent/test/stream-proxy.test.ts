/**
 * streamProxy against a real loopback HTTP server speaking pi's proxy wire format (`POST /api/stream`, answer
 * as `data: <stripped event>` lines). Where pi's own streamProxy is right, both are run on the same reply and
 * must rebuild the same message.
 */
import { streamProxy as piStreamProxy } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, AssistantMessageEvent, Context, Usage } from "@tiller/ai";
import { afterEach, describe, expect, it } from "vitest";
import { type MockReply, type MockServer, type SseEvent, startMockServer } from "../../ai/test/helpers/mock-server.js";
import { Agent, type ProxyAssistantMessageEvent, streamProxy } from "../src/index.js";
import { model } from "./helpers/scripted.js";

const usage: Usage = {
  input: 12,
  output: 7,
  cacheRead: 3,
  cacheWrite: 0,
  totalTokens: 22,
  cost: { input: 0.1, output: 0.2, cacheRead: 0.01, cacheWrite: 0, total: 0.31 },
};

const context: Context = { systemPrompt: "be brief", messages: [{ role: "user", content: "hi", timestamp: 1 }] };

const events = (list: ProxyAssistantMessageEvent[]): SseEvent[] => list.map((data) => ({ data }));

const fullAnswer: ProxyAssistantMessageEvent[] = [
  { type: "start" },
  { type: "thinking_start", contentIndex: 0 },
  { type: "thinking_delta", contentIndex: 0, delta: "The user " },
  { type: "thinking_delta", contentIndex: 0, delta: "greets." },
  { type: "thinking_end", contentIndex: 0, contentSignature: "sig-think" },
  { type: "text_start", contentIndex: 1 },
  { type: "text_delta", contentIndex: 1, delta: "Hel" },
  { type: "text_delta", contentIndex: 1, delta: "lo ✓" },
  { type: "text_end", contentIndex: 1, contentSignature: "msg_1" },
  { type: "toolcall_start", contentIndex: 2, id: "call_1", toolName: "read" },
  { type: "toolcall_delta", contentIndex: 2, delta: '{"path":"a.t' },
  { type: "toolcall_delta", contentIndex: 2, delta: 'xt","limit":5}' },
  { type: "toolcall_end", contentIndex: 2 },
  { type: "toolcall_start", contentIndex: 3, id: "call_2", toolName: "ls" },
  { type: "toolcall_delta", contentIndex: 3, delta: "{}" },
  { type: "toolcall_end", contentIndex: 3 },
  { type: "done", reason: "toolUse", usage },
];

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(reply: MockReply | MockReply[]): Promise<MockServer> {
  server = await startMockServer(Array.isArray(reply) ? reply : [reply, reply]);
  return server;
}

async function collect(stream: AsyncIterable<AssistantMessageEvent> & { result(): Promise<AssistantMessage> }) {
  const seen: AssistantMessageEvent[] = [];
  for await (const e of stream) seen.push(e);
  return { events: seen, message: await stream.result() };
}

const withoutTime = (m: AssistantMessage) => ({ ...m, timestamp: 0 });

describe("streamProxy", () => {
  it("rebuilds thinking, text and parallel tool calls exactly as pi's streamProxy does", async () => {
    const s = await serve({ events: events(fullAnswer) });
    const opts = { proxyUrl: s.url, authToken: "tok-1" };
    const ours = await collect(streamProxy(model, context, opts));
    const theirs = await collect(piStreamProxy(model as never, context as never, opts) as never);

    expect(ours.events.map((e) => e.type)).toEqual(fullAnswer.map((e) => e.type));
    expect(ours.message.stopReason).toBe("toolUse");
    expect(ours.message.usage).toEqual(usage);
    expect(ours.message.content).toEqual([
      { type: "thinking", thinking: "The user greets.", thinkingSignature: "sig-think" },
      { type: "text", text: "Hello ✓", textSignature: "msg_1" },
      { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt", limit: 5 } },
      { type: "toolCall", id: "call_2", name: "ls", arguments: {} },
    ]);
    expect(withoutTime(ours.message)).toEqual(withoutTime(theirs.message as AssistantMessage));
    // Partial arguments are visible while the call streams.
    const firstDelta = ours.events.find((e) => e.type === "toolcall_delta");
    expect(firstDelta?.type === "toolcall_delta" && firstDelta.delta).toBe('{"path":"a.t');
    const end = ours.events.find((e) => e.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall.arguments).toEqual({ path: "a.txt", limit: 5 });
  });

  it("posts model, context and only the serializable options, with the bearer token", async () => {
    const s = await serve({ events: events([{ type: "start" }, { type: "done", reason: "stop", usage }]) });
    const controller = new AbortController();
    await collect(
      streamProxy(model, context, {
        proxyUrl: s.url,
        authToken: "secret-token",
        signal: controller.signal,
        temperature: 0.3,
        maxTokens: 99,
        reasoning: "high",
        sessionId: "sess-1",
        headers: { "x-a": "b" },
      }),
    );
    const req = s.requests[0];
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/api/stream");
    expect(req?.headers.authorization).toBe("Bearer secret-token");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.body.model.id).toBe(model.id);
    expect(req?.body.context).toEqual(context);
    expect(req?.body.options).toEqual({
      temperature: 0.3,
      maxTokens: 99,
      reasoning: "high",
      sessionId: "sess-1",
      headers: { "x-a": "b" },
    });
    expect(JSON.stringify(req?.body)).not.toContain("secret-token");
  });

  it("reports the proxy's JSON error message, or the status line when the body is not JSON", async () => {
    const s = await serve([
      { status: 401, json: { error: "token expired" } },
      { status: 502, text: "upstream down" },
    ]);
    const a = await collect(streamProxy(model, context, { proxyUrl: s.url, authToken: "t" }));
    expect(a.events.map((e) => e.type)).toEqual(["error"]);
    expect(a.message.stopReason).toBe("error");
    expect(a.message.errorMessage).toBe("Proxy error: token expired");
    const b = await collect(streamProxy(model, context, { proxyUrl: s.url, authToken: "t" }));
    expect(b.message.errorMessage).toBe("Proxy error: 502 Bad Gateway");
  });

  it("passes a server-side error event through with its message and usage", async () => {
    const s = await serve({
      events: events([
        { type: "start" },
        { type: "text_start", contentIndex: 0 },
        { type: "text_delta", contentIndex: 0, delta: "partial" },
        { type: "error", reason: "error", errorMessage: "rate limited upstream", usage },
      ]),
    });
    const r = await collect(streamProxy(model, context, { proxyUrl: s.url, authToken: "t" }));
    expect(r.events.at(-1)?.type).toBe("error");
    expect(r.message.stopReason).toBe("error");
    expect(r.message.errorMessage).toBe("rate limited upstream");
    expect(r.message.usage).toEqual(usage);
    expect(r.message.content).toEqual([{ type: "text", text: "partial" }]);
  });

  it("ends a cut stream with an error instead of leaving the caller waiting", async () => {
    const s = await serve({ events: events(fullAnswer), cutAfter: 7 });
    const r = await collect(streamProxy(model, context, { proxyUrl: s.url, authToken: "t" }));
    expect(r.events.at(-1)?.type).toBe("error");
    expect(r.message.stopReason).toBe("error");
    expect(r.message.content[1]).toEqual({ type: "text", text: "Hel" });
  });

  it("fails on a delta for a block of another kind, naming it", async () => {
    const s = await serve({
      events: events([
        { type: "start" },
        { type: "text_start", contentIndex: 0 },
        { type: "thinking_delta", contentIndex: 0, delta: "x" },
        { type: "done", reason: "stop", usage },
      ]),
    });
    const r = await collect(streamProxy(model, context, { proxyUrl: s.url, authToken: "t" }));
    expect(r.message.stopReason).toBe("error");
    expect(r.message.errorMessage).toMatch(/thinking_delta.*content 0.*not a thinking block/);
  });

  it("stops on abort with an aborted error and closes the request", async () => {
    const s = await serve({ events: events(fullAnswer), hangAfter: 4 });
    const controller = new AbortController();
    const stream = streamProxy(model, context, { proxyUrl: s.url, authToken: "t", signal: controller.signal });
    const seen: string[] = [];
    const closed = s.clientClosed();
    for await (const e of stream) {
      seen.push(e.type);
      if (e.type === "thinking_delta") controller.abort();
    }
    const message = await stream.result();
    expect(seen.at(-1)).toBe("error");
    expect(message.stopReason).toBe("aborted");
    expect(message.errorMessage).toBe("Request aborted by user");
    await closed;
  });

  it("serves as an Agent's streamFn", async () => {
    const s = await serve({
      events: events([
        { type: "start" },
        { type: "text_start", contentIndex: 0 },
        { type: "text_delta", contentIndex: 0, delta: "from the proxy" },
        { type: "text_end", contentIndex: 0 },
        { type: "done", reason: "stop", usage },
      ]),
    });
    const agent = new Agent({
      initialState: { model },
      streamFn: (m, c, o) => streamProxy(m, c, { ...o, proxyUrl: s.url, authToken: "agent-token" }),
    });
    await agent.prompt("hello");
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.content).toEqual([{ type: "text", text: "from the proxy" }]);
    expect(s.requests[0]?.body.context.messages.at(-1).content).toEqual([{ type: "text", text: "hello" }]);
  });
});
