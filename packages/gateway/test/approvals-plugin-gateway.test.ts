// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Plugin approvals through a real gateway process: a plugin's `before_tool_call` returns `requireApproval`, the
 * call waits, `plugin.approval.requested` reaches the operator.approvals client (with the plugin's title, severity
 * and the decisions it offers), and `plugin.approval.resolve` or `/approve` decides it. A decision the plugin did
 * not offer is refused; a timeout with timeoutBehavior allow runs the call.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { EventFrame } from "../src/protocol/frames.js";
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
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  const home = makeHome({ mockBaseUrl: mock.baseUrl, config: { tools: { enabled: true } } });
  mkdirSync(join(home, "plugins"), { recursive: true });
  writeFileSync(
    join(home, "plugins", "gate.mjs"),
    `export default { id: "gate", register(api) {
  api.on("before_tool_call", (e) => {
    const cmd = e.params.command ?? "";
    if (cmd.includes("ask-me")) return { requireApproval: { title: "Run a gated command?", description: cmd, severity: "critical", allowedDecisions: ["allow-once", "deny"] } };
    if (cmd.includes("ask-briefly")) return { requireApproval: { title: "Quick one", timeoutMs: 300, timeoutBehavior: "allow" } };
    return undefined;
  });
} };
`,
  );
  gw = await spawnGateway(home);
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

async function pluginRequest(events: EventFrame[], toolCallTitle: string, after: number): Promise<any> {
  const find = () =>
    events
      .slice(after)
      .find((e) => e.event === "plugin.approval.requested" && (e.payload as any).request.title === toolCallTitle);
  await until(() => find() !== undefined, 20_000, "plugin.approval.requested");
  return find()?.payload;
}

it("requireApproval pauses the call; plugin.approval.resolve decides, only offered decisions", async () => {
  const { client, events } = await connectClient(gw.url, { scopes: APPROVER });
  const word = `gated-${randomUUID().slice(0, 8)}`;
  const final = client.request(
    "agent",
    { message: `[tool:exec:echo ${word} ask-me]`, idempotencyKey: randomUUID(), sessionKey: "plugin-appr" },
    { expectFinal: true },
  );
  const req = await pluginRequest(events, "Run a gated command?", 0);
  expect(req.request).toMatchObject({
    pluginId: "gate",
    description: `echo ${word} ask-me`,
    severity: "critical",
    toolName: "exec",
    allowedDecisions: ["allow-once", "deny"],
  });
  const plugins: any = await client.request("plugin.approval.list", {});
  expect(plugins.approvals.map((a: any) => a.id)).toEqual([req.id]);
  const execs: any = await client.request("exec.approval.list", {});
  expect(execs.approvals).toEqual([]);
  await expect(client.request("exec.approval.resolve", { id: req.id, decision: "allow-once" })).rejects.toThrow(
    /no pending approval/,
  );
  await expect(client.request("plugin.approval.resolve", { id: req.id, decision: "allow-always" })).rejects.toThrow(
    /not offered/,
  );
  await client.request("plugin.approval.resolve", { id: req.id, decision: "allow-once" });
  const end: any = await final;
  expect(end.result.payloads.map((p: any) => p.text).join("")).toContain(`done: ${word} ask-me`);
  await until(() => events.some((e) => e.event === "plugin.approval.resolved" && (e.payload as any).id === req.id));
  await client.close();
});

it("/approve decides a plugin approval too (deny reaches the model)", async () => {
  const { client, events } = await connectClient(gw.url, { scopes: APPROVER });
  const final = client.request(
    "agent",
    { message: "[tool:exec:echo ask-me twice]", idempotencyKey: randomUUID(), sessionKey: "plugin-appr-chat" },
    { expectFinal: true },
  );
  const req = await pluginRequest(events, "Run a gated command?", 0);
  const answer: any = await client.request(
    "agent",
    { message: `/approve ${req.id} deny`, idempotencyKey: randomUUID(), sessionKey: "plugin-appr-chat" },
    { expectFinal: true },
  );
  expect(answer.result.payloads[0].text).toBe(`Approval ${req.id}: deny.`);
  const end: any = await final;
  expect(end.result.payloads.map((p: any) => p.text).join("")).toContain("Denied: the user did not allow running");
  await client.close();
});

it("a plugin approval with timeoutBehavior allow runs the call when nobody decides in time", async () => {
  const { client, events } = await connectClient(gw.url, { scopes: APPROVER });
  const end: any = await client.request(
    "agent",
    { message: "[tool:exec:echo ask-briefly]", idempotencyKey: randomUUID(), sessionKey: "plugin-appr-timeout" },
    { expectFinal: true },
  );
  expect(end.result.payloads.map((p: any) => p.text).join("")).toContain("done: ask-briefly");
  const req = await pluginRequest(events, "Quick one", 0);
  expect(req.request.timeoutBehavior).toBe("allow");
  expect(events.find((e) => e.event === "plugin.approval.resolved")?.payload).toMatchObject({
    id: req.id,
    decision: "allow-once",
    cause: "timeout",
  });
  await client.close();
});
