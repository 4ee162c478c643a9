/**
 * One tool call whose JSON arguments (a `write` of a large file) stream in 64-byte fragments through the real
 * openai-completions provider from a loopback server, Tiller vs @mariozechner/pi-ai 0.73.1.
 *
 * Tiller parses the arguments incrementally (each fragment costs its own length), so time should grow
 * linearly with size; pi-ai re-parses the whole buffer on every fragment (quadratic), so it runs only at
 * small sizes under a time cap and its larger sizes are extrapolated.
 * With bench/reference installed, the file runs again as a child of its Node 22 binary (`--pi16`), Tiller against
 * pi 1.6.0 (`@earendil-works/pi-ai`, which parses arguments incrementally too) at 100 KB and 1 MB, interleaved,
 * least wall and CPU time of BENCH_PI16_RUNS runs each (default 11; three times as many at 100 KB), with the wall
 * spread, and prints the Tiller/pi-1.6 ratios.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { stream as piStream } from "@mariozechner/pi-ai";
import { stream as tillerStream } from "@tiller/ai";
import { encodeSse } from "../packages/ai/test/helpers/mock-server.js";
import { startSseFileServer } from "../packages/ai/test/helpers/sse-file-server.js";
import { openaiChatEvents } from "../packages/ai/test/helpers/vendor-events.js";
import { hasPi16, importPi16, NODE22, pi16Label, TS_ARGS } from "./pi16.js";
import { recordTarget } from "./summary.js";

const FRAGMENT = 64;
const TILLER_SIZES = [100_000, 1_000_000, 4_000_000];
const PI_SIZES = [20_000, 50_000, 100_000];
const PI_CAP_MS = Number(process.env.BENCH_PI_CAP_MS ?? 30_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function argsOfSize(bytes: number): string {
  const line = 'export const value = "some \\"quoted\\" text";\n';
  let content = "";
  while (content.length < bytes) content += line;
  return JSON.stringify({ path: "src/big-file.ts", content: content.slice(0, bytes) });
}

function sseFor(args: string): string {
  const fragments: string[] = [];
  for (let i = 0; i < args.length; i += FRAGMENT) fragments.push(args.slice(i, i + FRAGMENT));
  const events = openaiChatEvents({
    toolCalls: [{ id: "call_big", name: "write", args: fragments }],
    finish: "tool",
    usage: { input: 10, output: fragments.length },
  });
  return events.map(encodeSse).join("");
}

type Ev = { type: string; toolCall?: { arguments: Record<string, unknown> } };
type StreamLike = AsyncIterable<Ev> & { result(): Promise<{ stopReason: string }> };

interface Timing {
  totalMs: number;
  /** CPU time of this process (the server runs in another one) */
  cpuMs: number;
  /** first toolcall_delta → toolcall_end */
  argsMs: number;
  contentLength: number;
}

async function timeOne(run: () => StreamLike): Promise<Timing> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let first = 0;
  let end = 0;
  let contentLength = -1;
  const s = run();
  for await (const e of s) {
    if (e.type === "toolcall_delta" && first === 0) first = performance.now();
    if (e.type === "toolcall_end") {
      end = performance.now();
      contentLength = String(e.toolCall?.arguments.content ?? "").length;
    }
  }
  const result = await s.result();
  if (result.stopReason !== "toolUse") throw new Error(`ended with ${result.stopReason}`);
  const cpu = process.cpuUsage(c0);
  return { totalMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, argsMs: end - first, contentLength };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const model = (baseUrl: string) => ({
  id: "bench-model",
  name: "bench",
  api: "openai-completions",
  provider: "openai",
  baseUrl,
  reasoning: false,
  input: ["text" as const],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 100_000,
});
const context = { messages: [{ role: "user" as const, content: "Write the file.", timestamp: 0 }] };

type StreamFn = (model: never, context: unknown, options: { apiKey: string }) => unknown;
/** pi 1.6's `stream` (its `compat` entry point keeps the api-routed functions), loaded only in the --pi16 child. */
let pi16Stream: StreamFn | undefined;

async function measure(impl: "tiller" | "pi" | "pi16", size: number, runs: number): Promise<Timing> {
  const args = argsOfSize(size);
  const expected = (JSON.parse(args) as { content: string }).content.length;
  const sse = sseFor(args);
  const server = await startSseFileServer(sse);
  try {
    const m = model(`${server.url}/v1`);
    const fn: StreamFn =
      impl === "tiller"
        ? (tillerStream as StreamFn)
        : impl === "pi"
          ? (piStream as StreamFn)
          : (pi16Stream as StreamFn);
    const run = () => fn(m as never, context, { apiKey: "k" }) as StreamLike;
    const timings: Timing[] = [];
    for (let i = 0; i < runs; i++) {
      const t = await timeOne(run);
      if (t.contentLength !== expected) throw new Error(`${impl} ${size}: content ${t.contentLength} != ${expected}`);
      timings.push(t);
    }
    return {
      totalMs: median(timings.map((t) => t.totalMs)),
      cpuMs: median(timings.map((t) => t.cpuMs)),
      argsMs: median(timings.map((t) => t.argsMs)),
      contentLength: expected,
    };
  } finally {
    await server.close();
  }
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const kb = (n: number) => (n >= 1e6 ? `${n / 1e6} MB` : `${n / 1e3} KB`);

const PI16_SIZES = [100_000, 1_000_000];

/**
 * Runs per size in the --pi16 child (interleaved); wall and CPU time each the least over them (a loaded host only
 * ever adds time). The 100 KB call takes about 10 ms, much of it the request round trip: it gets more runs.
 */
const PI16_RUNS = Number(process.env.BENCH_PI16_RUNS ?? 11);
const runsAt = (size: number) => (size <= 100_000 ? PI16_RUNS * 3 : PI16_RUNS);

interface Pi16Row {
  size: number;
  tiller: Timing;
  pi16: Timing;
  /** Least and most wall time of each over its runs. */
  spread: { tiller: [number, number]; pi16: [number, number] };
}

/** The --pi16 child (on Node 22): Tiller and pi 1.6 at each size, interleaved run by run; one JSON line. */
async function pi16Child(): Promise<void> {
  pi16Stream = (await importPi16("pi-ai", "./compat")).stream as StreamFn;
  await measure("tiller", 50_000, 1); // warm-up
  await measure("pi16", 50_000, 1);
  const least = (ts: Timing[]): Timing => ({
    totalMs: Math.min(...ts.map((t) => t.totalMs)),
    cpuMs: Math.min(...ts.map((t) => t.cpuMs)),
    argsMs: Math.min(...ts.map((t) => t.argsMs)),
    contentLength: ts[0]?.contentLength ?? 0,
  });
  const range = (ts: Timing[]): [number, number] => [
    Math.min(...ts.map((t) => t.totalMs)),
    Math.max(...ts.map((t) => t.totalMs)),
  ];
  const out: Pi16Row[] = [];
  for (const size of PI16_SIZES) {
    const tiller: Timing[] = [];
    const pi16: Timing[] = [];
    for (let i = 0; i < runsAt(size); i++) {
      tiller.push(await measure("tiller", size, 1));
      pi16.push(await measure("pi16", size, 1));
    }
    out.push({
      size,
      tiller: least(tiller),
      pi16: least(pi16),
      spread: { tiller: range(tiller), pi16: range(pi16) },
    });
  }
  console.log(JSON.stringify(out));
}

function comparePi16(): void {
  const res = spawnSync(NODE22, [...TS_ARGS, fileURLToPath(import.meta.url), "--pi16"], {
    encoding: "utf8",
    maxBuffer: 1 << 22,
  });
  const line = res.stdout.trim().split("\n").at(-1) ?? "";
  if (res.status !== 0 || !line.startsWith("[")) throw new Error(`pi 1.6 child failed:\n${res.stderr}\n${res.stdout}`);
  const rows = JSON.parse(line) as Pi16Row[];
  const version = spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`\nTiller vs ${pi16Label()}, both on Node ${version} (bench/reference):`);
  console.log(
    `| size | runs | tiller request→done, least (spread) | ${pi16Label()} | tiller/pi-1.6 (target >= 1.5x) | client CPU tiller/pi-1.6 |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  const ms1 = (x: number) => `${x.toFixed(1)} ms`;
  for (const r of rows) {
    const lead = r.pi16.totalMs / r.tiller.totalMs;
    const cpuLead = r.pi16.cpuMs / r.tiller.cpuMs;
    const cell = (t: Timing, [lo, hi]: [number, number]) => `${ms1(t.totalMs)} (${ms1(lo)}-${ms1(hi)})`;
    console.log(
      `| ${kb(r.size)} | ${runsAt(r.size)} | ${cell(r.tiller, r.spread.tiller)} | ${cell(r.pi16, r.spread.pi16)} | ${lead.toFixed(2)}x${lead >= 1.5 ? "" : " (MISSED)"} | ${cpuLead.toFixed(2)}x |`,
    );
    recordTarget({
      bench: "ai-toolcall-args",
      row: `tool-call arguments ${kb(r.size)}`,
      vs: pi16Label(),
      ratio: lead,
      target: 1.5,
      note: `client CPU ${cpuLead.toFixed(2)}x; ${runsAt(r.size)} runs each`,
    });
  }
}

if (process.argv[2] === "--pi16") {
  await pi16Child();
} else {
  await main();
  if (hasPi16()) comparePi16();
  else console.log("\nbench/reference is not installed: the pi 1.6 rows are skipped (scripts/bench.mjs installs it).");
}

async function main(): Promise<void> {
  console.log(`tool-call arguments in ${FRAGMENT}-byte fragments via openai-completions (loopback SSE)`);
  await measure("tiller", 50_000, 1); // warm-up
  console.log(
    "| impl | size | fragments | request→done (wall) | client CPU | first delta→toolcall_end | growth vs previous size |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  const tiller: Timing[] = [];
  for (const size of TILLER_SIZES) {
    const t = await measure("tiller", size, RUNS);
    const prev = tiller.at(-1);
    const prevSize = TILLER_SIZES[tiller.length - 1];
    const growth =
      prev && prevSize
        ? `x${(t.totalMs / prev.totalMs).toFixed(1)} time for x${size / prevSize} size (exponent ${(Math.log(t.totalMs / prev.totalMs) / Math.log(size / prevSize)).toFixed(2)})`
        : "";
    tiller.push(t);
    console.log(
      `| Tiller | ${kb(size)} | ${Math.ceil(size / FRAGMENT)} | ${fmt(t.totalMs)} | ${fmt(t.cpuMs)} | ${fmt(t.argsMs)} | ${growth} |`,
    );
  }

  await measure("pi", 5_000, 1); // warm-up
  const pi: { size: number; t: Timing }[] = [];
  let spent = 0;
  for (const size of PI_SIZES) {
    if (spent > PI_CAP_MS) {
      console.log(`| pi-ai | ${kb(size)} | skipped (time cap ${PI_CAP_MS / 1000} s reached) | | | | |`);
      continue;
    }
    const t = await measure("pi", size, 1);
    spent += t.totalMs;
    const prev = pi.at(-1);
    const growth = prev
      ? `x${(t.totalMs / prev.t.totalMs).toFixed(1)} time for x${size / prev.size} size (exponent ${(Math.log(t.totalMs / prev.t.totalMs) / Math.log(size / prev.size)).toFixed(2)})`
      : "";
    pi.push({ size, t });
    console.log(
      `| pi-ai | ${kb(size)} | ${Math.ceil(size / FRAGMENT)} | ${fmt(t.totalMs)} | ${fmt(t.cpuMs)} | ${fmt(t.argsMs)} | ${growth} |`,
    );
  }

  const lastPi = pi.at(-1);
  if (lastPi) {
    const tillerAt = tiller[TILLER_SIZES.indexOf(lastPi.size)];
    if (tillerAt) {
      console.log(`\nat ${kb(lastPi.size)}: pi-ai / Tiller = ${(lastPi.t.totalMs / tillerAt.totalMs).toFixed(1)}x`);
    }
    for (const size of [1_000_000, 4_000_000]) {
      const est = lastPi.t.argsMs * (size / lastPi.size) ** 2;
      const ours = tiller[TILLER_SIZES.indexOf(size)];
      console.log(
        `pi-ai at ${kb(size)} (quadratic extrapolation from ${kb(lastPi.size)}): ~${fmt(est)}` +
          (ours ? `; Tiller measured ${fmt(ours.totalMs)} (~${(est / ours.totalMs).toFixed(0)}x)` : ""),
      );
    }
  }
  const four = tiller[TILLER_SIZES.indexOf(4_000_000)];
  if (four) {
    const load = (await import("node:os")).loadavg()[0]?.toFixed(1);
    console.log(
      `\nTiller 4 MB: wall ${fmt(four.totalMs)} (under 1 s: ${four.totalMs < 1000 ? "yes" : "NO"}), client CPU ${fmt(four.cpuMs)} (under 1 s: ${four.cpuMs < 1000 ? "yes" : "NO"}); load average ${load} on ${(await import("node:os")).cpus().length} cores`,
    );
  }
}
