// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Sessions are never stranded (the reference's most reported failure: a `.jsonl.lock` that outlives its writer).
 * A real gateway is killed with SIGKILL at 20 seeded-random points while runs stream on 10 sessions, and
 * restarted on the same home each time — some kills leave it a zombie (its parent never reaps it, as under a
 * container pid 1 that does not wait), and once every transcript's lock is replaced by one naming a live,
 * unrelated process whose start time differs (a reused pid). Every run that ends is ok (never "session is
 * locked"); afterwards every session serves a new run, and sessions.list / chat.history read every completed turn.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { readProcStat } from "@tiller/coding-agent";
import { afterAll, expect, it } from "vitest";
import { type FaultProvider, makeFaultHome, readTranscripts, startFaultProvider, textOf } from "./fault-harness.js";
import { connectClient, type GatewayProc, removeHome, spawnGateway } from "./gateway-harness.js";
import { isZombie, spawnUnreapedGateway, type UnreapedGateway } from "./unreaped-gateway.js";

/** mulberry32: a small seeded generator, so a failure replays with the same schedule. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261201;
const KILLS = 20;
const SESSIONS = Array.from({ length: 10 }, (_, i) => `stranded-${i}`);

let provider: FaultProvider | undefined;
let home = "";
const gateways: GatewayProc[] = [];
const unreaped: UnreapedGateway[] = [];
let bystander: ChildProcess | undefined;

afterAll(async () => {
  for (const g of gateways) await g.kill();
  for (const u of unreaped) u.dispose();
  bystander?.kill("SIGKILL");
  await provider?.close();
  if (home) removeHome(home);
});

interface Sent {
  runId: string;
  text: string;
  sessionKey: string;
  accepted: boolean;
  final?: { status: string; summary?: string };
}

/** The process start time in /proc (undefined where there is no /proc: the zombie and start-time cases need it). */
const procStartTime = (pid: number): string | undefined => readProcStat(pid)?.startTime;

it("20 SIGKILLs during runs on 10 sessions: no session is left locked, no completed turn is lost", async () => {
  const random = rng(SEED);
  provider = await startFaultProvider();
  home = makeFaultHome(provider, {
    agents: { defaults: { model: "mock/mock-1" } },
    messages: { queue: { mode: "followup" } },
  });
  const linux = procStartTime(process.pid) !== undefined;
  const sent: Sent[] = [];
  let staleLocksFound = 0;
  let zombies = 0;
  let reusedPidLocks = 0;

  for (let kill = 0; kill < KILLS; kill++) {
    // Every fifth gateway runs under a parent that never reaps it: once killed it stays a zombie.
    const asZombie = linux && kill % 5 === 2;
    let url: string;
    let crash: () => Promise<void>;
    if (asZombie) {
      const u = await spawnUnreapedGateway(home);
      unreaped.push(u);
      url = u.url;
      crash = async () => {
        await u.killToZombie();
        expect(isZombie(u.pid)).toBe(true);
        zombies++;
      };
    } else {
      const g = await spawnGateway(home);
      gateways.push(g);
      url = g.url;
      crash = () => g.kill();
    }
    const { client } = await connectClient(url);
    const finals: Promise<unknown>[] = [];
    const batch = 3 + Math.floor(random() * 4);
    for (let i = 0; i < batch; i++) {
      const s: Sent = {
        runId: randomUUID(),
        text: `stranded run ${sent.length} [delay:${20 + Math.floor(random() * 60)}]`,
        sessionKey: SESSIONS[Math.floor(random() * SESSIONS.length)] as string,
        accepted: false,
      };
      sent.push(s);
      finals.push(
        client
          .request(
            "agent",
            { message: s.text, idempotencyKey: s.runId, sessionKey: s.sessionKey },
            { expectFinal: true, onAccepted: () => (s.accepted = true) },
          )
          .then((f: any) => {
            s.accepted = true;
            s.final = { status: f.status, summary: f.summary };
          })
          .catch(() => {}),
      );
    }
    await new Promise((r) => setTimeout(r, Math.floor(random() * 1200)));
    await crash();
    await Promise.all(finals);

    const transcripts = readTranscripts(home);
    staleLocksFound += transcripts.filter((t) => existsSync(`${t.file}.lock`)).length;
    if (linux && kill === KILLS / 2) {
      // Every transcript's lock now names a live process that is not its writer: a reused pid.
      bystander = spawn("sleep", ["1000"], { stdio: "ignore" });
      await new Promise((r) => bystander?.once("spawn", r));
      const pid = bystander.pid as number;
      const startTime = String(Number(procStartTime(pid)) + 12345);
      const record = { pid, hostname: hostname(), startTime, since: new Date().toISOString() };
      for (const t of transcripts) {
        writeFileSync(`${t.file}.lock`, `${JSON.stringify(record)}\n`);
        reusedPidLocks++;
      }
    }
  }
  expect(staleLocksFound, "no kill left a lock behind: the scenario did not happen").toBeGreaterThan(0);
  if (linux) {
    expect(zombies).toBe(4);
    expect(reusedPidLocks).toBeGreaterThan(0);
  }
  // No run that ended reported anything but ok: no session was ever left locked.
  for (const s of sent.filter((x) => x.final)) expect(s.final, s.text).toEqual({ status: "ok", summary: "completed" });

  // The last start: every session serves a new run, and everything completed can be read back.
  const last = await spawnGateway(home);
  gateways.push(last);
  const { client } = await connectClient(last.url);
  const completed: Sent[] = [];
  for (const s of sent.filter((x) => x.accepted)) {
    const w: any = await client.request("agent.wait", { runId: s.runId, timeoutMs: 10_000 });
    const status = w.interrupted === true ? "interrupted" : w.status;
    expect(["ok", "interrupted"], `${s.text}: ${JSON.stringify(w)}`).toContain(status);
    if (status === "ok") completed.push(s);
  }
  expect(completed.length, "no run completed before a kill").toBeGreaterThan(0);

  for (const key of SESSIONS) {
    const s: Sent = { runId: randomUUID(), text: `after the crashes on ${key}`, sessionKey: key, accepted: true };
    const f: any = await client.request(
      "agent",
      { message: s.text, idempotencyKey: s.runId, sessionKey: key },
      { expectFinal: true },
    );
    expect(f, `${key} is stranded`).toMatchObject({ status: "ok", summary: "completed" });
    completed.push(s);
  }
  const list: any = await client.request("sessions.list", { limit: 100 });
  for (const key of SESSIONS) {
    const row = list.sessions.find((r: any) => r.key === `agent:main:${key}`);
    expect(row, key).toBeDefined();
    expect(row.lastRun.status).toBe("ok");
  }
  for (const key of SESSIONS) {
    const mine = completed.filter((s) => s.sessionKey === key);
    const history: any = await client.request("chat.history", { sessionKey: key, limit: 1000 });
    const texts = history.messages.map((m: any) => `${m.role}:${textOf(m.content)}`);
    for (const s of mine) {
      expect(
        texts.filter((t: string) => t === `user:${s.text}`),
        `${key}: "${s.text}"`,
      ).toHaveLength(1);
      expect(texts, `${key}: reply to "${s.text}"`).toContain(`assistant:echo: ${s.text}`);
    }
  }
  expect(((await client.request("status", {})) as any).openSessionWriters).toBe(0);
  await client.close();
  for (const t of readTranscripts(home)) expect(t.bad, `${t.file} has a torn line`).toBe(0);
}, 300_000);
