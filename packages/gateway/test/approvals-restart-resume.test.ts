// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads and transcript lines are inspected structurally.
/**
 * A pending approval survives a crash: the gateway is SIGKILLed while a run waits for an exec approval, restarted
 * on the same home, and the approval is listed (and re-announced) again. Deciding it resumes the run where it
 * stopped: the command runs once, its result is in the transcript exactly once, the model answers, and
 * `agent.wait` on the original runId reports ok. An approval that expires across the restart resolves as its
 * timeoutBehavior says (deny) and the run still ends.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { EventFrame } from "../src/protocol/frames.js";
import { readTranscripts } from "./fault-harness.js";
import {
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
  until,
} from "./gateway-harness.js";

const APPROVER = ["operator.read", "operator.write", "operator.approvals"];

let mock: MockServer;
let gw: GatewayProc | undefined;
const homes: string[] = [];

beforeAll(async () => {
  mock = await startMockProvider();
});

afterEach(async () => {
  await gw?.kill();
  gw = undefined;
});

afterAll(async () => {
  await mock?.close();
  for (const h of homes) removeHome(h);
});

function homeWith(policy: Record<string, unknown>): string {
  const home = makeHome({ mockBaseUrl: mock.baseUrl, config: { tools: { enabled: true } } });
  writeFileSync(join(home, "exec-approvals.json"), JSON.stringify(policy), { mode: 0o600 });
  homes.push(home);
  return home;
}

const requested = (events: EventFrame[]) =>
  events.filter((e) => e.event === "exec.approval.requested").map((e) => e.payload as any);

/** Starts a run whose exec call waits for approval, then stops the gateway (SIGKILL by default). */
async function killWhilePending(
  home: string,
  runId: string,
  cmd: string,
  sessionKey: string,
  how: "kill" | "stop" = "kill",
): Promise<any> {
  gw = await spawnGateway(home);
  const first = await connectClient(gw.url, { scopes: APPROVER });
  first.client
    .request("agent", { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey }, { expectFinal: true })
    .catch(() => undefined); // the gateway dies before it can answer
  await until(() => requested(first.events).length > 0, 20_000, "exec.approval.requested");
  await (how === "kill" ? gw.kill() : gw.stop());
  return requested(first.events)[0];
}

/** Messages on the live branch (leaf = last entry, up through parentId) of the transcript that mentions `marker`. */
function transcriptMessages(home: string, marker: string): any[] {
  const file = readTranscripts(home).find((t) => JSON.stringify(t.entries).includes(marker));
  expect(file?.bad).toBe(0);
  const entries: any[] = file?.entries ?? [];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const branch: any[] = [];
  for (let e = entries.at(-1); e; e = e.parentId ? byId.get(e.parentId) : undefined) branch.unshift(e);
  return branch.filter((e) => e.type === "message").map((e) => e.message);
}

it("SIGKILL while an approval is pending: restart lists it, resolving resumes the run to ok, result stored once", async () => {
  const home = homeWith({ security: "allowlist", ask: "on-miss" });
  const runId = randomUUID();
  const word = `resumed-${runId.slice(0, 8)}`;
  const before = await killWhilePending(home, runId, `echo ${word}`, "appr-restart");

  gw = await spawnGateway(home);
  const { client, events } = await connectClient(gw.url, { scopes: APPROVER });
  // Re-announced to the approver that connected, and listed.
  await until(() => requested(events).some((r) => r.id === before.id), 10_000, "re-announced request");
  const list: any = await client.request("exec.approval.list", {});
  expect(list.approvals).toEqual([expect.objectContaining({ id: before.id, request: before.request })]);
  // The run is not reported as interrupted: it waits for its decision.
  const waiting = client.request("agent.wait", { runId, timeoutMs: 60_000 });
  const early: any = await client.request("agent.wait", { runId, timeoutMs: 50 });
  expect(early.status).toBe("timeout");
  expect(early.endedAt).toBeUndefined();

  const resolved: any = await client.request("exec.approval.resolve", { id: before.id, decision: "allow-once" });
  expect(resolved).toMatchObject({ ok: true, id: before.id, resumed: true });
  const done: any = await waiting;
  expect(done).toMatchObject({ runId, status: "ok" });
  expect(done.interrupted).toBeUndefined();
  expect((await client.request("exec.approval.list", {})) as any).toEqual({ approvals: [] });

  const messages = transcriptMessages(home, word);
  const results = messages.filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({ toolCallId: "call_tool1", toolName: "exec", isError: false });
  expect(JSON.stringify(results[0].content)).toContain(word);
  const last = messages.at(-1);
  expect(last.role).toBe("assistant");
  expect(JSON.stringify(last.content)).toContain(`done: ${word}`);
  // The resumed run's stream showed the decision, and the run's answer is on its runId.
  expect(events.some((e) => e.event === "exec.approval.resolved" && (e.payload as any).id === before.id)).toBe(true);
  await client.close();
});

it("an approval that expires across the restart resolves as its timeoutBehavior says (deny); the run ends", async () => {
  const home = homeWith({ security: "allowlist", ask: "on-miss", timeoutMs: 4000, askFallback: "deny" });
  const runId = randomUUID();
  const marker = `expired-${runId.slice(0, 8)}`;
  const before = await killWhilePending(home, runId, `echo ${marker}`, "appr-expire");
  expect(before.expiresAtMs - before.createdAtMs).toBe(4000);

  gw = await spawnGateway(home);
  const { client } = await connectClient(gw.url, { scopes: APPROVER });
  const done: any = await client.request("agent.wait", { runId, timeoutMs: 60_000 });
  expect(done).toMatchObject({ runId, status: "ok" });
  const messages = transcriptMessages(home, marker);
  const results = messages.filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(1);
  expect(results[0].isError).toBe(true);
  expect(JSON.stringify(results[0].content)).toMatch(/no decision on running \\"exec\\" within 4000 ms/);
  // Whether it expired before or after this client connected, it is no longer pending.
  expect((await client.request("exec.approval.list", {})) as any).toEqual({ approvals: [] });
  await client.close();
});

it("a graceful stop (SIGTERM) keeps the pending approval as well; after the restart, deciding resumes the run", async () => {
  const home = homeWith({ security: "allowlist", ask: "on-miss" });
  const runId = randomUUID();
  const word = `graceful-${runId.slice(0, 8)}`;
  const before = await killWhilePending(home, runId, `echo ${word}`, "appr-graceful", "stop");

  gw = await spawnGateway(home);
  const { client, events } = await connectClient(gw.url, { scopes: APPROVER });
  await until(() => requested(events).some((r) => r.id === before.id), 10_000, "re-announced request");
  const resolved: any = await client.request("exec.approval.resolve", { id: before.id, decision: "allow-once" });
  expect(resolved).toMatchObject({ resumed: true });
  const done: any = await client.request("agent.wait", { runId, timeoutMs: 60_000 });
  expect(done).toMatchObject({ runId, status: "ok" });
  const messages = transcriptMessages(home, word);
  const results = messages.filter((m) => m.role === "toolResult");
  expect(results).toHaveLength(1);
  expect(results[0].isError).toBe(false);
  expect(JSON.stringify(results[0].content)).toContain(word);
  expect(JSON.stringify(messages.at(-1).content)).toContain(`done: ${word}`);
  await client.close();
});
