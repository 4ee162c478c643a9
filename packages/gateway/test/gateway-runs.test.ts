// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Runs end to end: a real gateway process, real WebSocket clients, a loopback OpenAI-compatible mock
 * provider. agent → accepted → gap-free events → final → agent.wait; idempotency; per-session
 * serialization and the global cap; wait timeout, run timeout, abort, disconnect; the tiller-agent CLI.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  runAgentCli,
  spawnGateway,
  startMockProvider,
  until,
} from "./gateway-harness.js";

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  const home = makeHome({
    mockBaseUrl: mock.baseUrl,
    config: {
      gateway: { maxBufferedBytes: 64 * 1024 },
      tools: { enabled: true },
      agents: { defaults: { maxConcurrent: 2 } },
      messages: { queue: { mode: "followup", debounceMs: 150 } },
    },
  });
  gw = await spawnGateway(home);
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

const key = () => randomUUID();
const userTexts = (body: any): string[] =>
  (body.messages as any[])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((c: any) => c.text).join("")));

describe("agent run", () => {
  it("acks at once, streams gap-free events, answers again with payloads, and agent.wait reports ok", async () => {
    const { client, events } = await connectClient(gw.url, { scopes: ["operator.write"] });
    const runId = key();
    let ack: any;
    const final: any = await client.request(
      "agent",
      { message: "hello", idempotencyKey: runId, sessionKey: "e2e-basic" },
      { expectFinal: true, onAccepted: (p) => (ack = p) },
    );
    expect(ack).toMatchObject({ runId, status: "accepted", sessionKey: "agent:main:e2e-basic" });
    expect(typeof ack.acceptedAt).toBe("number");
    expect(final).toMatchObject({ runId, status: "ok", summary: "completed" });
    expect(final.result.payloads).toEqual([{ text: "echo: hello", mediaUrl: null }]);
    expect(final.result.meta.agentMeta).toMatchObject({ provider: "mock", model: "mock-1" });
    expect(final.result.meta.agentMeta.usage).toMatchObject({ input: 10, output: 5 });
    expect(final.result.meta.durationMs).toBeGreaterThanOrEqual(0);

    const ev = agentEvents(events, runId);
    expect(ev.map((e) => e.seq)).toEqual(ev.map((_, i) => i + 1));
    expect(ev[0]).toMatchObject({ stream: "lifecycle", data: { phase: "start" } });
    expect(ev.at(-1)).toMatchObject({ stream: "lifecycle", data: { phase: "end" } });
    const assistant = ev.filter((e) => e.stream === "assistant");
    expect(assistant.map((e) => e.data.delta).join("")).toBe("echo: hello");
    // A v4 client gets the cumulative text in the chat deltas, not again in every assistant event.
    expect(assistant.every((e) => e.data.text === undefined)).toBe(true);
    const chat = events.filter((e) => e.event === "chat").map((e) => e.payload as any);
    expect(chat.at(-1)).toMatchObject({
      runId,
      state: "final",
      message: { content: [{ type: "text", text: "echo: hello" }] },
    });
    // Frame-level seq: +1 per event on this connection.
    const seqs = events.filter((e) => e.seq !== undefined).map((e) => e.seq as number);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] as number) + i));

    const wait: any = await client.request("agent.wait", { runId, timeoutMs: 1000 });
    expect(wait).toMatchObject({ runId, status: "ok" });
    expect(wait.endedAt).toBeGreaterThanOrEqual(wait.startedAt);
    await client.close();
  });

  it("never starts a second run for a retried idempotencyKey; the retry gets the first run's answer", async () => {
    const { client } = await connectClient(gw.url);
    const runId = key();
    const before = mock.requests.length;
    const params = { message: `retry me ${runId}`, idempotencyKey: runId, sessionKey: "e2e-idem" };
    const [a, b]: any[] = await Promise.all([
      client.request("agent", params, { expectFinal: true }),
      client.request("agent", params, { expectFinal: true }),
    ]);
    const c: any = await client.request("agent", params, { expectFinal: true });
    expect(a.runId).toBe(runId);
    expect(b).toEqual(a);
    expect(c.result.payloads).toEqual(a.result.payloads);
    const calls = mock.requests.slice(before).filter((r) => userTexts(r.body).some((t) => t.includes(runId)));
    expect(calls).toHaveLength(1);
    await client.close();
  });

  it("serializes runs of one session and runs other sessions in parallel up to the cap (2)", async () => {
    const { client, events } = await connectClient(gw.url, { caps: ["tiller.all-events"] });
    const ids = [key(), key(), key(), key()];
    const sessions = ["e2e-par-a", "e2e-par-a", "e2e-par-b", "e2e-par-c"];
    await Promise.all(
      ids.map((id, i) =>
        client.request(
          "agent",
          { message: "[slow:4:60]", idempotencyKey: id, sessionKey: sessions[i] },
          { expectFinal: true },
        ),
      ),
    );
    const span = (id: string) => {
      const ev = agentEvents(events, id).filter((e) => e.stream === "lifecycle");
      return { start: ev[0]?.data.startedAt as number, end: ev.at(-1)?.data.endedAt as number };
    };
    const spans = ids.map(span);
    // Same session: the second starts only after the first ended.
    expect(spans[1]?.start).toBeGreaterThanOrEqual(spans[0]?.end as number);
    // Never more than 2 at once; and parallelism happened (some overlap).
    const points = spans.flatMap((s) => [
      { t: s.start, d: 1 },
      { t: s.end, d: -1 },
    ]);
    points.sort((x, y) => x.t - y.t || x.d - y.d);
    let live = 0;
    let peak = 0;
    for (const p of points) {
      live += p.d;
      peak = Math.max(peak, live);
    }
    expect(peak).toBe(2);
    await client.close();
  });

  it("agent.wait timing out ends only the wait; the run finishes and a later wait sees ok", async () => {
    const { client } = await connectClient(gw.url);
    const runId = key();
    const done = client.request(
      "agent",
      { message: "[slow:6:80]", idempotencyKey: runId, sessionKey: "e2e-wait" },
      { expectFinal: true },
    );
    const early: any = await client.request("agent.wait", { runId, timeoutMs: 100 });
    expect(early.status).toBe("timeout");
    expect(early.endedAt).toBeUndefined();
    expect(((await done) as any).status).toBe("ok");
    expect(await client.request("agent.wait", { runId })).toMatchObject({ status: "ok" });
    await client.close();
  });

  it("aborts a run at its timeout (per-run timeout), reports it, and frees the session for the next run", async () => {
    const { client, events } = await connectClient(gw.url);
    const runId = key();
    const final: any = await client.request(
      "agent",
      { message: "[hang]", idempotencyKey: runId, sessionKey: "e2e-timeout", timeout: 1 },
      { expectFinal: true },
    );
    expect(final).toMatchObject({ status: "timeout", summary: "timeout" });
    const wait: any = await client.request("agent.wait", { runId });
    expect(wait.status).toBe("timeout");
    expect(wait.endedAt).toBeGreaterThan(0);
    expect(agentEvents(events, runId).at(-1)).toMatchObject({
      stream: "lifecycle",
      data: { phase: "end", aborted: true },
    });
    const next: any = await client.request(
      "agent",
      { message: "after", idempotencyKey: key(), sessionKey: "e2e-timeout" },
      { expectFinal: true },
    );
    expect(next.status).toBe("ok");
    await client.close();
  });

  it("chat.abort stops the active run ({aborted:true}); /stop does the same from a message", async () => {
    const { client, events } = await connectClient(gw.url);
    const runId = key();
    const final = client.request(
      "agent",
      { message: "[hang]", idempotencyKey: runId, sessionKey: "e2e-abort" },
      { expectFinal: true },
    );
    await until(() => agentEvents(events, runId).some((e) => e.stream === "assistant"), 10_000, "first delta");
    const res: any = await client.request("chat.abort", { sessionKey: "e2e-abort", runId });
    expect(res).toMatchObject({ aborted: true, runIds: [runId] });
    expect(await final).toMatchObject({ status: "error", summary: "aborted" });
    expect(
      events.some(
        (e) => e.event === "chat" && (e.payload as any).runId === runId && (e.payload as any).state === "aborted",
      ),
    ).toBe(true);
    expect(await client.request("agent.wait", { runId })).toMatchObject({ status: "error", error: "aborted" });

    const run2 = key();
    const f2 = client.request(
      "agent",
      { message: "[hang]", idempotencyKey: run2, sessionKey: "e2e-abort" },
      { expectFinal: true },
    );
    await until(() => agentEvents(events, run2).some((e) => e.stream === "assistant"), 10_000, "first delta");
    const stop: any = await client.request(
      "agent",
      { message: "/stop", idempotencyKey: key(), sessionKey: "e2e-abort" },
      { expectFinal: true },
    );
    expect(stop.result.payloads[0].text).toBe("Stopped.");
    expect(await f2).toMatchObject({ summary: "aborted" });
    await client.close();
  });

  it("keeps running when the client disconnects; the result stays readable", async () => {
    const a = await connectClient(gw.url);
    const runId = key();
    await new Promise<void>((resolve) => {
      void a.client
        .request(
          "agent",
          { message: "[slow:5:50]", idempotencyKey: runId, sessionKey: "e2e-disc" },
          { expectFinal: true, onAccepted: () => resolve() },
        )
        .catch(() => {});
    });
    await a.client.close();
    const b = await connectClient(gw.url);
    expect(await b.client.request("agent.wait", { runId, timeoutMs: 10_000 })).toMatchObject({ status: "ok" });
    const history: any = await b.client.request("chat.history", { sessionKey: "e2e-disc" });
    expect(history.messages.map((m: any) => m.role)).toEqual(["user", "assistant"]);
    expect(history.messages[1].content[0].text).toBe("d0 d1 d2 d3 d4 ");
    await b.client.close();
  });

  it("a provider error ends the run with status error and the model's message in the payloads", async () => {
    const { client } = await connectClient(gw.url);
    const final: any = await client.request(
      "agent",
      { message: "[fail]", idempotencyKey: key(), sessionKey: "e2e-fail" },
      { expectFinal: true },
    );
    expect(final.status).toBe("error");
    expect(final.summary).toMatch(/mock provider refused/);
    expect(final.result.payloads.at(-1)).toMatchObject({ isError: true });
    await client.close();
  });

  it("sessions.list shows the sessions with token counters and their last run", async () => {
    const { client } = await connectClient(gw.url);
    const list: any = await client.request("sessions.list", { limit: 100 });
    const basic = list.sessions.find((s: any) => s.key === "agent:main:e2e-basic");
    expect(basic).toMatchObject({ agentId: "main", inputTokens: 10, outputTokens: 5, lastRun: { status: "ok" } });
    expect(basic.sessionFile).toMatch(/\.jsonl$/);
    // agent with a sessionId continues that session.
    const again: any = await client.request(
      "agent",
      { message: "by id", idempotencyKey: key(), sessionId: basic.sessionId },
      { expectFinal: true, onAccepted: (p: any) => expect(p.sessionKey).toBe("agent:main:e2e-basic") },
    );
    expect(again.result.meta.agentMeta.sessionId).toBe(basic.sessionId);
    await client.close();
  });
});

describe("tool stream", () => {
  it("bridges a tool call to tool events (start, result) and answers with the model's follow-up", async () => {
    mkdirSync(join(gw.home, "workspace"), { recursive: true });
    writeFileSync(join(gw.home, "workspace", "note.txt"), "the secret word is tiller\n");
    const { client, events } = await connectClient(gw.url);
    const runId = key();
    const final: any = await client.request(
      "agent",
      { message: "[tool:read:note.txt]", idempotencyKey: runId, sessionKey: "e2e-tool" },
      { expectFinal: true },
    );
    expect(final.status).toBe("ok");
    expect(final.result.payloads.map((p: any) => p.text).join("\n")).toContain("the secret word is tiller");
    const ev = agentEvents(events, runId);
    expect(ev.map((e) => e.seq)).toEqual(ev.map((_, i) => i + 1));
    const tool = ev.filter((e) => e.stream === "tool").map((e) => e.data);
    expect(tool[0]).toMatchObject({
      phase: "start",
      name: "read",
      toolCallId: "call_tool1",
      args: { path: "note.txt" },
    });
    expect(tool.at(-1)).toMatchObject({ phase: "result", name: "read", toolCallId: "call_tool1", isError: false });
    await client.close();
  });
});

describe("chat and session methods", () => {
  it("chat.send answers started then the end, with chat events; reset starts a new session; delete removes it", async () => {
    const { client, events } = await connectClient(gw.url);
    const runId = key();
    let first: any;
    const end: any = await client.request(
      "chat.send",
      { sessionKey: "e2e-chat", message: "via chat", idempotencyKey: runId },
      { expectFinal: true, onAccepted: (p) => (first = p) },
    );
    expect(first).toEqual({ runId, status: "started" });
    expect(end).toMatchObject({ runId, status: "ok" });
    const chat = events.filter((e) => e.event === "chat").map((e) => e.payload as any);
    expect(chat.at(-1)).toMatchObject({ state: "final", message: { content: [{ text: "echo: via chat" }] } });
    expect(
      await client.request("chat.send", { sessionKey: "e2e-chat", message: "x", idempotencyKey: runId }),
    ).toMatchObject({
      runId,
      cached: true,
    });

    const before: any = await client.request("chat.history", { sessionKey: "e2e-chat" });
    expect(before.messages).toHaveLength(2);
    const reset: any = await client.request("sessions.reset", { key: "e2e-chat" });
    expect(reset.entry.sessionId).not.toBe(before.sessionId);
    expect(((await client.request("chat.history", { sessionKey: "e2e-chat" })) as any).messages).toHaveLength(0);
    expect(await client.request("sessions.delete", { key: "e2e-chat" })).toMatchObject({ deleted: true });
    await expect(client.request("sessions.reset", { key: "e2e-chat" })).rejects.toMatchObject({
      error: { details: { code: "SESSION_NOT_FOUND" } },
    });
    await client.close();
  });
  // A client that stops reading: test/gateway-slow-client-bounded.test.ts (every text view, and requests).
});

describe("sessions.compact", () => {
  it("compacts a session's history through its engine, emits the compaction stream and counts it", async () => {
    const { client, events } = await connectClient(gw.url);
    await client.request(
      "agent",
      { message: "short", idempotencyKey: key(), sessionKey: "e2e-compact-none" },
      { expectFinal: true },
    );
    const nothing: any = await client.request("sessions.compact", { key: "e2e-compact-none" });
    expect(nothing).toMatchObject({ ok: true, compacted: false });
    await client.request("sessions.patch", { key: "e2e-compact", model: "mock/mock-small" });
    for (const m of ["first", "second", "third", "fourth"].map((w) => `${w} topic ${"lorem ipsum ".repeat(120)}`)) {
      await client.request(
        "agent",
        { message: m, idempotencyKey: key(), sessionKey: "e2e-compact" },
        { expectFinal: true },
      );
    }
    await client.request("sessions.subscribe", { key: "e2e-compact" });
    const mark = events.length;
    const r: any = await client.request("sessions.compact", { key: "e2e-compact" });
    expect(r).toMatchObject({ ok: true, compacted: true });
    const stream = events
      .slice(mark)
      .map((e) => e.payload as any)
      .filter((p) => p?.stream === "compaction" && p.sessionKey === "agent:main:e2e-compact");
    expect(stream.map((p) => p.data)).toEqual([
      { phase: "start", reason: "manual" },
      { phase: "end", willRetry: false, completed: true },
    ]);
    const list: any = await client.request("sessions.list", {});
    expect(list.sessions.find((x: any) => x.key === "agent:main:e2e-compact").compactionCount).toBe(1);
    // The next turn sends the summary instead of the oldest turns.
    const before = mock.requests.length;
    await client.request(
      "agent",
      { message: "go on", idempotencyKey: key(), sessionKey: "e2e-compact" },
      { expectFinal: true },
    );
    const users = ((mock.requests[before]?.body.messages ?? []) as any[])
      .filter((m) => m.role === "user")
      .map((m) => (typeof m.content === "string" ? m.content : m.content[0].text) as string);
    expect(users[0]).toContain("<summary>");
    expect(users.some((t) => t.startsWith("first topic"))).toBe(false);
    expect(users.at(-1)).toBe("go on");
    await client.close();
  });
});

describe("tiller-agent CLI", () => {
  it("prints the streamed reply and exits 0; exits 1 with the error on a failed run", async () => {
    const ok = await runAgentCli(["--url", gw.url, "--message", "from the cli", "--session", "e2e-cli"]);
    expect(ok.stdout.trim()).toBe("echo: from the cli");
    expect(ok.code).toBe(0);
    const bad = await runAgentCli(["--url", gw.url, "--message", "[fail]", "--session", "e2e-cli"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/mock provider refused/);
  });
});
