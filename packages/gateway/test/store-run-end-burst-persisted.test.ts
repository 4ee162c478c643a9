/**
 * The run ledger and session index after a burst: 200 sessions' runs end together (their index writes are
 * committed in one transaction per event-loop turn), and the gateway is stopped by SIGTERM the moment the last
 * final reaches its client. Every run row says how the run ended (with its result) and every session row has the
 * run's tokens and last-run status: nothing queued for the turn's commit is lost by the stop. In-process, a read in
 * the same turn as queued writes sees them, and a store closed with writes queued has them on reopen. A finished
 * run's in-memory record (kept for dedupe) holds none of its prompt or reply; a retry reads the reply back.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { RunRegistry } from "../src/run/run-registry.js";
import { CAP_DELTA_ONLY } from "../src/server/connection.js";
import { SessionStore } from "../src/store/session-store.js";
import { connectClient, makeHome, removeHome, spawnGateway, startMockProvider } from "./gateway-harness.js";

const RUNS = 200;

let mock: MockServer;
const homes: string[] = [];

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
  for (const h of homes) removeHome(h);
});

describe("run-end persistence", () => {
  it("200 runs ending together, then SIGTERM at the last final: every run row and session row is written", async () => {
    const home = makeHome({
      mockBaseUrl: mock.baseUrl,
      config: { agents: { defaults: { model: "mock/mock-1", maxConcurrent: RUNS } } },
    });
    homes.push(home);
    const gw = await spawnGateway(home);
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => connectClient(gw.url, { caps: [CAP_DELTA_ONLY], scopes: ["operator.write"] })),
    );
    const runs = Array.from({ length: RUNS }, (_, i) => ({ runId: randomUUID(), sessionKey: `burst-${i}` }));
    let finals: { status: string }[];
    try {
      finals = (await Promise.all(
        runs.map((r, i) =>
          clients[i % clients.length]?.client.request(
            "agent",
            { message: "[slow:8:0]", idempotencyKey: r.runId, sessionKey: r.sessionKey },
            { expectFinal: true, timeoutMs: 120_000 },
          ),
        ),
      )) as { status: string }[];
    } finally {
      // At once: no waiting for the index writes of the last turn.
      gw.proc.kill("SIGTERM");
      await gw.stop();
    }
    expect(finals.map((f) => f.status)).toEqual(runs.map(() => "ok"));
    expect(gw.proc.exitCode, gw.stderr.join("")).toBe(0);

    const db = new Database(join(home, "sessions", "index.sqlite"), { readonly: true });
    try {
      const runRows = db
        .prepare<[], { run_id: string; session_key: string; status: string; ended_at: number | null; result: string }>(
          "SELECT run_id, session_key, status, ended_at, result FROM runs",
        )
        .all();
      const byRun = new Map(runRows.map((r) => [r.run_id, r]));
      for (const r of runs) {
        const row = byRun.get(r.runId);
        expect(row, r.runId).toMatchObject({ session_key: `agent:main:${r.sessionKey}`, status: "ok" });
        expect(row?.ended_at).toBeGreaterThan(0);
        const result = JSON.parse(row?.result ?? "null") as { payloads: { text: string }[] };
        expect(result.payloads[0]?.text).toBe(Array.from({ length: 8 }, (_, i) => `d${i}`).join(" "));
      }
      const sessions = db
        .prepare<[], { key: string; last_run_id: string; last_run_status: string; total_tokens: number }>(
          "SELECT key, last_run_id, last_run_status, total_tokens FROM sessions",
        )
        .all();
      const byKey = new Map(sessions.map((s) => [s.key, s]));
      for (const r of runs) {
        expect(byKey.get(`agent:main:${r.sessionKey}`), r.sessionKey).toMatchObject({
          last_run_id: r.runId,
          last_run_status: "ok",
          total_tokens: 15,
        });
      }
    } finally {
      db.close();
    }
  }, 240_000);

  it("in one process, a read in the same turn sees queued run writes, and close() commits them", () => {
    const home = makeHome();
    homes.push(home);
    const store = new SessionStore(home);
    const key = "agent:main:s";
    store.ensure(key, "main");
    store.runAccepted("r1", key, 1);
    store.runStarted("r1", key, 2);
    store.addUsage(key, { input: 3, output: 4, total: 7, context: 7 });
    store.runEnded({ runId: "r1", sessionKey: key, status: "ok", acceptedAt: 1, startedAt: 2, endedAt: 5 });
    // Same turn: nothing has had a chance to commit on its own.
    expect(store.getRun("r1")).toMatchObject({ status: "ok", startedAt: 2, endedAt: 5 });
    expect(store.get(key)).toMatchObject({ totalTokens: 7, lastRunId: "r1", lastRunStatus: "ok" });
    store.runAccepted("r2", key, 6);
    store.runStarted("r2", key, 7);
    store.addUsage(key, { input: 1, output: 1, total: 2, context: 2 });
    store.close();
    const reopened = new SessionStore(home);
    try {
      expect(reopened.getRun("r2")).toMatchObject({ status: "running", startedAt: 7 });
      expect(reopened.get(key)).toMatchObject({ totalTokens: 9, lastRunId: "r2", lastRunStatus: "running" });
    } finally {
      reopened.close();
    }
  });
});

describe("finished runs in memory", () => {
  it("a finished run's record keeps neither its prompt nor its reply; a repeated request still gets the reply", async () => {
    const home = makeHome();
    homes.push(home);
    const store = new SessionStore(home);
    const runs = new RunRegistry(store);
    const key = "agent:main:big";
    store.ensure(key, "main");
    const prompt = "p".repeat(200_000);
    const reply = "r".repeat(500_000);
    runs.accept({ runId: "big", sessionKey: key, agentId: "main", message: prompt, acceptedAt: 1, source: "agent" });
    const seen = runs.whenDone("big");
    runs.finish("big", {
      status: "ok",
      summary: "completed",
      startedAt: 2,
      endedAt: 3,
      result: {
        payloads: [{ text: reply, mediaUrl: null }],
        meta: { durationMs: 1, agentMeta: { sessionId: "s", provider: "p", model: "m" } },
      },
    });
    // The waiter of the live run gets the whole outcome.
    expect((await seen).result.payloads[0]?.text).toBe(reply);
    const record = runs.get("big");
    expect(record?.request.message).toBe("");
    expect(record?.outcome?.result.payloads).toEqual([]);
    expect(record?.outcome?.status).toBe("ok");
    // A later ask (an `agent` retry with the same idempotency key) reads the reply back from the ledger.
    expect((await runs.whenDone("big")).result.payloads).toEqual([{ text: reply, mediaUrl: null }]);
    store.close();
  });
});
