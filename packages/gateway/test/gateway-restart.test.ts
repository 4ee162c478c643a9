// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Crash and restart: a gateway killed (SIGKILL) mid-run loses no completed turn; the restarted gateway
 * keeps the sessions, marks the unfinished run interrupted (agent.wait and sessions.list say so), refuses to
 * run it twice, and the session goes on with its history.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
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
let home: string;
const procs: GatewayProc[] = [];

beforeAll(async () => {
  mock = await startMockProvider();
  home = makeHome({ mockBaseUrl: mock.baseUrl });
});

afterAll(async () => {
  for (const p of procs) await p.kill();
  await mock?.close();
  if (home) removeHome(home);
});

it("restarts with sessions intact and the killed run marked interrupted", async () => {
  const first = await spawnGateway(home);
  procs.push(first);
  const a = await connectClient(first.url);
  const done: any = await a.client.request(
    "agent",
    { message: "remember this", idempotencyKey: randomUUID(), sessionKey: "crash" },
    { expectFinal: true },
  );
  expect(done.status).toBe("ok");
  const hung = randomUUID();
  void a.client
    .request("agent", { message: "[hang] crash me", idempotencyKey: hung, sessionKey: "crash" }, { expectFinal: true })
    .catch(() => {});
  await until(() => agentEvents(a.events, hung).some((e) => e.stream === "assistant"), 10_000, "hung run streaming");
  await first.kill();

  const second = await spawnGateway(home);
  procs.push(second);
  const b = await connectClient(second.url);
  const wait: any = await b.client.request("agent.wait", { runId: hung, timeoutMs: 1000 });
  expect(wait).toMatchObject({ runId: hung, status: "error", interrupted: true });
  const list: any = await b.client.request("sessions.list", {});
  const entry = list.sessions.find((s: any) => s.key === "agent:main:crash");
  expect(entry.lastRun).toEqual({ runId: hung, status: "interrupted" });
  const history: any = await b.client.request("chat.history", { sessionKey: "crash" });
  const texts = history.messages.map((m: any) => `${m.role}:${m.content.map((c: any) => c.text ?? "").join("")}`);
  expect(texts.slice(0, 2)).toEqual(["user:remember this", "assistant:echo: remember this"]);

  // The same idempotency key does not run again; the session continues with its history.
  const again: any = await b.client.request(
    "agent",
    { message: "[hang] crash me", idempotencyKey: hung, sessionKey: "crash" },
    { expectFinal: true },
  );
  expect(again).toMatchObject({ status: "error", cached: true });
  const before = mock.requests.length;
  const next: any = await b.client.request(
    "agent",
    { message: "and now?", idempotencyKey: randomUUID(), sessionKey: "crash" },
    { expectFinal: true },
  );
  expect(next.status).toBe("ok");
  const sent = mock.requests.slice(before)[0]?.body.messages.map((m: any) => m.role);
  expect(sent.filter((r: string) => r === "user").length).toBeGreaterThanOrEqual(2);
  await b.client.close();
  await second.stop();
}, 90_000); // two gateway start-ups (~9 s each on a loaded 2-core machine)
