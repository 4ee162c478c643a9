// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Everything a real gateway process sends is valid under its own protocol schema: hello-ok, the answer of every
 * catalog method, error responses, and every event of runs that stream text, call a tool, time out, are
 * answered by a gateway command, and of a manual compaction.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import { compileSchema, HelloOkSchema, METHOD_SPECS } from "../src/protocol/schema/index.js";
import {
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
} from "./gateway-harness.js";
import { FrameChecker } from "./protocol-frame-checker.js";

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  const home = makeHome({ mockBaseUrl: mock.baseUrl, config: { tools: { enabled: true } } });
  gw = await spawnGateway(home);
  writeFileSync(join(home, "workspace-note.txt"), "note");
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

/** A client whose every frame, both ways, goes through the checker. */
async function checkedClient(checker: FrameChecker, caps: string[] = ["tiller.all-events"]): Promise<GatewayClient> {
  const { client } = await connectClient(gw.url, { caps });
  expect(compileSchema(HelloOkSchema).issue(client.hello)).toBeUndefined();
  client.ws.on("message", (d) => checker.check(JSON.parse(String(d)), "in"));
  const send = client.ws.send.bind(client.ws);
  client.ws.send = ((data: string, ...rest: any[]) => {
    checker.check(JSON.parse(data), "out");
    return (send as any)(data, ...rest);
  }) as typeof client.ws.send;
  return client;
}

describe("a real gateway's frames", () => {
  it("hello-ok lists exactly the methods of the catalog, and each is served with the catalog's scope", async () => {
    const { client } = await connectClient(gw.url, { scopes: ["operator.read"] });
    expect([...(client.hello?.features.methods ?? [])].sort()).toEqual(Object.keys(METHOD_SPECS).sort());
    // A read-only connection is refused exactly the methods the catalog marks write or admin.
    for (const [name, spec] of Object.entries(METHOD_SPECS)) {
      if (spec.scope === "operator.read") continue;
      await expect(client.request(name, {})).rejects.toMatchObject({
        error: { details: { code: "SCOPE_DENIED", required: spec.scope } },
      });
    }
    await client.close();
  });

  it("hello-ok, every method's answer and every event of several kinds of run match the schema", async () => {
    const checker = new FrameChecker();
    const client = await checkedClient(checker);
    const events: any[] = [];
    client.ws.on("message", (d) => {
      const f = JSON.parse(String(d));
      if (f.type === "event") events.push(f);
    });
    const s = `live-${randomUUID().slice(0, 8)}`;
    await client.request(
      "agent",
      { message: "[slow:5:5]", idempotencyKey: randomUUID(), sessionKey: s },
      { expectFinal: true },
    );
    await client.request(
      "agent",
      { message: "[tool:read:workspace-note.txt]", idempotencyKey: randomUUID(), sessionKey: s },
      { expectFinal: true },
    );
    await client.request(
      "agent",
      { message: "[hang]", idempotencyKey: randomUUID(), sessionKey: `${s}-t`, timeout: 1 },
      { expectFinal: true },
    );
    await client.request(
      "chat.send",
      { sessionKey: s, message: "/status", idempotencyKey: randomUUID() },
      { expectFinal: true },
    );
    await client.request(
      "chat.send",
      { sessionKey: s, message: "hi chat", idempotencyKey: randomUUID() },
      { expectFinal: true },
    );
    const runId = randomUUID();
    await client.request("agent", { message: "again", idempotencyKey: runId, sessionKey: s }, { expectFinal: true });
    await client.request("agent.wait", { runId });
    await client.request("agent.wait", { runId: "never-started", timeoutMs: 10 });
    for (const m of ["health", "status", "agents.list", "models.list"]) await client.request(m, {});
    await client.request("chat.history", { sessionKey: s, limit: 10 });
    await client.request("chat.abort", { sessionKey: s });
    await client.request("sessions.list", {});
    await client.request("sessions.describe", { key: s });
    await client.request("sessions.describe", { key: "no-such-session" });
    await client.request("sessions.patch", { key: s, label: "live", queueMode: "collect", thinkingLevel: null });
    await client.request("sessions.subscribe", { key: s });
    await client.request("sessions.messages.subscribe", { key: s });
    await client.request("sessions.messages.unsubscribe", { key: s });
    await client.request("sessions.compact", { key: s });
    await client.request("sessions.reset", { key: s });
    await client.request("sessions.delete", { key: s });
    await expect(client.request("agent", { message: "" })).rejects.toThrow(/invalid agent params/);
    await expect(client.request("no.such", {})).rejects.toThrow(/unknown method/);
    await client.close();

    // Nothing the gateway sent breaks the schema; of what the client sent, only the two deliberately bad requests.
    expect(checker.problems.filter((p) => !p.startsWith("out "))).toEqual([]);
    expect(checker.problems.filter((p) => p.startsWith("out "))).toEqual([
      expect.stringMatching(/^out agent params: idempotencyKey: missing/),
      "out request for a method outside the catalog: no.such",
    ]);
    // Every catalog method was answered and checked; the runs streamed every kind of agent event.
    const streams = new Set(events.filter((e) => e.event === "agent").map((e) => e.payload.stream));
    for (const st of ["lifecycle", "assistant", "tool", "usage"]) expect(streams).toContain(st);
    const phases = new Set(events.filter((e) => e.payload?.stream === "lifecycle").map((e) => e.payload.data.phase));
    for (const p of ["start", "model", "finishing", "end"]) expect(phases).toContain(p);
    expect(events.some((e) => e.event === "chat" && e.payload.state === "final")).toBe(true);
    expect(checker.checkedPayloads).toBeGreaterThan(Object.keys(METHOD_SPECS).length * 2);
  }, 60_000);
});
