// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Queue modes against a real gateway: what happens to a message that reaches a session whose run is active
 * (steer, followup, collect, interrupt), the cap with its drop policies, and the /queue command.
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
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
  until,
} from "./gateway-harness.js";

let mock: MockServer;
let gw: GatewayProc;
let client: GatewayClient;
let events: EventFrame[];

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await spawnGateway(
    makeHome({ mockBaseUrl: mock.baseUrl, config: { messages: { queue: { debounceMs: 150 } } } }),
  );
  ({ client, events } = await connectClient(gw.url));
});

afterAll(async () => {
  await client?.close();
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

const userTexts = (body: any): string[] =>
  (body.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text).join("")));
/** Model calls whose conversation mentions `tag`. */
const callsWith = (tag: string) => mock.requests.filter((r) => userTexts(r.body).some((t) => t.includes(tag)));

function send(session: string, message: string, runId = randomUUID()): { runId: string; final: Promise<any> } {
  return {
    runId,
    final: client.request("agent", { message, idempotencyKey: runId, sessionKey: session }, { expectFinal: true }),
  };
}

async function setMode(session: string, patch: Record<string, unknown>): Promise<void> {
  await client.request("sessions.patch", { key: session, ...patch });
}

const firstDelta = (runId: string) =>
  until(() => agentEvents(events, runId).some((e) => e.stream === "assistant"), 10_000, `first delta of ${runId}`);

describe("queue modes", () => {
  it("steer: a message sent mid-run joins that run at its next boundary (no run of its own)", async () => {
    const s = `q-steer-${randomUUID()}`;
    await setMode(s, { queueMode: "steer" });
    const one = send(s, `[slow:6:60] ${s} one`);
    await firstDelta(one.runId);
    const two = send(s, `${s} steered-two`);
    const [f1, f2] = await Promise.all([one.final, two.final]);
    expect(f1.status).toBe("ok");
    expect(f2.result).toEqual(f1.result);
    expect(agentEvents(events, two.runId)).toHaveLength(0);
    const calls = callsWith(s);
    expect(calls).toHaveLength(2);
    expect(userTexts(calls[1]?.body)).toEqual([`[slow:6:60] ${s} one`, `${s} steered-two`]);
    expect(f1.result.payloads.map((p: any) => p.text)).toEqual(["d0 d1 d2 d3 d4 d5", `echo: ${s} steered-two`]);
  });

  it("followup: each queued message becomes its own turn, in order, after the active one", async () => {
    const s = `q-follow-${randomUUID()}`;
    await setMode(s, { queueMode: "followup" });
    const one = send(s, `[slow:4:60] ${s} one`);
    await firstDelta(one.runId);
    const two = send(s, `${s} two`);
    const three = send(s, `${s} three`);
    const finals = await Promise.all([one.final, two.final, three.final]);
    expect(finals.map((f) => f.status)).toEqual(["ok", "ok", "ok"]);
    expect(finals[2].result.payloads[0].text).toBe(`echo: ${s} three`);
    const calls = callsWith(s);
    expect(calls).toHaveLength(3);
    expect(userTexts(calls[2]?.body)).toEqual([`[slow:4:60] ${s} one`, `${s} two`, `${s} three`]);
    const start = (id: string) => agentEvents(events, id)[0]?.data.startedAt as number;
    const end = (id: string) => agentEvents(events, id).at(-1)?.data.endedAt as number;
    expect(start(two.runId)).toBeGreaterThanOrEqual(end(one.runId));
    expect(start(three.runId)).toBeGreaterThanOrEqual(end(two.runId));
  });

  it("collect: messages queued during a run are merged into one follow-up turn after the debounce", async () => {
    const s = `q-collect-${randomUUID()}`;
    await setMode(s, { queueMode: "collect", queueDebounceMs: 150 });
    const one = send(s, `[slow:4:60] ${s} one`);
    await firstDelta(one.runId);
    const two = send(s, `${s} two`);
    const three = send(s, `${s} three`);
    const [, f2, f3] = await Promise.all([one.final, two.final, three.final]);
    expect(f2.status).toBe("ok");
    expect(f3.result).toEqual(f2.result);
    const calls = callsWith(s);
    expect(calls).toHaveLength(2);
    const merged = userTexts(calls[1]?.body).at(-1) as string;
    expect(merged).toContain(`Queued #1\n${s} two`);
    expect(merged).toContain(`Queued #2\n${s} three`);
  });

  it("interrupt: a new message aborts the active run and runs the newest", async () => {
    const s = `q-int-${randomUUID()}`;
    await setMode(s, { queueMode: "interrupt" });
    const one = send(s, `[hang] ${s}`);
    await firstDelta(one.runId);
    const two = send(s, `${s} newest`);
    const [f1, f2] = await Promise.all([one.final, two.final]);
    expect(f1).toMatchObject({ status: "error", summary: "aborted" });
    expect(f2.status).toBe("ok");
    expect(f2.result.payloads[0].text).toBe(`echo: ${s} newest`);
  });

  it("cap with drop:new refuses the newcomer; drop:old drops the oldest queued", async () => {
    const s = `q-new-${randomUUID()}`;
    await setMode(s, { queueMode: "followup", queueCap: 1, queueDrop: "new" });
    const one = send(s, `[slow:4:60] ${s}`);
    await firstDelta(one.runId);
    const two = send(s, `${s} two`);
    const three = send(s, `${s} three`);
    const [, f2, f3] = await Promise.all([one.final, two.final, three.final]);
    expect(f2.status).toBe("ok");
    expect(f3).toMatchObject({ status: "error" });
    expect(f3.summary).toMatch(/queue full/);

    const o = `q-old-${randomUUID()}`;
    await setMode(o, { queueMode: "followup", queueCap: 1, queueDrop: "old" });
    const a = send(o, `[slow:4:60] ${o}`);
    await firstDelta(a.runId);
    const b = send(o, `${o} b`);
    const c = send(o, `${o} c`);
    const [, fb, fc] = await Promise.all([a.final, b.final, c.final]);
    expect(fb.summary).toMatch(/queue full/);
    expect(fc.result.payloads[0].text).toBe(`echo: ${o} c`);
  });

  it("cap with drop:summarize carries a summary of dropped messages into the next turn", async () => {
    const s = `q-sum-${randomUUID()}`;
    await setMode(s, { queueMode: "followup", queueCap: 1, queueDrop: "summarize" });
    const one = send(s, `[slow:4:60] ${s}`);
    await firstDelta(one.runId);
    const two = send(s, `${s} two dropped`);
    const three = send(s, `${s} three kept`);
    const [, f2, f3] = await Promise.all([one.final, two.final, three.final]);
    expect(f3.status).toBe("ok");
    expect(f2.result).toEqual(f3.result);
    const prompt = userTexts(callsWith(`${s} three kept`)[0]?.body).at(-1) as string;
    expect(prompt).toMatch(/1 queued message\(s\) were dropped/);
    expect(prompt).toContain(`- ${s} two dropped`);
    expect(prompt.endsWith(`${s} three kept`)).toBe(true);
  });

  it("/queue <mode> sets the session's mode without a model call; /queue default clears it", async () => {
    const s = `q-cmd-${randomUUID()}`;
    const before = mock.requests.length;
    const set: any = await send(s, "/queue collect debounce:2s cap:5 drop:old").final;
    expect(set.result.payloads[0].text).toBe("Queue set: collect (debounce 2000ms, cap 5, drop old).");
    const list: any = await client.request("sessions.list", {});
    expect(list.sessions.find((x: any) => x.key === `agent:main:${s}`)).toMatchObject({
      queueMode: "collect",
      queueDebounceMs: 2000,
      queueCap: 5,
      queueDrop: "old",
    });
    const reset: any = await send(s, "/queue default").final;
    expect(reset.result.payloads[0].text).toMatch(/Queue reset/);
    const bad: any = await send(s, "/queue sideways").final;
    expect(bad.status).toBe("error");
    expect(mock.requests.length).toBe(before);
  });
});
