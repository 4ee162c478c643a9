// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Usage and cost over the protocol, against a real gateway whose model has pricing: each model call's `usage`
 * event carries its dollars, the run's final answer and the chat final carry the run's total, and the session
 * row (sessions.list / sessions.describe) adds them up across runs and starts over on reset.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import type { EventFrame } from "../src/protocol/frames.js";
import { SessionStore } from "../src/store/session-store.js";
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

// The mock answers every call with 10 input and 5 output tokens: 10 × $2000/M + 5 × $10000/M = $0.07 a call.
const PRICING = { input: 2000, output: 10_000 };
const PER_CALL = 0.07;
let mock: MockServer;
let gw: GatewayProc;
let client: GatewayClient;
let events: EventFrame[];

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await spawnGateway(makeHome({ mockBaseUrl: mock.baseUrl, mockCost: PRICING }));
  ({ client, events } = await connectClient(gw.url));
});

afterAll(async () => {
  await client?.close();
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

async function run(sessionKey: string, message: string): Promise<any> {
  const runId = randomUUID();
  const final: any = await client.request(
    "agent",
    { message, idempotencyKey: runId, sessionKey },
    { expectFinal: true },
  );
  expect(final.status).toBe("ok");
  return final;
}

describe("usage and cost", () => {
  it("reports dollars per model call, per run (agent final, chat final) and per session", async () => {
    const key = "agent:main:cost-a";
    await client.request("sessions.subscribe", { key });
    // A tool call, then the answer: two model calls in one run.
    const first = await run(key, `[tool:read:${gw.home}/tiller.json]`);
    const usage = first.result.meta.agentMeta.usage;
    expect(usage).toMatchObject({ input: 20, output: 10 });
    expect(usage.costUsd).toBeCloseTo(2 * PER_CALL, 10);

    const perCall = agentEvents(events, first.runId).filter((e) => e.stream === "usage");
    expect(perCall.length).toBe(2);
    for (const e of perCall) expect(e.data.costUsd as number).toBeCloseTo(PER_CALL, 10);

    await until(
      () =>
        events.some(
          (e) => e.event === "chat" && (e.payload as any).runId === first.runId && (e.payload as any).state === "final",
        ),
      20_000,
      "the chat final",
    );
    const chatFinal = events.find(
      (e) => e.event === "chat" && (e.payload as any).runId === first.runId && (e.payload as any).state === "final",
    )?.payload as any;
    expect(chatFinal.usage.costUsd).toBeCloseTo(2 * PER_CALL, 10);

    const second = await run(key, "just one call");
    expect(second.result.meta.agentMeta.usage.costUsd).toBeCloseTo(PER_CALL, 10);

    // The session adds its runs up.
    const described: any = await client.request("sessions.describe", { key });
    expect(described.session.estimatedCostUsd).toBeCloseTo(3 * PER_CALL, 10);
    expect(described.session.inputTokens).toBe(30);
    const listed: any = await client.request("sessions.list", {});
    const row = listed.sessions.find((s: any) => s.key === key);
    expect(row.estimatedCostUsd).toBeCloseTo(3 * PER_CALL, 10);

    // History keeps each model call's usage on its assistant message.
    const history: any = await client.request("chat.history", { sessionKey: key });
    const assistants = history.messages.filter((m: any) => m.role === "assistant");
    expect(assistants.length).toBe(3);
    for (const m of assistants) {
      expect(m.usage).toMatchObject({ input: 10, output: 5, total: 15 });
      expect(m.usage.costUsd).toBeCloseTo(PER_CALL, 10);
    }
    expect(history.messages.filter((m: any) => m.role !== "assistant").every((m: any) => m.usage === undefined)).toBe(
      true,
    );

    // Another session has its own total; a reset starts the count over.
    await run("agent:main:cost-b", "elsewhere");
    const other: any = await client.request("sessions.describe", { key: "agent:main:cost-b" });
    expect(other.session.estimatedCostUsd).toBeCloseTo(PER_CALL, 10);
    await client.request("sessions.reset", { key });
    const reset: any = await client.request("sessions.describe", { key });
    expect(reset.session.estimatedCostUsd).toBe(0);
  }, 60_000);

  it("keeps an index written before costs were recorded: the column is added, old sessions start at $0", () => {
    const home = mkdtempSync(join(tmpdir(), "tiller-cost-migrate-"));
    try {
      mkdirSync(join(home, "sessions"));
      const old = new Database(join(home, "sessions", "index.sqlite"));
      old.exec(`CREATE TABLE sessions (
        key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, session_id TEXT NOT NULL, session_file TEXT NOT NULL,
        label TEXT, model TEXT, thinking TEXT, verbose INTEGER, queue_mode TEXT, queue_debounce_ms INTEGER,
        queue_cap INTEGER, queue_drop TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
        total_tokens INTEGER NOT NULL DEFAULT 0, context_tokens INTEGER NOT NULL DEFAULT 0,
        compaction_count INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_run_id TEXT, last_run_status TEXT)`);
      old
        .prepare(
          "INSERT INTO sessions (key, agent_id, session_id, session_file, input_tokens, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .run("agent:main:old", "main", "s1", "", 42, 1, 1);
      old.close();
      const store = new SessionStore(home);
      expect(store.get("agent:main:old")).toMatchObject({ inputTokens: 42, costUsd: 0 });
      store.addUsage("agent:main:old", { input: 1, output: 1, total: 2, context: 2, costUsd: 0.25 });
      expect(store.get("agent:main:old")?.costUsd).toBeCloseTo(0.25, 10);
      store.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
