// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Fault matrix: a real gateway process, a real WebSocket client and a loopback OpenAI-compatible provider
 * that answers 401, 402, 429 + Retry-After, 500, 529, hangs, cuts the stream, sends malformed JSON or reports
 * context overflow. Two keys in auth-profiles.json, a fallback model in tiller.json. For each fault: the
 * run's final status and error, rotation or failover, agent.wait, and a transcript that parses with one user
 * and one assistant message for the run.
 */
import { randomUUID } from "node:crypto";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import type { EventFrame } from "../src/protocol/frames.js";
import {
  type FaultProvider,
  makeFaultHome,
  readProfiles,
  startFaultProvider,
  textOf,
  transcriptWith,
  writeProfiles,
} from "./fault-harness.js";
import { agentEvents, connectClient, type GatewayProc, removeHome, spawnGateway } from "./gateway-harness.js";

let provider: FaultProvider;
let gw: GatewayProc;
let home: string;
let client: GatewayClient;
let events: EventFrame[] = [];

beforeAll(async () => {
  provider = await startFaultProvider();
  home = makeFaultHome(provider);
  gw = await spawnGateway(home);
  ({ client, events } = await connectClient(gw.url));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await gw?.stop();
  await provider?.close();
  if (home) removeHome(home);
});

interface CaseResult {
  text: string;
  final: any;
  wait: any;
  tries: string[];
  /** What the client saw of the run: assistant text from the deltas, lifecycle phases, chat states. */
  streamed: string;
  phases: string[];
  chatStates: string[];
}

/** Runs one message in a fresh session with fresh profile state; returns the final answer and what the provider saw. */
async function runCase(directive: string, extra: Record<string, unknown> = {}): Promise<CaseResult> {
  writeProfiles(home);
  const text = `case ${randomUUID().slice(0, 8)} ${directive}`;
  const runId = randomUUID();
  const final: any = await client.request(
    "agent",
    { message: text, idempotencyKey: runId, sessionKey: `fault-${runId}`, ...extra },
    { expectFinal: true },
  );
  const wait: any = await client.request("agent.wait", { runId, timeoutMs: 5000 });
  const tries = provider.requestsFor(text).map((r) => `${r.model}@${r.key}`);
  const ev = agentEvents(events, runId);
  const streamed = ev
    .filter((e) => e.stream === "assistant")
    .map((e) => (e.data.delta as string | undefined) ?? "")
    .join("");
  const phases = ev.filter((e) => e.stream === "lifecycle").map((e) => e.data.phase as string);
  const chatStates = events
    .filter((e) => e.event === "chat" && (e.payload as any).runId === runId)
    .map((e) => (e.payload as any).state as string);
  return { text, final, wait, tries, streamed, phases, chatStates };
}

/** The transcript parses, holds the run's user message once and exactly one assistant message after it. */
function expectCleanTranscript(text: string): { role: string; content: unknown; stopReason?: string } {
  const t = transcriptWith(home, text);
  expect(t, "transcript exists").toBeDefined();
  if (!t) throw new Error("no transcript");
  expect(t.bad).toBe(0);
  const ids = t.entries.map((e) => e.id).filter(Boolean);
  expect(new Set(ids).size).toBe(ids.length);
  const messages = t.entries.filter((e) => e.type === "message").map((e) => e.message as NonNullable<typeof e.message>);
  const users = messages.filter((m) => m.role === "user" && textOf(m.content).includes(text));
  expect(users).toHaveLength(1);
  const after = messages.slice(messages.indexOf(users[0] as (typeof messages)[number]) + 1);
  expect(after.map((m) => m.role)).toEqual(["assistant"]);
  return after[0] as (typeof messages)[number];
}

describe("profile rotation", () => {
  it("401 on the first key: rotates to the second key, the run is ok, the first key cools down 30 s", async () => {
    const before = Date.now();
    const r = await runCase("[fault:401:1]");
    expect(r.tries).toEqual(["mock-1@key-a", "mock-1@key-b"]);
    expect(r.final).toMatchObject({ status: "ok" });
    expect(r.final.result.payloads[0].text).toBe(`echo: ${r.text}`);
    expect(r.streamed).toBe(`echo: ${r.text}`);
    expect(r.phases).toEqual(["start", "model", "finishing", "end"]);
    expect(r.wait).toMatchObject({ status: "ok" });
    const a = readProfiles(home).usage["mock:a"];
    expect(a?.cooldownReason).toBe("auth");
    expect(a?.cooldownUntil).toBeGreaterThanOrEqual(before + 30_000);
    expect(a?.cooldownUntil).toBeLessThan(Date.now() + 31_000);
    expect(statSync(join(home, "auth-profiles.json")).mode & 0o777).toBe(0o600);
    expect(expectCleanTranscript(r.text).stopReason).toBe("stop");
  });

  it("429 with Retry-After: rotates, and the cooldown honours the 120 s the provider asked for", async () => {
    const before = Date.now();
    const r = await runCase("[fault:429:1]");
    expect(r.tries).toEqual(["mock-1@key-a", "mock-1@key-b"]);
    expect(r.wait).toMatchObject({ status: "ok" });
    const a = readProfiles(home).usage["mock:a"];
    expect(a?.cooldownReason).toBe("rate_limit");
    expect(a?.cooldownUntil).toBeGreaterThanOrEqual(before + 120_000);
    expectCleanTranscript(r.text);
  });

  it("402 billing: rotates and disables the first key for 5 hours", async () => {
    const before = Date.now();
    const r = await runCase("[fault:402:1]");
    expect(r.tries).toEqual(["mock-1@key-a", "mock-1@key-b"]);
    expect(r.wait).toMatchObject({ status: "ok" });
    const a = readProfiles(home).usage["mock:a"];
    expect(a?.disabledReason).toBe("billing");
    expect(a?.disabledUntil).toBeGreaterThanOrEqual(before + 5 * 3600_000);
    expect(a?.disabledUntil).toBeLessThan(Date.now() + 5 * 3600_000 + 1000);
    expectCleanTranscript(r.text);
  });
});

describe("session stickiness", () => {
  it("a session keeps the key it used last (not the least recently used one) until the session is reset", async () => {
    writeProfiles(home);
    const sessionKey = `sticky-${randomUUID()}`;
    const keyOf = async (): Promise<string | undefined> => {
      const text = `sticky ${randomUUID()}`;
      const f: any = await client.request(
        "agent",
        { message: text, idempotencyKey: randomUUID(), sessionKey },
        { expectFinal: true },
      );
      expect(f.status).toBe("ok");
      return provider.requestsFor(text)[0]?.key;
    };
    // Least recently used would now be key-b; the session stays on key-a (warm prompt cache).
    expect(await keyOf()).toBe("key-a");
    expect(await keyOf()).toBe("key-a");
    await client.request("sessions.reset", { key: `agent:main:${sessionKey}` });
    // After the reset the profile is chosen afresh: the least recently used key, key-b.
    expect(await keyOf()).toBe("key-b");
  });
});

describe("model failover", () => {
  for (const kind of ["500", "529", "cut-early", "malformed"]) {
    it(`${kind} before any output: falls back to backup/backup-1 and reports it as the answering model`, async () => {
      const r = await runCase(`[fault:${kind}:1]`);
      expect(r.tries).toEqual(["mock-1@key-a", "backup-1@backup-key"]);
      expect(r.final).toMatchObject({ status: "ok" });
      expect(r.final.result.meta.agentMeta).toMatchObject({ provider: "backup", model: "backup-1" });
      expect(r.final.result.payloads).toEqual([{ text: `echo: ${r.text}`, mediaUrl: null }]);
      expect(r.wait).toMatchObject({ status: "ok" });
      // The failed try never reached the client: the reply streamed once, no error phase, one final chat.
      expect(r.streamed).toBe(`echo: ${r.text}`);
      expect(r.phases).toEqual(["start", "model", "finishing", "end"]);
      expect(r.chatStates.filter((st) => st !== "delta")).toEqual(["final"]);
      // A server-side failure says nothing about the key: it stays in rotation.
      expect(readProfiles(home).usage["mock:a"]?.cooldownUntil).toBeUndefined();
      expect(expectCleanTranscript(r.text).stopReason).toBe("stop");
    });
  }

  it("every key and every model failing: one final error naming each try; agent.wait says error", async () => {
    const r = await runCase("[fault:401:all]");
    expect(r.tries).toEqual(["mock-1@key-a", "mock-1@key-b", "backup-1@backup-key"]);
    expect(r.final.status).toBe("error");
    expect(r.wait.status).toBe("error");
    expect(r.wait.error).toMatch(/All models failed/);
    expect(r.wait.error).toMatch(/mock\/mock-1@mock:a: auth/);
    expect(r.wait.error).toMatch(/backup\/backup-1: auth/);
    expect(expectCleanTranscript(r.text).stopReason).toBe("error");
  });
});

describe("thinking level", () => {
  it("a rejected thinking level is retried lower on the same model and key until one is accepted", async () => {
    const r = await runCase("[fault:thinking:all]", { thinking: "high" });
    const sent = provider.requestsFor(r.text);
    expect(sent[0]?.effort).toBe("high");
    expect(sent.length).toBeGreaterThanOrEqual(2);
    // Never another model or key: a thinking level is not the key's or the model's fault.
    expect(r.tries.every((t) => t === "mock-1@key-a")).toBe(true);
    const last = sent.at(-1);
    expect(last?.effort === undefined || last.effort === "low").toBe(true);
    expect(r.final.status).toBe("ok");
    expect(r.wait.status).toBe("ok");
    expect(expectCleanTranscript(r.text).stopReason).toBe("stop");
  });
});

describe("final failures", () => {
  it("a stream cut after text was streamed is not failed over: no reply from another model, status error", async () => {
    const r = await runCase("[fault:cut-late:all]");
    // The engine may retry the turn itself; failover never moves a half-streamed reply to another model.
    expect(r.tries.length).toBeGreaterThanOrEqual(1);
    expect(r.tries.every((t) => t.startsWith("mock-1@"))).toBe(true);
    expect(r.final.status).toBe("error");
    expect(r.wait.status).toBe("error");
    expect(expectCleanTranscript(r.text).stopReason).toBe("error");
  });

  it("context overflow never falls back or rotates: one try, the overflow error is reported", async () => {
    const r = await runCase("[fault:overflow:all]");
    expect(r.tries).toEqual(["mock-1@key-a"]);
    expect(r.wait.status).toBe("error");
    expect(r.wait.error).toMatch(/maximum context length/);
    expect(readProfiles(home).usage["mock:a"]?.cooldownUntil).toBeUndefined();
    expectCleanTranscript(r.text);
  });

  it("a hanging provider ends at the run timeout while other sessions keep being served", async () => {
    writeProfiles(home);
    const hangText = `case hang ${randomUUID().slice(0, 8)} [fault:hang:all]`;
    const hangId = randomUUID();
    const hang = client.request(
      "agent",
      { message: hangText, idempotencyKey: hangId, sessionKey: `fault-${hangId}`, timeout: 2 },
      { expectFinal: true },
    );
    const others = await Promise.all(
      [1, 2, 3].map((i) =>
        client.request(
          "agent",
          { message: `bystander ${i} ${hangId}`, idempotencyKey: randomUUID(), sessionKey: `bystander-${i}-${hangId}` },
          { expectFinal: true },
        ),
      ),
    );
    const hangDoneEarly = await Promise.race([hang.then(() => true), Promise.resolve(false)]);
    expect(hangDoneEarly).toBe(false);
    for (const o of others as any[]) expect(o.status).toBe("ok");
    const final: any = await hang;
    expect(final).toMatchObject({ status: "timeout", summary: "timeout" });
    expect(await client.request("agent.wait", { runId: hangId })).toMatchObject({ status: "timeout" });
    const t = transcriptWith(home, hangText);
    expect(t?.bad).toBe(0);
  });
});

describe("restart", () => {
  it("cooldowns survive a restart; without fallbacks a 529 is retried, then final with the provider's message", async () => {
    const first = await runCase("[fault:401:1]");
    expect(first.tries).toEqual(["mock-1@key-a", "mock-1@key-b"]);
    await client.close();
    await gw.stop();
    // Same home, but the plain-string model form: no fallback chain.
    writeFileSync(join(home, "tiller.json"), JSON.stringify({ agents: { defaults: { model: "mock/mock-1" } } }));
    gw = await spawnGateway(home);
    client = (await connectClient(gw.url)).client;

    const text = `after restart ${randomUUID()}`;
    const ok: any = await client.request(
      "agent",
      { message: text, idempotencyKey: randomUUID(), sessionKey: "fault-restart" },
      { expectFinal: true },
    );
    expect(ok.status).toBe("ok");
    // mock:a is still cooling down from before the restart: the first try uses key-b.
    expect(provider.requestsFor(text).map((r) => r.key)).toEqual(["key-b"]);

    writeProfiles(home);
    const overloaded = `no fallback ${randomUUID()} [fault:529:all]`;
    const runId = randomUUID();
    const fin: any = await client.request(
      "agent",
      { message: overloaded, idempotencyKey: runId, sessionKey: "fault-nofallback" },
      { expectFinal: true },
    );
    expect(fin.status).toBe("error");
    // No fallback configured: only mock-1 is asked, once plus two chain retries after a backoff.
    const tries = provider.requestsFor(overloaded);
    expect(tries.map((t) => t.model)).toEqual(["mock-1", "mock-1", "mock-1"]);
    const wait: any = await client.request("agent.wait", { runId });
    expect(wait.status).toBe("error");
    expect(wait.error).toMatch(/Overloaded/);
    expect(wait.error).not.toMatch(/All models failed/);

    // Overloaded twice, then fine: the chain retry makes the provisional errors invisible.
    writeProfiles(home);
    const flaky = `flaky ${randomUUID()} [fault:529:2]`;
    const flakyId = randomUUID();
    const ok2: any = await client.request(
      "agent",
      { message: flaky, idempotencyKey: flakyId, sessionKey: "fault-flaky" },
      { expectFinal: true },
    );
    expect(ok2.status).toBe("ok");
    expect(provider.requestsFor(flaky)).toHaveLength(3);
    expect(await client.request("agent.wait", { runId: flakyId })).toMatchObject({ status: "ok" });
    expect(expectCleanTranscript(flaky).stopReason).toBe("stop");
  }, 30_000);
});
