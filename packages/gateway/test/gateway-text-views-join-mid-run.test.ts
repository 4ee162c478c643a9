// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * A run builds the cumulative copies of its text (the `snapshots` view's `assistant` `text`, the chat deltas'
 * `message`) only while a connection that reads them follows its session. So a run started by a delta-only
 * client has none, and clients that connect in the middle of it — a v4 chat client (the reference TUI's view) and
 * a protocol-3 client (snapshots) — must still get them whole from their first event on: each snapshot is the
 * text from the run's start up to that point, the chat deltas' `deltaText` rebuild the `message` they carry, and
 * the final is the whole reply; the delta-only client's deltas still rebuild the reply exactly.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  type MockGateway,
  startMockGateway,
  until,
} from "./gateway-harness.js";
import { FrameChecker } from "./protocol-frame-checker.js";

let gw: GatewayProc;
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ gw } = started);
});

afterAll(() => started?.stop());

/** A protocol-3 client on a bare socket (the gateway's own client speaks 4): connects and follows `sessionKey`. */
async function protocol3Client(url: string, sessionKey: string): Promise<{ frames: any[]; close(): void }> {
  const ws = new WebSocket(url);
  const frames: any[] = [];
  const checker = new FrameChecker();
  let answered: ((f: any) => void) | undefined;
  ws.on("message", (d) => {
    const f = JSON.parse(String(d));
    checker.check(f, "in");
    frames.push(f);
    if (f.type === "res") answered?.(f);
  });
  const request = (id: string, method: string, params: unknown): Promise<any> =>
    new Promise((resolve) => {
      answered = (f) => {
        if (f.id === id) resolve(f);
      };
      ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await until(() => frames.some((f) => f.event === "connect.challenge"), 15_000, "connect.challenge");
  const hello = await request("c1", "connect", {
    minProtocol: 3,
    maxProtocol: 3,
    client: { id: "openclaw-tui", version: "2026.1.0", platform: "linux", mode: "ui" },
    caps: [],
    auth: {},
    role: "operator",
    scopes: ["operator.admin"],
  });
  expect(hello.ok).toBe(true);
  const sub = await request("s1", "sessions.subscribe", { key: sessionKey });
  expect(sub.ok).toBe(true);
  return {
    frames,
    close: () => {
      expect(checker.problems).toEqual([]);
      ws.close();
    },
  };
}

const DELTAS = 800;
const expectedReply = Array.from({ length: DELTAS }, (_, i) => `d${i} `)
  .join("")
  .trim();

describe("cumulative text for clients that join a run midway", () => {
  it("a chat client and a protocol-3 client that connect mid-run get whole snapshots from their first event", async () => {
    const sessionKey = `join-${randomUUID()}`;
    const runId = randomUUID();
    const { client: starter, events: starterEvents } = await connectClient(gw.url, { caps: ["tiller.delta-only"] });
    const final = starter.request(
      "agent",
      { message: `[slow:${DELTAS}:5]`, idempotencyKey: runId, sessionKey },
      { expectFinal: true, timeoutMs: 120_000 },
    ) as Promise<any>;
    // The run is streaming, followed only by the delta-only client.
    const deltasOf = () =>
      agentEvents(starterEvents, runId)
        .filter((e) => e.stream === "assistant")
        .map((e) => String(e.data.delta));
    await until(() => deltasOf().length >= 20, 60_000, "the run's first deltas");

    const { client: chat, events: chatEvents } = await connectClient(gw.url, { clientId: "openclaw-tui", mode: "ui" });
    await chat.request("sessions.subscribe", { key: sessionKey });
    const v3 = await protocol3Client(gw.url, sessionKey);
    // Text the run had before the late clients followed it: their first snapshot must already hold it.
    const before = deltasOf().join("");
    expect(before.startsWith("d0 d1 ")).toBe(true);

    const answer = await final;
    expect(answer.status).toBe("ok");
    const reply = answer.result.payloads[0].text as string;
    expect(reply).toBe(expectedReply);
    expect(deltasOf().join("").trim()).toBe(reply);

    const chatOf = (frames: any[]) =>
      frames.filter((f) => f.event === "chat" && f.payload.runId === runId).map((f) => f.payload);
    await until(() => chatOf(chatEvents).some((c) => c.state === "final"), 30_000, "the chat client's final");
    await until(() => chatOf(v3.frames).some((c) => c.state === "final"), 30_000, "the protocol-3 client's final");

    // The protocol-3 client: every assistant event it got carries the text so far, from the run's start.
    const snapshots = v3.frames
      .filter((f) => f.event === "agent" && f.payload.runId === runId && f.payload.stream === "assistant")
      .map((f) => f.payload.data);
    expect(snapshots.length).toBeGreaterThan(0);
    let last = 0;
    for (const s of snapshots) {
      expect(typeof s.text).toBe("string");
      expect(reply.startsWith(s.text.trim())).toBe(true);
      expect(s.text.endsWith(s.delta)).toBe(true);
      expect(s.text.length).toBeGreaterThan(last);
      last = s.text.length;
    }
    expect(snapshots[0].text.length).toBeGreaterThanOrEqual(before.length);
    expect(snapshots.at(-1).text.trim()).toBe(reply);
    expect(chatOf(v3.frames).at(-1).message.content[0].text.trim()).toBe(reply);

    // The chat client: chat deltas whose cumulative message starts at the run's start, rebuilt by deltaText.
    const chatDeltas = chatOf(chatEvents).filter((c) => c.state === "delta");
    expect(chatDeltas.length).toBeGreaterThan(0);
    let rebuilt = "";
    for (const d of chatDeltas) {
      rebuilt += d.deltaText;
      expect(d.message.content[0].text).toBe(rebuilt);
      expect(reply.startsWith(rebuilt.trim())).toBe(true);
    }
    expect(chatDeltas[0].message.content[0].text.length).toBeGreaterThanOrEqual(before.length);
    const chatFinal = chatOf(chatEvents).at(-1);
    expect(chatFinal.state).toBe("final");
    expect(chatFinal.message.content[0].text.trim()).toBe(reply);

    v3.close();
    await chat.close();
    await starter.close();
  });
});
