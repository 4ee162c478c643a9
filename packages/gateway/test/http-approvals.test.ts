// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * An HTTP run is a normal gateway run, approvals included: a `/v1/chat/completions` request (the official `openai`
 * SDK) whose tool call needs an exec approval waits until an operator on the WebSocket decides, then completes
 * with what the command printed (allowed) or with the denial the model read (denied, streamed).
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
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

const TOKEN = "http-approvals-token";
const APPROVER = ["operator.read", "operator.write", "operator.approvals"];

let mock: MockServer;
let gw: GatewayProc;
let openai: OpenAI;

beforeAll(async () => {
  mock = await startMockProvider();
  const home = makeHome({
    mockBaseUrl: mock.baseUrl,
    config: {
      tools: { enabled: true },
      gateway: { auth: { token: TOKEN }, http: { endpoints: { chatCompletions: { enabled: true } } } },
    },
  });
  writeFileSync(join(home, "exec-approvals.json"), JSON.stringify({ security: "allowlist", ask: "on-miss" }), {
    mode: 0o600,
  });
  gw = await spawnGateway(home);
  openai = new OpenAI({ baseURL: `http://127.0.0.1:${gw.port}/v1`, apiKey: TOKEN, maxRetries: 0, timeout: 60_000 });
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

async function requestFor(events: EventFrame[], cmd: string): Promise<any> {
  const find = () =>
    events.find((e) => e.event === "exec.approval.requested" && (e.payload as any).request.command === cmd);
  await until(() => find() !== undefined, 20_000, `exec.approval.requested for ${cmd}`);
  return find()?.payload;
}

it("chat.completions.create waits for the WS operator's allow-once, then answers with the command's output", async () => {
  const { client, events } = await connectClient(gw.url, { token: TOKEN, scopes: APPROVER });
  const word = `http-${randomUUID().slice(0, 8)}`;
  const cmd = `echo ${word}`;
  const completion = openai.chat.completions.create({
    model: "tiller",
    messages: [{ role: "user", content: `[tool:exec:${cmd}]` }],
  });
  const req = await requestFor(events, cmd);
  expect(req.request).toMatchObject({ command: cmd, toolName: "exec" });
  let settled = false;
  void completion.then(() => (settled = true));
  // Still waiting on the person: the HTTP answer has not come.
  const pending: any = await client.request("exec.approval.list", {});
  expect(pending.approvals.map((a: any) => a.id)).toContain(req.id);
  expect(settled).toBe(false);
  await client.request("exec.approval.resolve", { id: req.id, decision: "allow-once" });
  const done = await completion;
  expect(done.choices[0]?.message.content).toMatch(new RegExp(`^done: ${word}\\s+Exit code: 0$`));
  expect(done.choices[0]?.finish_reason).toBe("stop");
  await client.close();
});

it("a streamed completion whose call is denied streams the model's answer about the denial and ends", async () => {
  const { client, events } = await connectClient(gw.url, { token: TOKEN, scopes: APPROVER });
  const cmd = `echo never-${randomUUID().slice(0, 8)}`;
  const stream = await openai.chat.completions.create({
    model: "tiller",
    stream: true,
    messages: [{ role: "user", content: `[tool:exec:${cmd}]` }],
  });
  const reading = (async () => {
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    return text;
  })();
  const req = await requestFor(events, cmd);
  await client.request("exec.approval.resolve", { id: req.id, decision: "deny", reason: "not over HTTP" });
  const text = await reading;
  expect(text).toContain("Denied: the user did not allow running");
  expect(text).toContain("not over HTTP");
  await client.close();
});
