// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Steering text has one owner at a time: a message steered into a running turn lives in the agent's own queue
 * until the loop takes it, so it reaches the model exactly once — never a second copy from another queue after
 * the run — and one the loop can no longer take (it arrived as the loop ended) is not lost: it runs next.
 * First against a real gateway process with a slow tool, then in process with the coding agent's AgentSession,
 * the steer landing exactly at the loop's end.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import { loadConfig } from "../src/config/load-config.js";
import type { EventFrame } from "../src/protocol/frames.js";
import type { RunExtension, RunRequest } from "../src/run/run-types.js";
import { GatewayCore } from "../src/server/gateway-core.js";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  makeHome,
  mockReply,
  removeHome,
  startMockProvider,
  until,
} from "./gateway-harness.js";
import { spawnWebGateway, userTexts } from "./web-harness.js";

const usage = { input: 10, output: 5 };
/** Model requests whose user messages include `text`, and how often each includes it. */
const copiesIn = (mock: MockServer, text: string) =>
  mock.requests.map((r) => userTexts(r.body).filter((t) => t === text).length).filter((n) => n > 0);

describe("one steering owner", () => {
  let mock: MockServer;
  let gw: GatewayProc;
  let client: GatewayClient;
  let events: EventFrame[];

  beforeAll(async () => {
    // `[slowtool]`: one exec call that sleeps a second, then "tool done"; any later user message: "echo: …".
    mock = await startOpenAIMock((req) => {
      const messages = (req.body as { messages: { role: string }[] }).messages;
      const last = messages.at(-1);
      const texts = userTexts(req.body);
      if (last?.role === "tool") return { events: openaiChatEvents({ text: ["tool ", "done"], usage }) };
      if (last?.role === "user" && texts.length === 1 && texts[0]?.includes("[slowtool]")) {
        const command = "echo started; sleep 1; echo finished";
        return {
          events: openaiChatEvents({
            toolCalls: [{ id: "call_slow", name: "exec", args: [JSON.stringify({ command })] }],
            finish: "tool",
            usage,
          }),
        };
      }
      return mockReply(texts.at(-1) ?? "");
    });
    gw = await spawnWebGateway(makeHome({ mockBaseUrl: mock.baseUrl }));
    ({ client, events } = await connectClient(gw.url));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gw?.stop();
    await mock?.close();
    if (gw) removeHome(gw.home);
  });

  it("a steer during a slow tool reaches the next model request once, and no copy of it comes after the run", async () => {
    const s = `steer-once-${randomUUID()}`;
    await client.request("sessions.patch", { key: s, queueMode: "steer" });
    const first = randomUUID();
    const steerText = `${s} use tabs`;
    const f1 = client.request(
      "agent",
      { message: `[slowtool] ${s}`, idempotencyKey: first, sessionKey: s },
      { expectFinal: true, timeoutMs: 60_000 },
    );
    // Steered while the tool sleeps.
    await until(
      () => agentEvents(events, first).some((e) => e.stream === "tool" && e.data.phase === "start"),
      20_000,
      "the tool call",
    );
    const steer = randomUUID();
    const f2 = client.request(
      "agent",
      { message: steerText, idempotencyKey: steer, sessionKey: s },
      { expectFinal: true, timeoutMs: 60_000 },
    );
    const [r1, r2]: any[] = await Promise.all([f1, f2]);
    expect(r1.status).toBe("ok");
    // The steered request is answered by the run it joined; it has no run (and no events) of its own.
    expect(r2.result).toEqual(r1.result);
    expect(agentEvents(events, steer)).toHaveLength(0);
    expect(r1.result.payloads.map((p: any) => p.text).join("\n")).toContain(`echo: ${steerText}`);
    // Exactly one model request carried it, once, right after the tool result.
    expect(copiesIn(mock, steerText)).toEqual([1]);
    const withSteer = mock.requests.find((r) => userTexts(r.body).includes(steerText));
    const roles = ((withSteer?.body ?? { messages: [] }) as { messages: { role: string }[] }).messages.map(
      (m) => m.role,
    );
    expect(roles.slice(-2)).toEqual(["tool", "user"]);

    // After the run: nothing of it waits anywhere, and the transcript holds it once.
    const sessions: any = await client.request("sessions.list", {});
    expect(sessions.sessions.find((x: any) => x.key === `agent:main:${s}`)?.queued).toBe(0);
    const next = randomUUID();
    const r3: any = await client.request(
      "agent",
      { message: `${s} next`, idempotencyKey: next, sessionKey: s },
      { expectFinal: true, timeoutMs: 60_000 },
    );
    expect(r3.result.payloads[0].text).toBe(`echo: ${s} next`);
    const lastRequest = mock.requests.at(-1);
    expect(userTexts(lastRequest?.body).filter((t) => t === steerText)).toHaveLength(1);
    expect(copiesIn(mock, steerText)).toEqual([1, 1]);
  }, 90_000);
});

describe("a steer the loop can no longer take", () => {
  it("arriving exactly as the loop ends, it is not lost: it runs as the next turn and reaches the model once", async () => {
    const mock = await startMockProvider();
    const home = makeHome({ mockBaseUrl: mock.baseUrl });
    const first: RunRequest = {
      runId: randomUUID(),
      sessionKey: "agent:main:late",
      agentId: "main",
      message: "first question",
      acceptedAt: Date.now(),
      source: "agent",
    };
    const late: RunRequest = { ...first, runId: randomUUID(), message: "late steer", acceptedAt: Date.now() };
    let submitted: string | undefined;
    let core: GatewayCore | undefined;
    // At the loop's `agent_end` the session still streams, so the steer goes into the agent's queue — after its
    // last boundary, where the loop never reads it again.
    const atLoopEnd: RunExtension = {
      name: "steer-at-loop-end",
      onAgentEvent(ctx, event) {
        if (event.type !== "agent_end" || ctx.runId !== first.runId || submitted || !core) return;
        core.runs.accept(late);
        submitted = core.queues.submit(late);
      },
    };
    core = new GatewayCore({ config: loadConfig(home), runner: { extensions: [atLoopEnd] } });
    try {
      expect(await core.submit(first)).toBe(true);
      const [o1, o2] = await Promise.all([core.runs.whenDone(first.runId), core.runs.whenDone(late.runId)]);
      expect(submitted).toBe("steered");
      expect(o1.status).toBe("ok");
      expect(o1.result.payloads.map((p) => p.text)).toEqual(["echo: first question"]);
      // Its own turn, with its own answer — not the first run's outcome with its text dropped.
      expect(o2.status).toBe("ok");
      expect(o2.result.payloads.map((p) => p.text)).toEqual(["echo: late steer"]);
      expect(copiesIn(mock, "late steer")).toEqual([1]);
      expect(mock.requests).toHaveLength(2);
      expect(userTexts(mock.requests[1]?.body)).toEqual(["first question", "late steer"]);
      expect(core.queues.pendingCount(first.sessionKey)).toBe(0);
    } finally {
      await core.shutdown();
      await mock.close();
      removeHome(home);
    }
  }, 60_000);
});
