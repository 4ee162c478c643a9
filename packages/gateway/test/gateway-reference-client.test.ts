// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * What a client written for the reference gateway (openclaw tui, the control UI) needs, against a real gateway
 * process: sessions.describe; session rows with model, provider and token fields; `/status` answered by the
 * gateway itself; `sessions.messages.subscribe` with the `session-scoped-events` cap; chat deltas carrying v4's
 * `deltaText`; the lifecycle `model` and `finishing` phases and the `usage` stream.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  type MockGateway,
  startMockGateway,
  until,
} from "./gateway-harness.js";

let mock: MockServer;
let gw: GatewayProc;
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ mock, gw } = started);
});

afterAll(() => started?.stop());

const run = (client: any, sessionKey: string, message: string) =>
  client.request("agent", { message, idempotencyKey: randomUUID(), sessionKey }, { expectFinal: true });

describe("sessions as the reference's clients read them", () => {
  it("sessions.describe returns the row with model, provider and tokens; null for an unknown key", async () => {
    const { client } = await connectClient(gw.url);
    const s = `ref-${randomUUID().slice(0, 8)}`;
    await run(client, s, "hello");
    const d: any = await client.request("sessions.describe", { key: s });
    expect(d.session).toMatchObject({
      key: `agent:main:${s}`,
      modelProvider: "mock",
      model: "mock-1",
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      contextTokens: 128_000,
    });
    expect(await client.request("sessions.describe", { key: "never-used" })).toEqual({ session: null });
    // The rows of sessions.list carry the same fields, and the list names the defaults.
    const list: any = await client.request("sessions.list", {});
    expect(list.defaults).toMatchObject({ modelProvider: "mock", model: "mock-1", contextTokens: 128_000 });
    expect(list.sessions.find((r: any) => r.key === `agent:main:${s}`)).toMatchObject({
      model: "mock-1",
      totalTokens: 15,
    });
    // A session patched onto another model reports that one.
    await client.request("sessions.patch", { key: s, model: "mock/mock-small" });
    expect(((await client.request("sessions.describe", { key: s })) as any).session).toMatchObject({
      model: "mock-small",
      modelOverride: "mock/mock-small",
      contextTokens: 4000,
    });
    await client.close();
  });

  it("/status sent with chat.send is answered by the gateway (no model call), as a chat final", async () => {
    const { client, events } = await connectClient(gw.url);
    const s = `status-${randomUUID().slice(0, 8)}`;
    await run(client, s, "first");
    const calls = mock.requests.length;
    const runId = randomUUID();
    const end: any = await client.request(
      "chat.send",
      { sessionKey: s, message: "/status", idempotencyKey: runId },
      { expectFinal: true },
    );
    expect(end).toMatchObject({ runId, status: "ok" });
    expect(mock.requests.length).toBe(calls);
    await until(
      () => events.some((e) => e.event === "chat" && (e.payload as any).runId === runId),
      10_000,
      "chat final",
    );
    const final = events.find((e) => e.event === "chat" && (e.payload as any).runId === runId)?.payload as any;
    expect(final.state).toBe("final");
    const text = final.message.content[0].text as string;
    expect(text).toContain(`Session: agent:main:${s}`);
    expect(text).toContain("Model: mock/mock-1");
    expect(text).toMatch(/Tokens: 10 in \/ 5 out · context 15\/128k/);
    await client.close();
  });
});

describe("events as the reference's clients read them", () => {
  it("a run has start, model, finishing and end phases, a usage event, and chat deltas with deltaText", async () => {
    const { client, events } = await connectClient(gw.url);
    const s = `ev-${randomUUID().slice(0, 8)}`;
    const runId = randomUUID();
    await client.request(
      "agent",
      { message: "[slow:6:60]", idempotencyKey: runId, sessionKey: s },
      { expectFinal: true },
    );
    const ev = agentEvents(events, runId);
    expect(ev.filter((e) => e.stream === "lifecycle").map((e) => e.data.phase)).toEqual([
      "start",
      "model",
      "finishing",
      "end",
    ]);
    expect(ev.find((e) => e.data.phase === "model")?.data).toMatchObject({ provider: "mock", model: "mock-1" });
    const usage = ev.filter((e) => e.stream === "usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]?.data).toMatchObject({ input: 10, output: 5, total: 15, provider: "mock", model: "mock-1" });
    // chat deltas: the cumulative text and, in deltaText, only what is new since the previous chat delta.
    const chats = events
      .filter((e) => e.event === "chat" && (e.payload as any).runId === runId)
      .map((e) => e.payload as any);
    const deltas = chats.filter((c) => c.state === "delta");
    expect(deltas.length).toBeGreaterThan(1);
    let rebuilt = "";
    for (const d of deltas) {
      rebuilt += d.deltaText;
      expect(d.message.content[0].text).toBe(rebuilt);
    }
    expect(chats.at(-1)).toMatchObject({ state: "final" });
    expect(chats.at(-1).message.content[0].text).toBe(rebuilt);
    await client.close();
  });

  it("with session-scoped-events a connection gets only the sessions it subscribed to or sent to", async () => {
    const a = `scoped-a-${randomUUID().slice(0, 8)}`;
    const b = `scoped-b-${randomUUID().slice(0, 8)}`;
    const scoped = await connectClient(gw.url, { caps: ["session-scoped-events"] });
    const plain = await connectClient(gw.url);
    expect((scoped.client.hello as any).features.methods as string[]).toEqual(
      expect.arrayContaining(["sessions.describe", "sessions.messages.subscribe", "sessions.messages.unsubscribe"]),
    );
    // Reading session b (chat.history) subscribes a plain client, not a scoped one.
    await scoped.client.request("chat.history", { sessionKey: b });
    await plain.client.request("chat.history", { sessionKey: b });
    expect(await scoped.client.request("sessions.messages.subscribe", { key: a })).toMatchObject({
      subscribed: `agent:main:${a}`,
    });
    const other = await connectClient(gw.url);
    const runA = randomUUID();
    const runB = randomUUID();
    await other.client.request(
      "agent",
      { message: "to a", idempotencyKey: runA, sessionKey: a },
      { expectFinal: true },
    );
    await other.client.request(
      "agent",
      { message: "to b", idempotencyKey: runB, sessionKey: b },
      { expectFinal: true },
    );
    await until(() => agentEvents(scoped.events, runA).some((e) => e.data.phase === "end"), 10_000, "a's end");
    await until(() => agentEvents(plain.events, runB).some((e) => e.data.phase === "end"), 10_000, "b's end on plain");
    expect(agentEvents(scoped.events, runB)).toEqual([]);
    // Unsubscribed: the next run of a is not delivered.
    await scoped.client.request("sessions.messages.unsubscribe", { key: a });
    const runA2 = randomUUID();
    await other.client.request(
      "agent",
      { message: "to a again", idempotencyKey: runA2, sessionKey: a },
      { expectFinal: true },
    );
    await plain.client.request("sessions.messages.subscribe", { key: a });
    const runA3 = randomUUID();
    await other.client.request(
      "agent",
      { message: "and again", idempotencyKey: runA3, sessionKey: a },
      { expectFinal: true },
    );
    await until(() => agentEvents(plain.events, runA3).some((e) => e.data.phase === "end"), 10_000, "a3 on plain");
    expect(agentEvents(scoped.events, runA2)).toEqual([]);
    expect(agentEvents(scoped.events, runA3)).toEqual([]);
    for (const c of [scoped, plain, other]) await c.client.close();
  });
});
