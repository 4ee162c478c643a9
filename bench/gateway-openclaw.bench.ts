/**
 * Tiller's gateway beside the reference's own: OpenClaw 2026.9.6's gateway (under the Node 24 binary of the npm
 * `node` package, both from bench/reference/openclaw/) and Tiller's, each a real process on the same loopback mock
 * model (bench/gateway-openai-model-server.ts, OpenAI chat-completions SSE, its own process) and the same load in
 * one run: N sessions (default 200), each a reference-protocol WebSocket client (no Tiller capabilities) sending one
 * `agent` request for a reply of D deltas (default 2000) and waiting for its final answer. Prints, per gateway and
 * as Tiller/OpenClaw ratios: wall time, first-delta latency (request → first event with reply text) and final
 * latency (request → final answer) p50/p99, bytes the clients received, peak RSS of the gateway's process tree
 * (beyond its idle baseline, and per session), and cold start (spawn → first `health` answered).
 *
 * Each gateway gets one warm-up run (one session, a short reply) before the load, so the load measures serving, not
 * first-use loading; cold start is measured separately. Tiller's load runs from source (tsx), its cold start from
 * the installed launcher packages/gateway/bin/tiller-gateway.js (the bundle `npm run build` makes).
 *   BENCH_SESSIONS=200 BENCH_DELTAS=2000 BENCH_COLD=3 npm run bench -- gateway-openclaw
 * Without bench/reference/openclaw installed (scripts/bench.mjs installs it; it needs the registry) only Tiller runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type ClientOptions, GatewayClient } from "../packages/gateway/src/cli/gateway-client.js";
import { waitLine } from "./wait-line.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 200);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 2000);
const COLD_RUNS = Number(process.env.BENCH_COLD ?? 3);
/** Sessions of the bytes check (per identity, at D and 2D deltas); 0 skips it. */
const BYTES_SESSIONS = Number(process.env.BENCH_BYTES_SESSIONS ?? 20);
const ROOT = join(import.meta.dirname, "..");
const REF = join(ROOT, "bench", "reference", "openclaw", "node_modules");
const NODE24 = join(REF, "node", "bin", "node");
const OPENCLAW = join(REF, "openclaw", "openclaw.mjs");
const TOKEN = "bench-token";
const now = (): number => performance.timeOrigin + performance.now();

// ---- processes ---------------------------------------------------------------------------------------------

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** RSS of a process and all its descendants (the reference starts helper processes), MB. */
function treeRssMb(pid: number): number {
  let kb = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
      if (m) kb += Number(m[1]);
      for (const t of readFileSync(`/proc/${p}/task/${p}/children`, "utf8").split(" "))
        if (t.trim()) stack.push(Number(t));
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

function startSampler(pid: number): { stop(): number } {
  let peak = treeRssMb(pid);
  const t = setInterval(() => {
    peak = Math.max(peak, treeRssMb(pid));
  }, 50);
  return {
    stop: () => {
      clearInterval(t);
      return Math.max(peak, treeRssMb(pid));
    },
  };
}

/** Stops a gateway (its whole process group: the reference's helpers too): SIGTERM, then SIGKILL after 20 s. */
async function stopGroup(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  const kill = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-(proc.pid as number), sig);
    } catch {
      // already gone
    }
  };
  kill("SIGTERM");
  const t = setTimeout(() => kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(t);
}

/** Who a bench client says it is: the reference CLI's identity (the load), or a v4 chat client (the bytes check). */
interface Identity {
  name: string;
  clientId: string;
  mode: string;
  caps: string[];
}
const CLI: Identity = { name: "cli", clientId: "cli", mode: "cli", caps: [] };
/**
 * A v4 client that gets the chat view: the reference's own gateway client library (`gateway-client`, mode
 * `backend`, as `openclaw agent --model` connects). The TUI's identity (mode `ui`) is refused by the reference
 * without a device identity, and it would get the same view from Tiller.
 */
const CHAT: Identity = { name: "gateway-client", clientId: "gateway-client", mode: "backend", caps: [] };

/** Connects as a reference-protocol client (by default the CLI's client id, no Tiller capabilities). */
function connect(url: string, onEvent?: ClientOptions["onEvent"], who: Identity = CLI) {
  return GatewayClient.connect(url, {
    token: TOKEN,
    clientId: who.clientId,
    mode: who.mode,
    // Events of the sessions it subscribed to only: without it the reference sends every client every session's
    // events (200 × the traffic), which no real client of one session asks for.
    caps: [...who.caps, "session-scoped-events"],
    scopes: ["operator.read", "operator.write"],
    timeoutMs: 60_000,
    ...(onEvent ? { onEvent } : {}),
  });
}

async function connectRetrying(url: string, onEvent: ClientOptions["onEvent"], who: Identity): Promise<GatewayClient> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connect(url, onEvent, who);
    } catch (err) {
      if (attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100 + 50 * attempt));
    }
  }
}

/** Polls until the gateway answers `health`; resolves with the time it answered. */
async function untilHealthy(url: string, proc: ChildProcess, deadlineMs: number): Promise<number> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited (${proc.exitCode}) before answering health`);
    try {
      const c = await connect(url);
      try {
        await c.request("health", {}, { timeoutMs: 30_000 });
        return now();
      } finally {
        await c.close();
      }
    } catch (err) {
      if (Date.now() > end) throw new Error(`no health answer within ${deadlineMs} ms: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

// ---- the two gateways ------------------------------------------------------------------------------------

interface Target {
  name: string;
  /** Spawns the gateway for the load (and its home); `cold`: the launcher cold start measures. */
  spawn(port: number, cold: boolean): { proc: ChildProcess; cleanup(): void };
}

function tillerTarget(modelUrl: string): Target {
  return {
    name: "tiller",
    spawn(port, cold) {
      const home = mkdtempSync(join(tmpdir(), "tiller-oc-bench-"));
      writeFileSync(
        join(home, "tiller.json"),
        JSON.stringify({ agents: { defaults: { model: "bench/stream", maxConcurrent: SESSIONS } } }),
      );
      writeFileSync(
        join(home, "models.json"),
        JSON.stringify({
          providers: {
            bench: {
              baseUrl: `${modelUrl}/v1`,
              apiKey: "bench",
              api: "openai-completions",
              models: [{ id: "stream", contextWindow: 128_000, maxTokens: 8192 }],
            },
          },
        }),
      );
      const entry = cold
        ? [join(ROOT, "packages/gateway/bin/tiller-gateway.js")]
        : [
            // BENCH_PROF=<dir>: a CPU profile of Tiller's gateway under the load.
            ...(process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
            "--conditions=tiller-source",
            "--import",
            "tsx",
            join(ROOT, "packages/gateway/src/cli/gateway-command.ts"),
          ];
      const proc = spawn(process.execPath, [...entry, "--port", String(port), "--token", TOKEN], {
        cwd: ROOT,
        env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      proc.stdout?.resume();
      proc.stderr?.resume();
      return { proc, cleanup: () => rmSync(home, { recursive: true, force: true }) };
    },
  };
}

function openclawTarget(modelUrl: string): Target {
  return {
    name: "openclaw",
    spawn(port) {
      const dir = mkdtempSync(join(tmpdir(), "openclaw-bench-"));
      const state = join(dir, "state");
      mkdirSync(state, { recursive: true });
      mkdirSync(join(dir, "home"), { recursive: true });
      writeFileSync(
        join(state, "openclaw.json"),
        JSON.stringify({
          gateway: { mode: "local", bind: "loopback", port, auth: { mode: "token", token: TOKEN } },
          agents: {
            defaults: { model: { primary: "bench/stream" }, workspace: join(dir, "work"), maxConcurrent: SESSIONS },
          },
          models: {
            mode: "replace",
            providers: {
              bench: {
                baseUrl: `${modelUrl}/v1`,
                apiKey: "bench",
                api: "openai-completions",
                models: [
                  {
                    id: "stream",
                    name: "stream",
                    reasoning: false,
                    input: ["text"],
                    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                    contextWindow: 128_000,
                    maxTokens: 8192,
                  },
                ],
              },
            },
          },
        }),
      );
      const proc = spawn(NODE24, [OPENCLAW, "gateway", "run", "--port", String(port)], {
        cwd: dir,
        env: { ...process.env, HOME: join(dir, "home"), OPENCLAW_STATE_DIR: state, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      let log = "";
      const keep = (d: Buffer): void => {
        log = (log + String(d)).slice(-4000);
      };
      proc.stdout?.on("data", keep);
      proc.stderr?.on("data", keep);
      proc.once("exit", (code) => {
        if (code !== 0 && code !== null) process.stderr.write(`openclaw gateway exited ${code}:\n${log}\n`);
      });
      return { proc, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  };
}

// ---- measurements ------------------------------------------------------------------------------------------

interface LoadResult {
  seconds: number;
  firstDelta: Float64Array;
  final: Float64Array;
  bytes: number;
  /** Characters of all the runs' replies (the final answers' text). */
  replyChars: number;
  rssBaseMb: number;
  rssPeakMb: number;
  okRuns: number;
}

/** Sends one `agent` request per session at once and waits for every final answer. */
async function load(url: string, pid: number, sessions: number, deltas: number, who = CLI): Promise<LoadResult> {
  const firstDelta = new Float64Array(sessions).fill(Number.NaN);
  const final = new Float64Array(sessions);
  const sentAt = new Float64Array(sessions);
  const runOf = new Map<string, number>();
  const onEvent: ClientOptions["onEvent"] = (f) => {
    if (f.event !== "agent" && f.event !== "chat") return;
    const p = f.payload as { runId?: string; stream?: string; state?: string; data?: { delta?: string } };
    const i = p.runId === undefined ? undefined : runOf.get(p.runId);
    if (process.env.BENCH_DEBUG && i !== undefined && f.event === "agent" && p.stream === "lifecycle")
      console.log(
        `run ${i} ${(p as { data?: { phase?: string } }).data?.phase} at ${(now() - (sentAt[i] as number)).toFixed(0)} ms`,
      );
    if (i === undefined || !Number.isNaN(firstDelta[i] as number)) return;
    const hasText = f.event === "agent" ? p.stream === "assistant" && !!p.data?.delta : p.state === "delta";
    if (hasText) firstDelta[i] = now() - (sentAt[i] as number);
    if (hasText && process.env.BENCH_DEBUG) {
      const d = f.event === "agent" ? (p.data?.delta ?? "") : "";
      const emitted = Number(/^t([\d.]+)\|/.exec(d)?.[1] ?? Number.NaN);
      console.log(
        `run ${i} first text at ${firstDelta[i]?.toFixed(0)} ms, emitted by the model ${(emitted - (sentAt[i] as number)).toFixed(0)} ms, ${d.length} chars`,
      );
    }
  };
  // Connected ten at a time, retrying refusals (the reference answers a burst of upgrades with 503): connecting is
  // not part of what is measured.
  const clients: GatewayClient[] = [];
  while (clients.length < sessions) {
    const batch = Math.min(10, sessions - clients.length);
    clients.push(...(await Promise.all(Array.from({ length: batch }, () => connectRetrying(url, onEvent, who)))));
  }
  let bytes = 0;
  let replyChars = 0;
  for (const c of clients) c.ws.on("message", (d: Buffer) => void (bytes += d.length));
  const keys = clients.map((_, s) => `bench-${s}-${randomUUID().slice(0, 8)}`);
  await Promise.all(clients.map((c, s) => c.request("sessions.messages.subscribe", { key: keys[s] })));
  const rssBase = treeRssMb(pid);
  const sampler = startSampler(pid);
  const t0 = now();
  const answers = await Promise.all(
    clients.map((c, s) => {
      const runId = randomUUID();
      runOf.set(runId, s);
      sentAt[s] = now();
      return c
        .request(
          "agent",
          {
            message: `[deltas:${deltas}]`,
            idempotencyKey: runId,
            sessionKey: keys[s],
          },
          { expectFinal: true, timeoutMs: 900_000 },
        )
        .then(
          (r) => {
            final[s] = now() - (sentAt[s] as number);
            const payloads = (r as { result?: { payloads?: { text?: string }[] } }).result?.payloads ?? [];
            for (const p of payloads) replyChars += p.text?.length ?? 0;
            return (r as { status?: string }).status === "ok";
          },
          (err: unknown) => {
            final[s] = Number.NaN;
            process.stderr.write(`run ${s} failed: ${String(err)}\n`);
            return false;
          },
        );
    }),
  );
  const seconds = (now() - t0) / 1000;
  const rssPeak = sampler.stop();
  await Promise.all(clients.map((c) => c.close()));
  return {
    seconds,
    firstDelta,
    final,
    bytes,
    replyChars,
    rssBaseMb: rssBase,
    rssPeakMb: rssPeak,
    okRuns: answers.filter(Boolean).length,
  };
}

async function coldStartMs(t: Target): Promise<number> {
  const port = await freePort();
  const t0 = now();
  const { proc, cleanup } = t.spawn(port, true);
  try {
    return (await untilHealthy(`ws://127.0.0.1:${port}`, proc, 180_000)) - t0;
  } finally {
    await stopGroup(proc);
    cleanup();
  }
}

/** Bytes per run ÷ the reply, for one client identity at D and 2D deltas (linear: the two about equal). */
interface BytesPerReply {
  at1: number;
  at2: number;
  /** How much the reply and the bytes grew from D to 2D deltas. */
  replyGrowth: number;
  bytesGrowth: number;
}

/** The bytes check: BYTES_SESSIONS runs per identity and reply length, after the load on the same gateway. */
async function bytesPerReply(url: string, pid: number, who: Identity): Promise<BytesPerReply> {
  const ratio = (r: LoadResult): number => (r.replyChars > 0 ? r.bytes / r.replyChars : Number.NaN);
  const one = await load(url, pid, BYTES_SESSIONS, DELTAS, who);
  const two = await load(url, pid, BYTES_SESSIONS, 2 * DELTAS, who);
  return {
    at1: ratio(one),
    at2: ratio(two),
    replyGrowth: two.replyChars / one.replyChars,
    bytesGrowth: two.bytes / one.bytes,
  };
}

async function measure(
  t: Target,
): Promise<LoadResult & { coldMs: number[]; perReply: Record<string, BytesPerReply | undefined> }> {
  const coldMs: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) coldMs.push(await coldStartMs(t));
  const port = await freePort();
  const { proc, cleanup } = t.spawn(port, false);
  try {
    const url = `ws://127.0.0.1:${port}`;
    await untilHealthy(url, proc, 180_000);
    await load(url, proc.pid as number, 1, 4); // warm-up
    const r = await load(url, proc.pid as number, SESSIONS, DELTAS);
    const perReply: Record<string, BytesPerReply | undefined> = {};
    for (const who of BYTES_SESSIONS > 0 ? [CLI, CHAT] : []) {
      try {
        perReply[who.name] = await bytesPerReply(url, proc.pid as number, who);
      } catch (err) {
        console.log(`${t.name}: the bytes check as ${who.name} failed: ${err instanceof Error ? err.message : err}`);
      }
    }
    return { ...r, coldMs, perReply };
  } finally {
    await stopGroup(proc);
    cleanup();
  }
}

function pct(values: Float64Array, p: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;

// ---- run ---------------------------------------------------------------------------------------------------

const model = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench/gateway-openai-model-server.ts")], {
  cwd: ROOT,
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const modelUrl = (await waitLine(model, /listening (http:\/\/\S+)/))[1] as string;
  const haveRef = existsSync(NODE24) && existsSync(OPENCLAW);
  // BENCH_TARGETS=tiller (or openclaw) runs one of the two.
  const only = process.env.BENCH_TARGETS?.split(",");
  const targets = [tillerTarget(modelUrl), ...(haveRef ? [openclawTarget(modelUrl)] : [])].filter(
    (t) => !only || only.includes(t.name),
  );
  if (!haveRef)
    console.log("bench/reference/openclaw is not installed: only Tiller runs (scripts/bench.mjs installs it)");
  const results = new Map<string, Awaited<ReturnType<typeof measure>>>();
  for (const t of targets) {
    console.log(`measuring ${t.name}…`);
    try {
      const r = await measure(t);
      results.set(t.name, r);
      console.log(
        `${t.name}: ${r.okRuns}/${SESSIONS} runs ok in ${r.seconds.toFixed(2)} s, ${(r.bytes / 1e6).toFixed(1)} MB to clients, RSS ${r.rssBaseMb.toFixed(0)}→${r.rssPeakMb.toFixed(0)} MB, cold ${r.coldMs.map((x) => x.toFixed(0)).join("/")} ms`,
      );
    } catch (err) {
      console.log(`${t.name}: the measurement failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  console.log(
    `\n${SESSIONS} sessions × ${DELTAS} deltas on one loopback mock model (OpenAI SSE); reference-protocol clients; Tiller on Node ${process.versions.node}, OpenClaw 2026.9.6 on Node 24`,
  );
  type Row = [string, (r: Awaited<ReturnType<typeof measure>>) => number, (n: number) => string];
  const rows: Row[] = [
    ["wall s", (r) => r.seconds, (n) => n.toFixed(2)],
    ["first delta p50 ms", (r) => pct(r.firstDelta, 50), (n) => n.toFixed(0)],
    ["first delta p99 ms", (r) => pct(r.firstDelta, 99), (n) => n.toFixed(0)],
    ["final p50 ms", (r) => pct(r.final, 50), (n) => n.toFixed(0)],
    ["final p99 ms", (r) => pct(r.final, 99), (n) => n.toFixed(0)],
    ["bytes sent MB", (r) => r.bytes / 1e6, (n) => n.toFixed(1)],
    ["bytes per run / reply", (r) => r.bytes / r.replyChars, (n) => `${n.toFixed(2)}×`],
    ...(["cli", "gateway-client"] as const).flatMap((who): Row[] =>
      [1, 2].map((k) => [
        `  as ${who}, ${k * DELTAS} deltas`,
        (r) => r.perReply[who]?.[k === 1 ? "at1" : "at2"] ?? Number.NaN,
        (n) => `${n.toFixed(2)}×`,
      ]),
    ),
    ["RSS peak MB", (r) => r.rssPeakMb, (n) => n.toFixed(0)],
    ["RSS / session MB", (r) => (r.rssPeakMb - r.rssBaseMb) / SESSIONS, (n) => n.toFixed(2)],
    ["cold start ms (median)", (r) => median(r.coldMs), (n) => n.toFixed(0)],
  ];
  const tiller = results.get("tiller");
  const ref = results.get("openclaw");
  console.log(`${"".padEnd(34)}${"tiller".padStart(12)}${"openclaw".padStart(12)}${"tiller/openclaw".padStart(17)}`);
  for (const [label, get, fmt] of rows) {
    const a = tiller ? get(tiller) : Number.NaN;
    const b = ref ? get(ref) : Number.NaN;
    console.log(
      `${label.padEnd(34)}${fmt(a).padStart(12)}${(ref ? fmt(b) : "-").padStart(12)}${(ref ? `${(a / b).toFixed(2)}×` : "-").padStart(17)}`,
    );
  }
  for (const [name, r] of results) {
    if (r.okRuns !== SESSIONS) console.log(`note: ${name}: ${SESSIONS - r.okRuns} of ${SESSIONS} runs did not end ok`);
    console.log(`${name} cold starts ms: ${r.coldMs.map((x) => x.toFixed(0)).join(", ")}`);
  }
  for (const [name, r] of results)
    for (const [who, b] of Object.entries(r.perReply))
      if (b)
        console.log(
          `${name} as ${who}: bytes per run ÷ reply ${b.at1.toFixed(2)}× at ${DELTAS} deltas, ${b.at2.toFixed(2)}× at ${2 * DELTAS} (${b.replyGrowth.toFixed(2)}× the reply: ${b.bytesGrowth.toFixed(2)}× the bytes)`,
        );
  if (tiller && ref) {
    console.log(
      `goals: tiller ≥ 4× faster (wall ${(ref.seconds / tiller.seconds).toFixed(2)}×), ≤ 0.5× its RSS (${(tiller.rssPeakMb / ref.rssPeakMb).toFixed(2)}×), cold start < 300 ms (${median(tiller.coldMs).toFixed(0)} ms)`,
    );
  }
} finally {
  model.kill("SIGTERM");
}
