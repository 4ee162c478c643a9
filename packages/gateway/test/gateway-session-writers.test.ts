// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * No leaks: every path that opens a session's writer closes it. `status.openSessionWriters` (and the debug line
 * after each run) is back at its baseline after start-up with interrupted runs, runs that end ok, in error,
 * aborted or timed out, compaction, and sessions.reset / delete / patch, and stays there while idle; during a run
 * it is 1, and reading the session (`chat.history`) meanwhile takes no writer.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
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

async function writers(client: GatewayClient): Promise<number> {
  const s: any = await client.request("status", {});
  expect(typeof s.openSessionWriters).toBe("number");
  return s.openSessionWriters as number;
}

function run(client: GatewayClient, sessionKey: string, message: string, extra: Record<string, unknown> = {}) {
  const runId = randomUUID();
  const final = client.request(
    "agent",
    { message, idempotencyKey: runId, sessionKey, ...extra },
    { expectFinal: true },
  ) as Promise<any>;
  return { runId, final };
}

/** Starts a [hang] run and waits until it streams (its writer is open). */
async function hangingRun(client: GatewayClient, events: EventFrame[], sessionKey: string) {
  const r = run(client, sessionKey, `[hang] ${sessionKey}`);
  await until(() => agentEvents(events, r.runId).some((e) => e.stream === "assistant"), 15_000, "hung run streaming");
  return r;
}

it("the open-writer count is back at its baseline after every path that opens a session", async () => {
  // Start-up that marks interrupted runs: a gateway killed during a run, then restarted.
  const first = await spawnGateway(home);
  procs.push(first);
  const a = await connectClient(first.url);
  const interrupted = await hangingRun(a.client, a.events, "w-interrupted");
  const lost = interrupted.final.catch((err: Error) => err.message); // its gateway dies below
  expect(await writers(a.client)).toBe(1);
  await first.kill();
  expect(await lost).toMatch(/connection closed/);

  const gw = await spawnGateway(home);
  procs.push(gw);
  const { client, events } = await connectClient(gw.url);
  const status: any = await client.request("status", {});
  expect(status.recoveredInterruptedRuns).toBe(1);
  const baseline = status.openSessionWriters;
  expect(baseline).toBe(0);
  expect(gw.stderr.join("")).toContain("debug: session writers open: 0 (after start-up (1 interrupted runs marked))");

  // ok
  const ok = run(client, "w-ok", "hello");
  expect(await ok.final).toMatchObject({ status: "ok" });
  expect(await writers(client)).toBe(baseline);
  await until(() => gw.stderr.join("").includes(`debug: session writers open: 0 (after run ${ok.runId} ok)`));

  // error (the provider refuses)
  const failed = run(client, "w-error", "[fail]");
  expect(await failed.final).toMatchObject({ status: "error" });
  expect(await writers(client)).toBe(baseline);

  // abort; meanwhile the writer is open, and reading the session takes none
  const aborted = await hangingRun(client, events, "w-abort");
  expect(await writers(client)).toBe(baseline + 1);
  const history: any = await client.request("chat.history", { sessionKey: "w-abort" });
  expect(history.messages.map((m: any) => m.role)).toContain("user");
  expect(await writers(client)).toBe(baseline + 1);
  expect(await client.request("chat.abort", { sessionKey: "w-abort", runId: aborted.runId })).toMatchObject({
    aborted: true,
  });
  expect(await aborted.final).toMatchObject({ status: "error", summary: "aborted" });
  expect(await writers(client)).toBe(baseline);

  // timeout
  const timedOut = run(client, "w-timeout", "[hang] w-timeout", { timeout: 1 });
  expect(await timedOut.final).toMatchObject({ status: "timeout" });
  expect(await writers(client)).toBe(baseline);

  // compaction (of a session with history)
  const compacted: any = await client.request("sessions.compact", { key: "w-ok" });
  expect(compacted.key).toBe("agent:main:w-ok");
  expect(await writers(client)).toBe(baseline);
  await until(() =>
    gw.stderr.join("").includes("debug: session writers open: 0 (after compaction of agent:main:w-ok)"),
  );

  // sessions.reset and sessions.delete while a run holds the session's writer
  const beforeReset = await hangingRun(client, events, "w-reset");
  expect(await writers(client)).toBe(baseline + 1);
  await client.request("sessions.reset", { key: "w-reset" });
  expect(await beforeReset.final).toMatchObject({ status: "error" });
  expect(await writers(client)).toBe(baseline);
  const beforeDelete = await hangingRun(client, events, "w-delete");
  await client.request("sessions.delete", { key: "w-delete" });
  expect(await beforeDelete.final).toMatchObject({ status: "error" });
  expect(await writers(client)).toBe(baseline);

  // sessions.patch, then a run on the patched session
  await client.request("sessions.patch", { key: "w-ok", label: "patched", thinkingLevel: "low" });
  expect(await writers(client)).toBe(baseline);
  expect(await run(client, "w-ok", "after patch").final).toMatchObject({ status: "ok" });
  expect(await writers(client)).toBe(baseline);

  // A session reset and then used again, and a deleted one recreated: their writers close as well.
  expect(await run(client, "w-reset", "fresh").final).toMatchObject({ status: "ok" });
  expect(await run(client, "w-delete", "again").final).toMatchObject({ status: "ok" });

  // Idle: nothing running, nothing open.
  const idle: any = await client.request("status", {});
  expect(idle.activeRuns).toEqual([]);
  expect(idle.openSessionWriters).toBe(baseline);
  await client.close();
}, 120_000);
