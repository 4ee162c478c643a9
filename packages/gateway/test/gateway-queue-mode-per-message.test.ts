// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * A message's own queue mode (`queueMode` on `agent` and `chat.send`, the reference's param) against a real
 * gateway: it wins over the session's mode (set with sessions.patch) for that message only, and a bad value is
 * refused with a clear error while the session keeps working.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import type { EventFrame } from "../src/protocol/frames.js";
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
let client: GatewayClient;
let events: EventFrame[];
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ mock, gw } = started);
  ({ client, events } = await connectClient(gw.url));
});

afterAll(async () => {
  await client?.close();
  await started?.stop();
});

const userTexts = (body: any): string[] =>
  (body.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text).join("")));
const callsWith = (tag: string) => mock.requests.filter((r) => userTexts(r.body).some((t) => t.includes(tag)));

function send(
  method: "agent" | "chat.send",
  session: string,
  message: string,
  queueMode?: string,
): { runId: string; final: Promise<any> } {
  const runId = randomUUID();
  return {
    runId,
    final: client.request(
      method,
      { message, idempotencyKey: runId, sessionKey: session, ...(queueMode ? { queueMode } : {}) },
      { expectFinal: true },
    ),
  };
}

const firstDelta = (runId: string) =>
  until(() => agentEvents(events, runId).some((e) => e.stream === "assistant"), 15_000, `first delta of ${runId}`);
const start = (id: string) => agentEvents(events, id)[0]?.data.startedAt as number;
const end = (id: string) => agentEvents(events, id).at(-1)?.data.endedAt as number;

describe("queue mode per message", () => {
  it("queueMode steer on agent joins the active run although the session's mode is followup", async () => {
    const s = `pm-steer-${randomUUID()}`;
    await client.request("sessions.patch", { key: s, queueMode: "followup" });
    const one = send("agent", s, `[slow:6:80] ${s} one`);
    await firstDelta(one.runId);
    const two = send("agent", s, `${s} steered`, "steer");
    const [f1, f2] = await Promise.all([one.final, two.final]);
    expect(f1.status).toBe("ok");
    // No run of its own: it was answered inside the first run.
    expect(agentEvents(events, two.runId)).toHaveLength(0);
    expect(f2.result).toEqual(f1.result);
    const calls = callsWith(s);
    expect(calls).toHaveLength(2);
    expect(userTexts(calls[1]?.body)).toEqual([`[slow:6:80] ${s} one`, `${s} steered`]);
    // The session's own mode is untouched: the next plain message mid-run is a follow-up again.
    const three = send("agent", s, `[slow:4:80] ${s} three`);
    await firstDelta(three.runId);
    const four = send("agent", s, `${s} four`);
    await Promise.all([three.final, four.final]);
    expect(agentEvents(events, four.runId).length).toBeGreaterThan(0);
    expect(start(four.runId)).toBeGreaterThanOrEqual(end(three.runId));
  }, 60_000);

  it("queueMode followup on chat.send waits for the active run although the session's mode is steer", async () => {
    const s = `pm-follow-${randomUUID()}`;
    const one = send("chat.send", s, `[slow:6:80] ${s} one`);
    await firstDelta(one.runId);
    const two = send("chat.send", s, `${s} later`, "followup");
    const [f1, f2] = await Promise.all([one.final, two.final]);
    expect([f1.status, f2.status]).toEqual(["ok", "ok"]);
    expect(agentEvents(events, two.runId).length).toBeGreaterThan(0);
    expect(start(two.runId)).toBeGreaterThanOrEqual(end(one.runId));
    const calls = callsWith(s);
    expect(calls).toHaveLength(2);
    // Its own model request, after the whole first reply (steering would have put it inside the first run).
    expect(userTexts(calls[0]?.body)).toEqual([`[slow:6:80] ${s} one`]);
    expect(userTexts(calls[1]?.body)).toEqual([`[slow:6:80] ${s} one`, `${s} later`]);
  }, 60_000);

  it("queueMode interrupt aborts the active run and runs the new message", async () => {
    const s = `pm-int-${randomUUID()}`;
    const one = send("agent", s, `[hang] ${s}`);
    await firstDelta(one.runId);
    const two = send("agent", s, `${s} now`, "interrupt");
    const [f1, f2] = await Promise.all([one.final, two.final]);
    expect(f1).toMatchObject({ status: "error", error: { kind: "aborted" } });
    expect(f2.result.payloads[0].text).toBe(`echo: ${s} now`);
  }, 60_000);

  it("refuses an unknown queueMode with a clear error, and the session keeps working", async () => {
    const s = `pm-bad-${randomUUID()}`;
    await expect(send("agent", s, "hello", "sideways").final).rejects.toThrow(/queueMode/);
    await expect(send("chat.send", s, "hello", "sideways").final).rejects.toThrow(/queueMode/);
    const ok = await send("agent", s, `${s} fine`).final;
    expect(ok.result.payloads[0].text).toBe(`echo: ${s} fine`);
  }, 60_000);
});
