// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Exec approvals through a real gateway process: a scripted model asks to run a command, the policy of
 * `$TILLER_HOME/exec-approvals.json` says ask, and the request reaches clients holding `operator.approvals` (and
 * no other). Decided by `exec.approval.resolve` and by `/approve` typed in chat; deny gives the model the denial;
 * timeouts decide as `timeoutBehavior` says; allow-always writes the allowlist; nobody connected → askFallback.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
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

const APPROVER = ["operator.read", "operator.write", "operator.approvals"];
const WRITER = ["operator.read", "operator.write"];

let mock: MockServer;
let gw: GatewayProc;

function writePolicy(policy: Record<string, unknown>): void {
  writeFileSync(join(gw.home, "exec-approvals.json"), JSON.stringify(policy), { mode: 0o600 });
}

function approvalEvents(events: EventFrame[], name: string): any[] {
  return events.filter((e) => e.event === name).map((e) => e.payload);
}

/** Waits for the `exec.approval.requested` of the command `cmd`. */
async function requestFor(events: EventFrame[], cmd: string): Promise<any> {
  await until(
    () => approvalEvents(events, "exec.approval.requested").some((p) => p.request.command === cmd),
    20_000,
    `exec.approval.requested for ${cmd}`,
  );
  return approvalEvents(events, "exec.approval.requested").find((p) => p.request.command === cmd);
}

beforeAll(async () => {
  mock = await startMockProvider();
  const home = makeHome({ mockBaseUrl: mock.baseUrl, config: { tools: { enabled: true } } });
  gw = await spawnGateway(home);
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

describe("exec approvals on the gateway", () => {
  // First: no approver has connected yet (a closing one may still count for a moment).
  it("with no operator.approvals client connected, askFallback decides at once (deny)", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
    const writer = await connectClient(gw.url, { scopes: WRITER });
    const end: any = await writer.client.request(
      "agent",
      { message: "[tool:exec:echo nobody]", idempotencyKey: randomUUID(), sessionKey: "appr-nobody" },
      { expectFinal: true },
    );
    expect(end.result.payloads.map((p: any) => p.text).join("")).toMatch(
      /nobody can be asked here \(askFallback: deny\)/,
    );
    await writer.client.close();
  });

  it("announces a request to operator.approvals clients only; resolved by RPC, the command runs", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const approver = await connectClient(gw.url, { scopes: APPROVER, caps: ["tiller.all-events"] });
    const writer = await connectClient(gw.url, { scopes: WRITER, caps: ["tiller.all-events"] });
    const runId = randomUUID();
    const cmd = `echo ran-${runId.slice(0, 8)}`;
    const final = approver.client.request(
      "agent",
      { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey: "appr-rpc" },
      { expectFinal: true },
    );
    const req = await requestFor(approver.events, cmd);
    expect(req.request).toMatchObject({
      command: cmd,
      host: "gateway",
      sessionKey: "agent:main:appr-rpc",
      runId,
      toolName: "exec",
      allowedDecisions: ["allow-once", "allow-always", "deny"],
    });
    expect(req.createdAtMs).toBeGreaterThan(0);
    // Listed and readable by an approver; not decidable without the scope.
    const list: any = await approver.client.request("exec.approval.list", {});
    expect(list.approvals.map((a: any) => a.id)).toContain(req.id);
    const mine: any = await approver.client.request("exec.approval.list", { sessionKey: "appr-rpc" });
    expect(mine.approvals.map((a: any) => a.id)).toEqual([req.id]);
    const other: any = await approver.client.request("exec.approval.list", { sessionKey: "appr-elsewhere" });
    expect(other.approvals).toEqual([]);
    const got: any = await approver.client.request("exec.approval.get", { id: req.id });
    expect(got.request.command).toBe(cmd);
    await expect(
      writer.client.request("exec.approval.resolve", { id: req.id, decision: "allow-once" }),
    ).rejects.toThrow(/missing scope operator.approvals/);
    await expect(writer.client.request("exec.approval.list", {})).rejects.toThrow(/operator.approvals/);

    const resolved: any = await approver.client.request("exec.approval.resolve", {
      id: req.id,
      decision: "allow-once",
    });
    expect(resolved).toMatchObject({ ok: true, id: req.id, decision: "allow-once" });
    const end: any = await final;
    expect(end.status).toBe("ok");
    expect(end.result.payloads.map((p: any) => p.text).join("")).toContain(`ran-${runId.slice(0, 8)}`);
    await until(() => approvalEvents(approver.events, "exec.approval.resolved").some((p) => p.id === req.id));
    expect(approvalEvents(approver.events, "exec.approval.resolved").find((p) => p.id === req.id)).toMatchObject({
      decision: "allow-once",
      cause: "decided",
    });
    // The run's own approval stream, requested then resolved.
    const stream = agentEvents(approver.events, runId).filter((e) => e.stream === "approval");
    expect(stream.map((e) => e.data.phase)).toEqual(["requested", "resolved"]);
    expect(stream[0]?.data).toMatchObject({ id: req.id, kind: "exec", command: cmd, toolName: "exec" });
    // The writer saw the run, but no approval event.
    expect(agentEvents(writer.events, runId).length).toBeGreaterThan(0);
    expect(writer.events.filter((e) => e.event.includes("approval"))).toEqual([]);
    // Decided once: a second answer finds nothing.
    await expect(approver.client.request("exec.approval.resolve", { id: req.id, decision: "deny" })).rejects.toThrow(
      /no pending approval/,
    );
    await approver.client.close();
    await writer.client.close();
  });

  it("/approve typed in chat decides it; a sender without operator.approvals is refused", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const approver = await connectClient(gw.url, { scopes: APPROVER });
    const writer = await connectClient(gw.url, { scopes: WRITER });
    const runId = randomUUID();
    const cmd = `echo chat-${runId.slice(0, 8)}`;
    const final = writer.client.request(
      "agent",
      { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey: "appr-chat" },
      { expectFinal: true },
    );
    const req = await requestFor(approver.events, cmd);
    const refused: any = await writer.client.request(
      "agent",
      { message: `/approve ${req.id} allow-once`, idempotencyKey: randomUUID(), sessionKey: "appr-chat" },
      { expectFinal: true },
    );
    expect(refused.result.payloads[0].text).toMatch(/needs the operator.approvals scope/);
    const ok: any = await approver.client.request(
      "agent",
      { message: `/approve ${req.id} allow-once`, idempotencyKey: randomUUID(), sessionKey: "appr-chat" },
      { expectFinal: true },
    );
    expect(ok.result.payloads[0].text).toBe(`Approval ${req.id}: allow-once.`);
    const end: any = await final;
    expect(end.status).toBe("ok");
    expect(end.result.payloads.map((p: any) => p.text).join("")).toContain(`chat-${runId.slice(0, 8)}`);
    expect(approvalEvents(approver.events, "exec.approval.resolved").find((p) => p.id === req.id)).toMatchObject({
      decision: "allow-once",
      resolvedBy: "/approve",
    });
    await approver.client.close();
    await writer.client.close();
  });

  it("deny: the command does not run and the model reads the denial with its reason", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const approver = await connectClient(gw.url, { scopes: APPROVER });
    const runId = randomUUID();
    const marker = join(gw.home, `denied-${runId.slice(0, 8)}`);
    const cmd = `touch ${marker}`;
    const final = approver.client.request(
      "agent",
      { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey: "appr-deny" },
      { expectFinal: true },
    );
    const req = await requestFor(approver.events, cmd);
    await approver.client.request("exec.approval.resolve", { id: req.id, decision: "deny", reason: "not today" });
    const end: any = await final;
    const text = end.result.payloads.map((p: any) => p.text).join("");
    expect(text).toContain("Denied: the user did not allow running");
    expect(text).toContain("not today");
    expect(() => readFileSync(marker)).toThrow();
    await approver.client.close();
  });

  it("timeout: timeoutBehavior deny (askFallback deny) denies, allow (askFallback full) runs", async () => {
    const approver = await connectClient(gw.url, { scopes: APPROVER });
    writePolicy({ security: "allowlist", ask: "on-miss", timeoutMs: 400, askFallback: "deny" });
    const denyRun = randomUUID();
    const denied: any = await approver.client.request(
      "agent",
      { message: `[tool:exec:echo late-${denyRun.slice(0, 8)}]`, idempotencyKey: denyRun, sessionKey: "appr-to-deny" },
      { expectFinal: true },
    );
    expect(denied.result.payloads.map((p: any) => p.text).join("")).toMatch(
      /no decision on running "exec" within 400 ms/,
    );
    const deniedReq = await requestFor(approver.events, `echo late-${denyRun.slice(0, 8)}`);
    expect(deniedReq.request.timeoutBehavior).toBe("deny");
    expect(deniedReq.expiresAtMs - deniedReq.createdAtMs).toBe(400);
    expect(approvalEvents(approver.events, "exec.approval.resolved").find((p) => p.id === deniedReq.id)).toMatchObject({
      decision: "deny",
      cause: "timeout",
    });

    writePolicy({ security: "allowlist", ask: "on-miss", timeoutMs: 400, askFallback: "full" });
    const allowRun = randomUUID();
    const allowed: any = await approver.client.request(
      "agent",
      { message: `[tool:exec:echo ok-${allowRun.slice(0, 8)}]`, idempotencyKey: allowRun, sessionKey: "appr-to-allow" },
      { expectFinal: true },
    );
    expect(allowed.result.payloads.map((p: any) => p.text).join("")).toContain(`ok-${allowRun.slice(0, 8)}`);
    const allowedReq = await requestFor(approver.events, `echo ok-${allowRun.slice(0, 8)}`);
    expect(approvalEvents(approver.events, "exec.approval.resolved").find((p) => p.id === allowedReq.id)).toMatchObject(
      {
        decision: "allow-once",
        cause: "timeout",
      },
    );
    await approver.client.close();
  });

  it("allow-always adds the executable to the allowlist; the same command then runs without asking", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const approver = await connectClient(gw.url, { scopes: APPROVER });
    const runId = randomUUID();
    const cmd = "printf always";
    const final = approver.client.request(
      "agent",
      { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey: "appr-always" },
      { expectFinal: true },
    );
    const req = await requestFor(approver.events, cmd);
    await approver.client.request("exec.approval.resolve", { id: req.id, decision: "allow-always" });
    expect(((await final) as any).result.payloads.map((p: any) => p.text).join("")).toContain("always");
    const file = JSON.parse(readFileSync(join(gw.home, "exec-approvals.json"), "utf8"));
    expect(file.allowlist).toEqual([
      expect.objectContaining({ pattern: expect.stringMatching(/\/printf$/), source: "allow-always" }),
    ]);
    const before = approvalEvents(approver.events, "exec.approval.requested").length;
    const again: any = await approver.client.request(
      "agent",
      { message: `[tool:exec:${cmd}]`, idempotencyKey: randomUUID(), sessionKey: "appr-always-2" },
      { expectFinal: true },
    );
    expect(again.result.payloads.map((p: any) => p.text).join("")).toContain("always");
    expect(approvalEvents(approver.events, "exec.approval.requested").length).toBe(before);
    await approver.client.close();
  });
});
