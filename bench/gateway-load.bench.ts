/**
 * Gateway load: N concurrent sessions (default 200), each streaming D text deltas (default 2000) to its own
 * WebSocket client, through a real gateway process (agent → session lane → global lane → engine → event
 * bridge → bus → per-connection frames). Reports events/s, p50/p99 delta latency (model emission → client
 * receipt, same clock) and gateway RSS per session, beside the loopback WebSocket floor measured in the
 * same run: a bare `ws` server in its own process sending the same frames with the same pacing.
 * The reference gateway (OpenClaw, Node 24) is compared in gateway-openclaw.bench.ts; here the floor is.
 * BENCH_TARGETS=floor,tiller,basic,ref,cold picks targets; BENCH_TIMELINE=1 prints latency p50/p99 by emission time
 * (250 ms windows), which shows where the tail comes from. BENCH_DIST=1 runs the gateway from its build (run
 * `npm run build` first) instead of from source through tsx, whose keepNames transform gives every named closure
 * an own `name` property (a property array per closure: about 4 MB of the mid-run heap at this load).
 *   BENCH_SESSIONS=200 BENCH_DELTAS=2000 npm run bench -- gateway-load
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { GatewayClient } from "../packages/gateway/src/cli/gateway-client.js";
import { CAP_DELTA_ONLY } from "../packages/gateway/src/server/connection.js";
import { waitLine } from "./wait-line.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 2000);
const ROOT = join(import.meta.dirname, "..");
/** BENCH_DIST=1: the gateway from its build (`npm run build` first), as the product runs; else from source (tsx). */
const DIST = process.env.BENCH_DIST === "1";
const TL: [number, number][] = [];
const now = (): number => performance.timeOrigin + performance.now();

interface Result {
  name: string;
  events: number;
  seconds: number;
  latencies: Float64Array;
  rssBaseMb: number;
  /** RSS with every client connected, before the load (what the idle connections cost). */
  rssConnectedMb?: number;
  rssPeakMb: number;
  /** WebSocket bytes the clients received (all frames), when measured. */
  bytes?: number;
  /** The gateway's event loop and GC during the load (bench/gateway-bench-server.ts, SIGUSR2). */
  stats?: GatewayStats;
}

interface GatewayStats {
  heapTotalMb: number;
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  loopMaxMs: number;
  loopP99Ms: number;
  gcMs: number;
  gcMaxMs: number;
  gcCount: number;
  majorGcMs: number;
}

/** Asks the bench gateway for its event-loop and GC figures since the last ask (and resets them). */
async function gatewayStats(proc: ChildProcess): Promise<GatewayStats> {
  const line = waitLine(proc, /stats (\{.*\})\n/);
  proc.kill("SIGUSR2");
  return JSON.parse((await line)[1] as string) as GatewayStats;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function startSampler(pid: number): { stop(): number } {
  let peak = rssMb(pid);
  const t = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 50);
  return {
    stop: () => {
      clearInterval(t);
      return Math.max(peak, rssMb(pid));
    },
  };
}

/**
 * Records the latency of every model delta in `delta` ("t<ms>|" each; the gateway may carry several deltas of one
 * burst in one event) from index `i`; returns how many it found.
 */
function parseLatency(delta: string, at: number, out: Float64Array, i: number): number {
  let n = 0;
  let start = 0;
  while (start < delta.length && delta.charCodeAt(start) === 116 /* t */) {
    const bar = delta.indexOf("|", start);
    if (bar < 0) break;
    if (i + n < out.length) out[i + n] = at - Number(delta.slice(start + 1, bar));
    n++;
    start = bar + 1;
  }
  return n;
}

// ---- floor: a bare ws server sending the same frames -------------------------------------------------

const FLOOR_SERVER = `
import { WebSocketServer } from "ws";
const D = Number(process.env.D);
const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
const t = () => performance.timeOrigin + performance.now();
wss.on("listening", () => console.log("listening " + wss.address().port));
wss.on("connection", (ws) => {
  ws.on("message", async (m) => {
    const key = String(m);
    for (let i = 0; i < D; i++) {
      const delta = "t" + t().toFixed(3) + "|";
      ws.send('{"type":"event","event":"agent","payload":{"runId":"' + key + '","seq":' + (i + 2) + ',"stream":"assistant","ts":' + Date.now() + ',"data":{"delta":"' + delta + '"},"sessionKey":"agent:main:' + key + '"},"seq":' + (i + 2) + '}');
      if ((i + 1) % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    ws.send('{"type":"res","id":"done","ok":true,"payload":{"status":"ok"}}');
  });
});`;

async function runFloor(): Promise<Result> {
  const proc = spawn(process.execPath, ["--input-type=module", "-e", FLOOR_SERVER], {
    cwd: ROOT,
    env: { ...process.env, D: String(DELTAS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const port = Number((await waitLine(proc, /listening (\d+)/))[1]);
    const rssBase = rssMb(proc.pid as number);
    const latencies = new Float64Array(SESSIONS * DELTAS);
    let received = 0;
    const sockets = await Promise.all(
      Array.from(
        { length: SESSIONS },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(`ws://127.0.0.1:${port}`);
            ws.once("open", () => resolve(ws));
            ws.once("error", reject);
          }),
      ),
    );
    const sampler = startSampler(proc.pid as number);
    const t0 = now();
    await Promise.all(
      sockets.map(
        (ws, s) =>
          new Promise<void>((resolve) => {
            let n = 0;
            ws.on("message", (data) => {
              const at = now();
              const f = JSON.parse(String(data)) as { type: string; payload: { data?: { delta?: string } } };
              if (f.type === "res") return resolve();
              const delta = f.payload.data?.delta;
              if (delta) {
                parseLatency(delta, at, latencies, s * DELTAS + n++);
                received++;
              }
            });
            ws.send(`floor-${s}`);
          }),
      ),
    );
    const seconds = (now() - t0) / 1000;
    const peak = sampler.stop();
    for (const ws of sockets) ws.close();
    return { name: "ws floor", events: received, seconds, latencies, rssBaseMb: rssBase, rssPeakMb: peak };
  } finally {
    proc.kill("SIGKILL");
  }
}

// ---- Tiller gateway ---------------------------------------------------------------------------------

/**
 * `reference`: clients speak the plain reference protocol (no tiller.delta-only) with Tiller's client id, so they
 * get the `chat` text view (coalesced deltas, chat deltas with the cumulative text): what a v4 OpenClaw client costs.
 */
async function runGateway(engine: "agent-session" | "basic", reference = false): Promise<Result> {
  const home = mkdtempSync(join(tmpdir(), "tiller-gw-bench-"));
  writeFileSync(
    join(home, "tiller.json"),
    JSON.stringify({ agents: { defaults: { model: "bench/stream", maxConcurrent: SESSIONS } } }),
  );
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({ providers: { bench: { baseUrl: "", api: "tiller-bench", models: [{ id: "stream" }] } } }),
  );
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
      // BENCH_GATEWAY_FLAGS: extra Node flags for the gateway process (--trace-gc, --heapsnapshot-signal=…).
      ...(process.env.BENCH_GATEWAY_FLAGS ? process.env.BENCH_GATEWAY_FLAGS.split(" ") : []),
      ...(DIST ? [] : ["--conditions=tiller-source"]),
      "--import",
      "tsx",
      join(ROOT, "bench/gateway-bench-server.ts"),
      ...(DIST ? ["--dist"] : []),
      // BENCH_ALLOC_PROF=<file>: what the load promoted to the old generation (see gateway-bench-server.ts).
      ...(process.env.BENCH_ALLOC_PROF ? ["--alloc-prof", process.env.BENCH_ALLOC_PROF] : []),
      ...(engine === "basic" ? ["--engine", "basic"] : []),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    // With extra flags (--trace-gc…), what the gateway prints is shown.
    if (process.env.BENCH_GATEWAY_FLAGS) proc.stdout?.on("data", (d: Buffer) => process.stdout.write(d));
    const url = (await waitLine(proc, /listening (ws:\/\/\S+)/))[1] as string;
    const rssBase = rssMb(proc.pid as number);
    const latencies = new Float64Array(SESSIONS * DELTAS);
    let received = 0;
    const counts = new Int32Array(SESSIONS);
    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, (_, s) =>
        GatewayClient.connect(url, {
          caps: reference ? [] : [CAP_DELTA_ONLY],
          scopes: ["operator.write"],
          onEvent: (f) => {
            if (f.event !== "agent") return;
            const at = now();
            const p = f.payload as { stream: string; data: { delta?: string } };
            if (p.stream !== "assistant" || !p.data.delta) return;
            const n = parseLatency(p.data.delta, at, latencies, s * DELTAS + counts[s]);
            if (process.env.BENCH_TIMELINE) {
              const idx = s * DELTAS + counts[s];
              for (let k = 0; k < n; k++) TL.push([at - latencies[idx + k]!, latencies[idx + k]!]);
            }
            counts[s] += n;
            received += n;
          },
        }),
      ),
    );
    let bytes = 0;
    for (const c of clients) c.ws.on("message", (d: Buffer) => void (bytes += d.length));
    await gatewayStats(proc);
    const rssConnected = rssMb(proc.pid as number);
    const sampler = startSampler(proc.pid as number);
    const t0 = now();
    const finals = await Promise.all(
      clients.map((c, s) =>
        c.request(
          "agent",
          { message: `[deltas:${DELTAS}]`, idempotencyKey: randomUUID(), sessionKey: `bench-${s}` },
          { expectFinal: true },
        ),
      ),
    );
    const seconds = (now() - t0) / 1000;
    const peak = sampler.stop();
    const stats = await gatewayStats(proc);
    if (process.env.BENCH_TIMELINE) {
      const buckets = new Map<number, number[]>();
      for (const [emit, lat] of TL) {
        const b = Math.floor((emit - t0) / 250);
        let a = buckets.get(b);
        if (!a) buckets.set(b, (a = []));
        a.push(lat);
      }
      for (const [b, a] of [...buckets].sort((x, y) => x[0] - y[0])) {
        a.sort((x, y) => x - y);
        console.log(
          `t=${b * 250}ms n=${a.length} p50=${a[a.length >> 1]?.toFixed(1)} p99=${a[Math.floor(a.length * 0.99)]?.toFixed(1)} max=${a[a.length - 1]?.toFixed(1)}`,
        );
      }
      TL.length = 0;
    }
    const bad = finals.filter((f) => (f as { status: string }).status !== "ok").length;
    if (bad > 0) throw new Error(`${bad} runs did not end ok`);
    await Promise.all(clients.map((c) => c.close()));
    return {
      name: reference ? "tiller, ref. cl." : engine === "basic" ? "tiller (basic)" : "tiller gateway",
      bytes,
      events: received,
      seconds,
      latencies,
      rssBaseMb: rssBase,
      rssConnectedMb: rssConnected,
      rssPeakMb: peak,
      stats,
    };
  } finally {
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
    rmSync(home, { recursive: true, force: true });
  }
}

function pct(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summarize(r: Result) {
  const sorted = r.latencies.slice(0, r.events).sort();
  return {
    eventsPerSec: r.events / r.seconds,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    rssPerSessionMb: (r.rssPeakMb - r.rssBaseMb) / SESSIONS,
    ...r,
  };
}

/** Cold start of the installed launcher (the bundle when `npm run build` made one): spawn → `listening`, ms. */
async function coldStartMs(): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), "tiller-gw-cold-"));
  try {
    const t0 = now();
    const proc = spawn(process.execPath, [join(ROOT, "packages/gateway/bin/tiller-gateway.js"), "--port", "0"], {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await waitLine(proc, /listening (ws:\/\/\S+)/);
    const ms = now() - t0;
    proc.kill("SIGTERM");
    await new Promise((r) => proc.once("exit", r));
    return ms;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

// BENCH_TARGETS=floor,tiller,basic,ref (default: all) runs only some targets, e.g. to profile one.
const TARGETS = new Set((process.env.BENCH_TARGETS ?? "floor,tiller,basic,ref,cold").split(","));
const skipped = (name: string): Result => ({
  name,
  events: 0,
  seconds: Number.NaN,
  latencies: new Float64Array(0),
  rssBaseMb: 0,
  rssPeakMb: 0,
});
const cold: number[] = [];
if (TARGETS.has("cold")) for (let i = 0; i < 5; i++) cold.push(await coldStartMs());
cold.sort((a, b) => a - b);
const floor = summarize(TARGETS.has("floor") ? await runFloor() : skipped("ws floor"));
const tiller = summarize(TARGETS.has("tiller") ? await runGateway("agent-session") : skipped("tiller gateway"));
const basic = summarize(TARGETS.has("basic") ? await runGateway("basic") : skipped("tiller (basic)"));
const reference = summarize(TARGETS.has("ref") ? await runGateway("agent-session", true) : skipped("tiller, ref. cl."));
console.log(
  `${SESSIONS} sessions × ${DELTAS} deltas (${(SESSIONS * DELTAS).toLocaleString()} events per target), gateway from ${DIST ? "its build (dist)" : "source (tsx)"}`,
);
console.log("target          events   seconds   events/s   p50 ms   p99 ms   RSS base→peak MB   RSS/session MB");
for (const r of [floor, tiller, basic, reference]) {
  console.log(
    `${r.name.padEnd(14)} ${String(r.events).padStart(8)} ${r.seconds.toFixed(2).padStart(9)} ${Math.round(
      r.eventsPerSec,
    )
      .toLocaleString()
      .padStart(
        10,
      )} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)}   ${`${r.rssBaseMb.toFixed(0)}→${r.rssPeakMb.toFixed(0)}`.padStart(16)} ${r.rssPerSessionMb.toFixed(2).padStart(16)}`,
  );
}
console.log(
  "tiller gateway: the full pipeline (coding agent's AgentSession engine); tiller (basic): the same gateway with the minimal engine",
);
console.log(
  `ratio basic/floor: throughput ${(basic.eventsPerSec / floor.eventsPerSec).toFixed(2)}×, p50 latency ${(basic.p50 / floor.p50).toFixed(2)}×`,
);
console.log(
  `ratio tiller/floor: throughput ${(tiller.eventsPerSec / floor.eventsPerSec).toFixed(2)}×, p50 latency ${(tiller.p50 / floor.p50).toFixed(2)}×, p99 latency ${(tiller.p99 / floor.p99).toFixed(2)}×`,
);
for (const r of [tiller, basic, reference]) {
  if (!r.stats) continue;
  const st = r.stats;
  console.log(
    `${r.name}: RSS ${r.rssBaseMb.toFixed(0)} MB idle, ${r.rssConnectedMb?.toFixed(0)} MB with ${SESSIONS} clients connected (${(((r.rssConnectedMb ?? 0) - r.rssBaseMb) / SESSIONS).toFixed(2)} MB each), ${r.rssPeakMb.toFixed(0)} MB peak; peak V8 heap ${st.heapTotalMb} MB committed, ${st.heapUsedMb} MB used; external ${st.externalMb} MB (array buffers ${st.arrayBuffersMb} MB)`,
  );
  console.log(
    `${r.name}: event-loop delay max ${st.loopMaxMs.toFixed(1)} ms, p99 ${st.loopP99Ms.toFixed(1)} ms; GC ${st.gcCount} pauses, total ${st.gcMs.toFixed(0)} ms (major ${st.majorGcMs.toFixed(0)} ms), longest ${st.gcMaxMs.toFixed(1)} ms`,
  );
}
if (tiller.stats) {
  const mark = (ok: boolean): string => (ok ? "PASS" : "MISS");
  const ratio = tiller.eventsPerSec / floor.eventsPerSec;
  console.log(
    `goals (issue 14), tiller gateway: p99 ${tiller.p99.toFixed(1)} ms < 50 ms ${mark(tiller.p99 < 50)} (floor p50 ${floor.p50.toFixed(1)} / p99 ${floor.p99.toFixed(1)} ms, tiller p50 ${tiller.p50.toFixed(1)} ms); throughput ${ratio.toFixed(2)}× floor ≥ 0.8× ${mark(ratio >= 0.8)}; RSS ${tiller.rssPerSessionMb.toFixed(2)} MB/session ≤ 0.5 ${mark(tiller.rssPerSessionMb <= 0.5)}`,
  );
}
if (tiller.events !== SESSIONS * DELTAS)
  console.log(`note: ${SESSIONS * DELTAS - tiller.events} deltas dropped for slow clients`);
// The reply of one run: DELTAS deltas of about 19 characters ("t<ms with µs>|").
const replyBytes = DELTAS * 19;
const perRun = (r: { bytes?: number }) => (r.bytes ?? 0) / SESSIONS;
console.log(
  `bytes sent per run: delta-only client ${(perRun(tiller) / 1024).toFixed(0)} KB, reference-protocol client ${(perRun(reference) / 1024).toFixed(0)} KB (reply ≈ ${(replyBytes / 1024).toFixed(0)} KB: ${(perRun(tiller) / replyBytes).toFixed(1)}× and ${(perRun(reference) / replyBytes).toFixed(1)}× the reply)`,
);
console.log(
  `cold start (spawn → listening, packages/gateway/bin/tiller-gateway.js): median ${cold[2]?.toFixed(0)} ms of 5 (min ${cold[0]?.toFixed(0)}, max ${cold[4]?.toFixed(0)})`,
);
