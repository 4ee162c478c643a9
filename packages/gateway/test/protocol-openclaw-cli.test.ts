// biome-ignore-all lint/suspicious/noExplicitAny: wire frames are inspected structurally.
/**
 * The reference CLI `openclaw@2026.9.6` against a real Tiller gateway process, by replaying the frames that CLI
 * actually sent (captured through a logging proxy, fixtures/openclaw-cli-2026.9.6.jsonl; the token is masked as
 * "<TOKEN>"). Each test checks the fields of the answers that the CLI reads to print its output and pick its exit
 * code, so a gateway change that would break `openclaw agent` / `openclaw health` fails here without Node 24.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { type GatewayProc, makeHome, removeHome, spawnGateway, startMockProvider } from "./gateway-harness.js";

const TOKEN = "oc-check-token";
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "openclaw-cli-2026.9.6.jsonl");

interface Captured {
  cmd: string;
  argv: string;
  conn: number;
  frame: { type: "req"; id: string; method: string; params?: any };
}

const captured: Captured[] = readFileSync(FIXTURE, "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Captured);

/** The request frames of one CLI command, one array per WebSocket connection it opened (in order). */
function connectionsOf(cmd: string): Captured["frame"][][] {
  const rows = captured.filter((c) => c.cmd === cmd);
  if (rows.length === 0) throw new Error(`fixture has no command "${cmd}"`);
  const out: Captured["frame"][][] = [];
  for (const r of rows) {
    const frame = structuredClone(r.frame);
    if (frame.params?.auth?.token === "<TOKEN>") frame.params.auth.token = TOKEN;
    (out[r.conn - 1] ??= []).push(frame);
  }
  return out;
}

interface Replay {
  /** Every frame the server sent on this connection, in order. */
  frames: any[];
  hello: any;
  /** The `res` frames answering each request id, in order (an `agent` request gets two). */
  answers: Map<string, any[]>;
}

/**
 * Plays one captured connection the way the CLI does: wait for connect.challenge, send connect, then each
 * request in turn. An `agent` request is done at its second answer (the CLI's expectFinal), so is `chat.send` (the
 * end of its run); others at the first.
 */
function replay(url: string, requests: Captured["frame"][], timeoutMs = 15_000): Promise<Replay> {
  const ws = new WebSocket(url);
  const frames: any[] = [];
  const answers = new Map<string, any[]>();
  let hello: any;
  let step = 0;
  return new Promise<Replay>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`replay timed out at request ${step}: ${JSON.stringify(requests[step]).slice(0, 120)}`));
    }, timeoutMs);
    const sendNext = (): void => {
      const req = requests[step];
      if (!req) {
        clearTimeout(timer);
        ws.close();
        resolve({ frames, hello, answers });
        return;
      }
      ws.send(JSON.stringify(req));
    };
    ws.on("error", reject);
    ws.on("message", (data) => {
      const f = JSON.parse(String(data));
      frames.push(f);
      if (f.type === "event" && f.event === "connect.challenge" && step === 0) return sendNext();
      if (f.type !== "res") return;
      const req = requests[step];
      if (!req || f.id !== req.id) return;
      const list = answers.get(f.id) ?? [];
      list.push(f);
      answers.set(f.id, list);
      if (req.method === "connect") hello = f.payload;
      // `agent` and `chat.send` answer twice; the replay waits for the end of the run to see its events too.
      const twice = req.method === "agent" || req.method === "chat.send";
      const final = !twice || !f.ok || (f.payload?.status !== "accepted" && f.payload?.status !== "started");
      if (final) {
        step++;
        sendNext();
      }
    });
  });
}

/** The request of `method` in a connection (its id keys `answers`). */
function req(conn: Captured["frame"][], method: string): Captured["frame"] {
  const r = conn.find((f) => f.method === method);
  if (!r) throw new Error(`no ${method} request in the captured connection`);
  return r;
}

/** What `openclaw agent` prints for a final payload: each payloads[].text, right-trimmed. */
function printedText(final: any): string {
  return (final.result?.payloads ?? []).map((p: any) => String(p.text ?? "").trimEnd()).join("\n");
}

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await spawnGateway(makeHome({ mockBaseUrl: mock.baseUrl, config: { gateway: { auth: { token: TOKEN } } } }));
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

describe("openclaw agent (replayed)", () => {
  it('`agent --message "hello json"`: agents.list names one agent, the run is acked then answered with the reply', async () => {
    const [listConn, runConn] = connectionsOf("agent-default") as [Captured["frame"][], Captured["frame"][]];
    const first = await replay(gw.url, listConn);
    expect(first.hello).toMatchObject({
      type: "hello-ok",
      protocol: 4,
      policy: { tickIntervalMs: expect.any(Number) },
    });
    const list = first.answers.get(req(listConn, "agents.list").id)?.[0];
    // ownership "sole" makes the CLI send agentId "main" (no sessionKey) on its next connection.
    expect(list).toMatchObject({
      ok: true,
      payload: { defaultId: "main", ownership: "sole", agents: [{ id: "main" }] },
    });

    const agentReq = req(runConn, "agent");
    const second = await replay(gw.url, runConn);
    const [ack, final] = second.answers.get(agentReq.id) ?? [];
    expect(ack).toMatchObject({ ok: true, payload: { runId: agentReq.params.idempotencyKey, status: "accepted" } });
    expect(final).toMatchObject({ ok: true, payload: { runId: agentReq.params.idempotencyKey, status: "ok" } });
    expect(printedText(final.payload)).toBe("echo: hello json");
    // The ack comes before the run's first event (a free lane starts the run at once; the reference acks first).
    const ackAt = second.frames.indexOf(ack);
    const firstEventAt = second.frames.findIndex((f) => f.type === "event" && f.payload?.runId === ack.payload.runId);
    expect(firstEventAt).toBeGreaterThan(ackAt);
    // The CLI reports a gap when frame-level seq skips: events on one connection count 1, 2, 3, …
    const seqs = second.frames.filter((f) => f.type === "event" && f.seq !== undefined).map((f) => f.seq);
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("`--to` (agentId and sessionKey together) and `--session-key agent:main:work` both run on their session", async () => {
    const [, toConn] = connectionsOf("agent-to") as [Captured["frame"][], Captured["frame"][]];
    const to = await replay(gw.url, toConn);
    const toFinal = to.answers.get(req(toConn, "agent").id)?.[1];
    expect(toFinal?.payload.status).toBe("ok");
    expect(printedText(toFinal.payload)).toBe("echo: hello to");

    const [keyConn] = connectionsOf("agent-session-key") as [Captured["frame"][]];
    const key = await replay(gw.url, keyConn);
    const [keyAck, keyFinal] = key.answers.get(req(keyConn, "agent").id) ?? [];
    expect(keyAck.payload).toMatchObject({ status: "accepted", sessionKey: "agent:main:work" });
    expect(printedText(keyFinal.payload)).toBe("echo: hello key");

    const [listConn] = connectionsOf("call-sessions-list") as [Captured["frame"][]];
    const listed = await replay(gw.url, listConn);
    const keys = listed.answers.get(req(listConn, "sessions.list").id)?.[0].payload.sessions.map((s: any) => s.key);
    expect(keys).toEqual(expect.arrayContaining(["agent:main:main", "agent:main:work"]));
  });

  it("`--model`: the gateway-client/backend connection with operator.admin is accepted and runs the override", async () => {
    const [, runConn] = connectionsOf("agent-model") as [Captured["frame"][], Captured["frame"][]];
    expect(req(runConn, "connect").params).toMatchObject({
      client: { id: "gateway-client", mode: "backend" },
      scopes: ["operator.admin"],
    });
    // The capture ran against the offline model; this gateway's provider is the loopback mock.
    req(runConn, "agent").params.model = "mock/mock-1";
    const run = await replay(gw.url, runConn);
    const final = run.answers.get(req(runConn, "agent").id)?.[1];
    expect(final?.payload.status).toBe("ok");
    expect(printedText(final.payload)).toBe("echo: hello model");
    expect(final.payload.result.meta.agentMeta).toMatchObject({ model: "mock-1" });
  });
});

describe("openclaw gateway call chat.send (replayed)", () => {
  it('answers "started" before the run\'s first event, then ends the run ok', async () => {
    const [conn] = connectionsOf("call-chat-send") as [Captured["frame"][]];
    const send = req(conn, "chat.send");
    const r = await replay(gw.url, conn);
    const [started, done] = r.answers.get(send.id) ?? [];
    expect(started).toMatchObject({ ok: true, payload: { runId: "chat-1", status: "started" } });
    expect(done).toMatchObject({ ok: true, payload: { runId: "chat-1", status: "ok" } });
    const firstEventAt = r.frames.findIndex((f) => f.type === "event" && f.payload?.runId === "chat-1");
    expect(firstEventAt).toBeGreaterThan(r.frames.indexOf(started));
    const finalChat = r.frames.find((f) => f.event === "chat" && f.payload?.state === "final");
    expect(finalChat?.payload.message.content).toEqual([{ type: "text", text: "echo: hi chat" }]);
  });
});

describe("openclaw health (replayed)", () => {
  it("carries every field `openclaw health` prints: agents[].agentId/isDefault/heartbeat/sessions, recent[].age", async () => {
    // At least one session exists (the runs above), so the "- <key> (Nm ago)" lines are printed.
    const [conn] = connectionsOf("health") as [Captured["frame"][]];
    expect(req(conn, "connect").params.client).toMatchObject({ id: "gateway-client", displayName: "gateway:health" });
    const r = await replay(gw.url, conn);
    const summary = r.answers.get(req(conn, "health").id)?.[0].payload;
    expect(summary).toMatchObject({ ok: true, defaultAgentId: "main", durationMs: expect.any(Number) });
    const main = summary.agents.find((a: any) => a.agentId === summary.defaultAgentId);
    expect(main).toMatchObject({ agentId: "main", isDefault: true, heartbeat: { everyMs: null } });
    // The CLI's own lines, built by its rules (a missing field shows up as "undefined" or "NaN").
    const agentsLine = `Agents: ${summary.agents.map((a: any) => (a.isDefault ? `${a.agentId} (default)` : a.agentId)).join(", ")}`;
    expect(agentsLine).toBe("Agents: main (default)");
    expect(main.sessions).toMatchObject({ path: expect.any(String), count: expect.any(Number) });
    expect(main.sessions.recent.length).toBeGreaterThan(0);
    const lines = main.sessions.recent.map(
      (s: any) => `- ${s.key} (${s.age === null ? "no activity" : `${Math.round(s.age / 6e4)}m ago`})`,
    );
    expect(lines.join("\n")).not.toMatch(/NaN|undefined/);
    expect(lines).toContain("- agent:main:work (0m ago)");
    for (const s of [...main.sessions.recent, ...summary.sessions.recent]) expect(s.age).toBeGreaterThanOrEqual(0);
  });

  it("`gateway call health` (cli/cli, operator.read, params {}) gets the same summary", async () => {
    const [conn] = connectionsOf("call-health") as [Captured["frame"][]];
    const r = await replay(gw.url, conn);
    const answer = r.answers.get(req(conn, "health").id)?.[0];
    expect(answer).toMatchObject({ ok: true, payload: { ok: true, agents: [{ agentId: "main", isDefault: true }] } });
  });
});
