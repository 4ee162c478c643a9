/**
 * Gateway under provider faults: N concurrent sessions (default 500) run back-to-back turns for S seconds
 * (default 60) through a real gateway process, while the loopback provider fails 10% of requests in the
 * ways of the fault matrix (401, 402, 429, 500, 529, hang, cut stream, malformed JSON, context overflow).
 * The primary model has two keys in auth-profiles.json and a fallback model in tiller.json. A fault-free
 * phase on the same gateway comes first and is the comparison (no reference gateway runs on Node 20).
 * Reports runs/s, p50/p99 run latency (accept → final) and outcome counts per phase, checks that no lane or
 * run is left busy afterwards, and that gateway RSS settles back near its baseline.
 *   BENCH_SESSIONS=500 BENCH_SECONDS=60 BENCH_FAULT_RATE=0.1 npm run bench -- gateway-faults
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { type MockReply, startOpenAIMock } from "../packages/ai/test/helpers/mock-server.js";
import { GatewayClient } from "../packages/gateway/src/cli/gateway-client.js";
import {
  echoEvents,
  FAULT_KINDS,
  type FaultKind,
  type FaultProvider,
  faultReply,
  makeFaultHome,
} from "../packages/gateway/test/fault-harness.js";
import { removeHome, spawnGateway } from "../packages/gateway/test/gateway-harness.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CLEAN_SECONDS = Number(process.env.BENCH_CLEAN_SECONDS ?? Math.max(5, Math.round(SECONDS / 4)));
const FAULT_RATE = Number(process.env.BENCH_FAULT_RATE ?? 0.1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Per-run timeout: ends hung provider streams; long enough that a busy gateway does not time out healthy runs. */
const RUN_TIMEOUT_S = Number(process.env.BENCH_RUN_TIMEOUT_S ?? 20);

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** mulberry32, so a run's fault schedule is reproducible. */
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

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  const m = messages.at(-1);
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.map((c: { text?: string }) => c.text ?? "").join("") : "";
}

interface Phase {
  name: string;
  seconds: number;
  done: number;
  byStatus: Record<string, number>;
  latencies: number[];
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function main(): Promise<void> {
  let faultRate = 0;
  const random = rng(424242);
  const faults: Record<string, number> = {};
  const server = await startOpenAIMock((req): MockReply => {
    const text = lastUserText(req.body);
    if (random() < faultRate) {
      const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)] as FaultKind;
      faults[kind] = (faults[kind] ?? 0) + 1;
      return faultReply(kind, text);
    }
    return { events: echoEvents(text) };
  });
  const provider = { server } as FaultProvider;
  const home = makeFaultHome(provider, {
    agents: {
      defaults: { model: { primary: "mock/mock-1", fallbacks: ["backup/backup-1"] }, maxConcurrent: SESSIONS },
    },
    messages: { queue: { mode: "followup" } },
  });
  const gw = await spawnGateway(home);
  const pid = gw.proc.pid as number;
  const clients = await Promise.all(
    Array.from({ length: Math.min(CONNECTIONS, SESSIONS) }, () =>
      GatewayClient.connect(gw.url, { caps: [], scopes: ["operator.admin"] }),
    ),
  );

  let stopAt = 0;
  const runSession = async (i: number, phase: Phase, once: boolean): Promise<void> => {
    const client = clients[i % clients.length] as GatewayClient;
    for (let first = true; once ? first : Date.now() < stopAt; first = false) {
      const started = performance.now();
      let status = "failed-request";
      try {
        const final = (await client.request(
          "agent",
          {
            message: `s${i} ${randomUUID()}`,
            idempotencyKey: randomUUID(),
            sessionKey: `bench-${i}`,
            timeout: RUN_TIMEOUT_S,
          },
          { expectFinal: true, timeoutMs: 60_000 },
        )) as { status: string; error?: { kind?: string } };
        status = final.status === "ok" ? "ok" : (final.error?.kind ?? "error");
      } catch {
        // counted as failed-request
      }
      phase.latencies.push(performance.now() - started);
      phase.byStatus[status] = (phase.byStatus[status] ?? 0) + 1;
      phase.done++;
    }
  };
  /** seconds 0: one turn per session. */
  const runPhase = async (name: string, seconds: number, rate: number): Promise<Phase> => {
    faultRate = rate;
    const phase: Phase = { name, seconds, done: 0, byStatus: {}, latencies: [] };
    const t0 = performance.now();
    stopAt = Date.now() + seconds * 1000;
    await Promise.all(Array.from({ length: SESSIONS }, (_, i) => runSession(i, phase, seconds === 0)));
    phase.seconds = (performance.now() - t0) / 1000;
    return phase;
  };

  // Warm-up (every session once) and the fault-free phase; the memory baseline is the warm gateway after it.
  await runPhase("warmup", 0, 0);
  const clean = await runPhase("clean", CLEAN_SECONDS, 0);
  await new Promise((r) => setTimeout(r, 2000));
  const rssBase = rssMb(pid);
  let rssPeak = rssBase;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMb(pid));
  }, 100);
  const faulted = await runPhase(`faults ${Math.round(FAULT_RATE * 100)}%`, SECONDS, FAULT_RATE);
  faultRate = 0;
  clearInterval(sampler);

  // Nothing stuck: no active run, no busy lane; every session still answers a fresh turn.
  const status = (await clients[0]?.request("status", {})) as { activeRuns: unknown[]; lanes: unknown };
  const stuckRuns = status.activeRuns.length;
  const probe = await runPhase("probe", 0, 0);
  const probeOk = probe.byStatus.ok ?? 0;

  let rssAfter = rssMb(pid);
  for (let i = 0; i < 20 && rssAfter > rssBase * 1.1; i++) {
    await new Promise((r) => setTimeout(r, 500));
    rssAfter = rssMb(pid);
  }

  const rows = [clean, faulted].map((p) => {
    const sorted = [...p.latencies].sort((a, b) => a - b);
    return {
      phase: p.name,
      "runs/s": Math.round(p.done / p.seconds),
      "p50 ms": Math.round(pct(sorted, 50)),
      "p99 ms": Math.round(pct(sorted, 99)),
      outcomes: Object.entries(p.byStatus)
        .map(([k, v]) => `${k}:${v}`)
        .join(" "),
    };
  });
  console.log(`gateway under provider faults: ${SESSIONS} sessions, ${CONNECTIONS} connections`);
  console.table(rows);
  console.log(
    `injected faults: ${Object.entries(faults)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ")}`,
  );
  const [c, f] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    `ratio faulted/clean: runs/s ${(f["runs/s"] / Math.max(c["runs/s"], 1)).toFixed(2)}x, p99 ${(f["p99 ms"] / Math.max(c["p99 ms"], 1)).toFixed(2)}x`,
  );
  console.log(
    `stuck runs after load: ${stuckRuns}; lanes: ${JSON.stringify(status.lanes)}; fresh turn on every session: ${probeOk}/${SESSIONS} ok`,
  );
  console.log(
    `gateway RSS: warm baseline ${rssBase.toFixed(0)} MB, peak ${rssPeak.toFixed(0)} MB, after ${rssAfter.toFixed(0)} MB (${(rssAfter / rssBase).toFixed(2)}x baseline)`,
  );

  for (const cl of clients) await cl.close();
  await gw.stop();
  await server.close();
  removeHome(home);
  if (stuckRuns > 0 || probeOk < SESSIONS) process.exitCode = 1;
}

await main();
