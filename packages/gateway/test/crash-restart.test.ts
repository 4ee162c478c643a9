// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Crash test: 20 runs over a few sessions against a real gateway process that is killed with SIGKILL at
 * seeded-random moments and restarted on the same home. Afterwards every accepted run was either answered
 * or marked interrupted, every transcript parses line by line, and every turn that completed (answered ok
 * before the kill, or reported ok after the restart) is in its session's transcript.
 */
import { randomUUID } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { type FaultProvider, makeFaultHome, readTranscripts, startFaultProvider, textOf } from "./fault-harness.js";
import { connectClient, type GatewayProc, removeHome, spawnGateway } from "./gateway-harness.js";

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

const SEED = 20261130;
const TOTAL_RUNS = 20;
const SESSIONS = ["crash-a", "crash-b", "crash-c", "crash-d"];

let provider: FaultProvider | undefined;
let gw: GatewayProc | undefined;
let home = "";

afterAll(async () => {
  await gw?.kill();
  await provider?.close();
  if (home && !process.env.TILLER_KEEP_HOME) removeHome(home);
  else if (home) console.log("HOME", home);
});

interface Sent {
  runId: string;
  text: string;
  sessionKey: string;
  accepted: boolean;
  /** Final status when the answer arrived before the gateway died. */
  final?: string;
}

it("SIGKILL at random points of 20 runs: every accepted run is answered or interrupted, no completed turn lost", async () => {
  const random = rng(SEED);
  provider = await startFaultProvider();
  // Only the primary model (durability, not failover); one turn per message, so each run has its own reply.
  home = makeFaultHome(provider, {
    agents: { defaults: { model: "mock/mock-1" } },
    messages: { queue: { mode: "followup" } },
  });
  const sent: Sent[] = [];
  let kills = 0;

  while (sent.length < TOTAL_RUNS) {
    gw = await spawnGateway(home);
    const { client } = await connectClient(gw.url);
    const batch = Math.min(4 + Math.floor(random() * 3), TOTAL_RUNS - sent.length);
    const finals: Promise<unknown>[] = [];
    for (let i = 0; i < batch; i++) {
      const s: Sent = {
        runId: randomUUID(),
        text: `crash run ${sent.length} [delay:${20 + Math.floor(random() * 60)}]`,
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
            s.final = f.status;
          })
          .catch(() => {}),
      );
    }
    const killNow = sent.length < TOTAL_RUNS && random() < 0.8;
    if (killNow) {
      await new Promise((r) => setTimeout(r, Math.floor(random() * 900)));
      await gw.kill();
      kills++;
      await Promise.all(finals);
    } else {
      await Promise.all(finals);
      await client.close();
      await gw.stop();
    }
    gw = undefined;
  }
  expect(kills).toBeGreaterThanOrEqual(2);

  // A last start recovers what the last kill left behind.
  gw = await spawnGateway(home);
  const { client } = await connectClient(gw.url);
  const statuses: Record<string, string> = {};
  for (const s of sent.filter((x) => x.accepted)) {
    const w: any = await client.request("agent.wait", { runId: s.runId, timeoutMs: 10_000 });
    // agent.wait reports an interrupted run as {status: "error", interrupted: true}.
    const status = w.interrupted === true ? "interrupted" : w.status;
    statuses[s.runId] = status;
    expect(["ok", "interrupted"], `run ${s.text}: ${JSON.stringify(w)}`).toContain(status);
    if (s.final) expect(status).toBe(s.final);
  }
  await client.close();

  const transcripts = readTranscripts(home);
  expect(transcripts.length).toBeGreaterThan(0);
  for (const t of transcripts) expect(t.bad, `${t.file} has unparsable lines`).toBe(0);
  for (const t of transcripts) {
    const ids = t.entries.map((e) => e.id).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  }
  const messages = transcripts.flatMap((t) => t.entries.filter((e) => e.type === "message").map((e) => e.message));
  const replies = new Set(messages.filter((m) => m?.role === "assistant").map((m) => textOf(m?.content)));
  const completed = sent.filter((s) => statuses[s.runId] === "ok");
  expect(completed.length).toBeGreaterThan(0);
  for (const s of completed) {
    // The reply to a completed turn was persisted; its user message exactly once.
    expect(replies.has(`echo: ${s.text}`), `reply of "${s.text}" lost`).toBe(true);
    const users = messages.filter((m) => m?.role === "user" && textOf(m?.content) === s.text);
    expect(users).toHaveLength(1);
  }
}, 90_000);
