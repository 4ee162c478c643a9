/**
 * CLI start-up: `tiller --version` and `tiller -p "hi"` (built CLI through its launcher packages/coding-agent/bin/tiller.js: the bundle when built) against
 * `pi --version` and `pi -p "hi"` (@mariozechner/pi-coding-agent 0.73.1), with `node -e 0` as the floor.
 * `-p` runs against a loopback OpenAI-compatible mock configured through each tool's own models.json
 * (TILLER_HOME / PI_CODING_AGENT_DIR in temp folders), so both do one real streaming round trip.
 * Median wall time and peak RSS (GNU time's %M) over CLI_BENCH_RUNS (default 10) fresh processes, after one
 * warm-up each, the cases interleaved run by run. Targets: tiller --version ≤ 250 ms, tiller -p ≤ 500 ms.
 * With bench/reference installed, `-p "hi"` runs again with Tiller and pi 1.6.0 (`@earendil-works/pi-coding-agent`),
 * both on its Node 22 binary, and the Tiller/pi-1.6 ratio is printed. `npm run bench -- cli`.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockOpenAI } from "../packages/coding-agent/test/cli-helpers/mock-openai.js";
import { hasPi16, NODE22, PI16_CLI, pi16Label } from "./pi16.js";
import { recordTarget } from "./summary.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.CLI_BENCH_RUNS ?? 10);
const TIME = "/usr/bin/time";
const hasTime = existsSync(TIME);
const REFERENCE_FLOOR_MS = 106;

console.log("building (npm run build)…");
const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
if (build.status !== 0) {
  console.error("cli.bench: build failed; the benchmark needs the built CLI");
  process.exit(1);
}
const tillerCli = join(root, "packages", "coding-agent", "bin", "tiller.js");
const piCli = join(root, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");

const server = await startMockOpenAI(() => ({ text: "Hello! How can I help you today?" }));
const tmp = mkdtempSync(join(tmpdir(), "tiller-cli-bench-"));
const provider = {
  baseUrl: server.baseUrl,
  api: "openai-completions",
  apiKey: "bench-key",
  models: [{ id: "mock-1", name: "Mock", contextWindow: 128000, maxTokens: 4096 }],
};
const tillerHome = join(tmp, "tiller-home");
const piHome = join(tmp, "pi-home");
const work = join(tmp, "work");
for (const d of [tillerHome, piHome, work]) mkdirSync(d, { recursive: true });
for (const home of [tillerHome, piHome]) {
  writeFileSync(join(home, "models.json"), JSON.stringify({ providers: { mock: provider } }));
  writeFileSync(join(home, "settings.json"), JSON.stringify({ defaultProvider: "mock", defaultModel: "mock-1" }));
}
const env: NodeJS.ProcessEnv = {
  ...process.env,
  TILLER_HOME: tillerHome,
  PI_CODING_AGENT_DIR: piHome,
  PI_OFFLINE: "1",
  HOME: tmp,
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  GEMINI_API_KEY: "",
  NODE_OPTIONS: "",
};

interface Sample {
  status: string;
  ms: number;
  rssMb: number | undefined;
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Async spawn: the mock provider lives in this process, so its event loop must keep running meanwhile. */
function runOnce(args: string[], node = process.execPath): Promise<Sample> {
  const rssFile = join(tmp, "rss.txt");
  rmSync(rssFile, { force: true });
  const cmd = hasTime ? TIME : node;
  const argv = hasTime ? ["-f", "%M", "-o", rssFile, node, ...args] : args;
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
    child.on("close", (code, signal) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      let rssMb: number | undefined;
      if (hasTime && existsSync(rssFile)) {
        const kb = Number(readFileSync(rssFile, "utf8").trim().split("\n").pop());
        if (Number.isFinite(kb)) rssMb = kb / 1024;
      }
      const status = signal ? `signal ${signal}` : `exit ${code}`;
      resolve({ status, ms, rssMb, ok: code === 0, stdout, stderr });
    });
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Row {
  name: string;
  ms: number;
  min: number;
  max: number;
  rss: number | undefined;
}

interface Case {
  name: string;
  args: string[];
  check?: (s: Sample) => string | undefined;
  /** The Node binary (default: this one). */
  node?: string;
}

/**
 * Warms each case up once, then runs the cases round-robin (run i of every case before run i+1), so load
 * changes on a shared host hit all of them alike.
 */
async function measureAll(cases: Case[]): Promise<Row[]> {
  for (const c of cases) {
    let warm = await runOnce(c.args, c.node);
    if (!warm.ok) warm = await runOnce(c.args, c.node); // one retry: a concurrent rebuild of dist/ can break a single run
    const problem = !warm.ok
      ? `${warm.status}: ${warm.stderr.slice(0, 300)} ${warm.stdout.slice(0, 200)}`
      : c.check?.(warm);
    if (problem) throw new Error(`${c.name}: ${problem}`);
  }
  const samples = cases.map(() => [] as Sample[]);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, c] of cases.entries()) samples[k]!.push(await runOnce(c.args, c.node));
  }
  return cases.map((c, k) => {
    const times = samples[k]!.map((s) => s.ms);
    const rss = samples[k]!.map((s) => s.rssMb).filter((x): x is number => x !== undefined);
    const row: Row = {
      name: c.name,
      ms: median(times),
      min: Math.min(...times),
      max: Math.max(...times),
      rss: rss.length ? median(rss) : undefined,
    };
    console.log(
      `  ${c.name.padEnd(22)} ${row.ms.toFixed(0).padStart(6)} ms  (${row.min.toFixed(0)}-${row.max.toFixed(0)})  ` +
        `${row.rss !== undefined ? `${row.rss.toFixed(1)} MB` : "n/a"}`,
    );
    return row;
  });
}

const expectHello = (s: Sample) =>
  s.stdout.includes("Hello! How can I help")
    ? undefined
    : `unexpected output: ${s.stdout.slice(0, 200)} ${s.stderr.slice(0, 300)}`;

try {
  console.log(`\nCLI start-up, ${RUNS} runs each (median, min-max, peak RSS)`);
  const [floor, tv, pv, tp, pp] = (await measureAll([
    { name: "node -e 0", args: ["-e", "0"] },
    { name: "tiller --version", args: [tillerCli, "--version"] },
    { name: "pi --version", args: [piCli, "--version"] },
    { name: 'tiller -p "hi"', args: [tillerCli, "-p", "hi"], check: expectHello },
    { name: 'pi -p "hi"', args: [piCli, "-p", "hi"], check: expectHello },
  ])) as [Row, Row, Row, Row, Row];

  const ratio = (a: Row, b: Row) => (b.ms / a.ms).toFixed(1);
  // The shared host is often heavily loaded; RESULTS-pi.md measured node -e 0 at 106 ms. Scaling by the floor
  // gives a rough quiet-machine estimate (load slows every process by about the same factor).
  const scale = REFERENCE_FLOOR_MS / floor.ms;
  const est = (r: Row) => r.ms * scale;
  const verdict = (r: Row, target: number) =>
    `≤ ${target} ms: ${est(r) <= target ? "met" : "MISSED"} (est. ${est(r).toFixed(0)} ms)`;
  const cell = (r: Row) => `${r.ms.toFixed(0)} ms, ${r.rss?.toFixed(0) ?? "?"} MB`;
  console.log(
    `\nfloor here ${floor.ms.toFixed(0)} ms vs ${REFERENCE_FLOOR_MS} ms in RESULTS-pi.md: estimates scale by ${scale.toFixed(2)}`,
  );
  console.log("\n| command | tiller | pi | pi/tiller | tiller above floor | target (floor-scaled estimate) |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  console.log(
    `| --version | ${cell(tv)} | ${cell(pv)} | ${ratio(tv, pv)}x | ${(tv.ms - floor.ms).toFixed(0)} ms | ${verdict(tv, 250)} |`,
  );
  console.log(
    `| -p "hi" | ${cell(tp)} | ${cell(pp)} | ${ratio(tp, pp)}x | ${(tp.ms - floor.ms).toFixed(0)} ms | ${verdict(tp, 500)} |`,
  );
  console.log(`| node -e 0 (floor) | ${cell(floor)} | | | | |`);
  if (hasPi16()) {
    const version = spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim();
    console.log(`\nTiller vs ${pi16Label()}, both on Node ${version} (bench/reference):`);
    const [t22, p22] = (await measureAll([
      { name: 'tiller -p "hi" (22)', args: [tillerCli, "-p", "hi"], check: expectHello, node: NODE22 },
      { name: 'pi-1.6 -p "hi" (22)', args: [PI16_CLI, "-p", "hi"], check: expectHello, node: NODE22 },
    ])) as [Row, Row];
    const lead = p22.ms / t22.ms;
    recordTarget({
      bench: "cli",
      row: '-p "hi" (median of runs)',
      vs: pi16Label(),
      ratio: lead,
      target: 1.5,
      note: `${t22.ms.toFixed(0)} ms (${t22.min.toFixed(0)}-${t22.max.toFixed(0)}) vs ${p22.ms.toFixed(0)} ms (${p22.min.toFixed(0)}-${p22.max.toFixed(0)}), ${RUNS} runs`,
    });
    console.log(
      `-p "hi" on Node 22: tiller ${cell(t22)}, ${pi16Label()} ${cell(p22)}: tiller/pi-1.6 ${lead.toFixed(2)}x (target >= 1.5x): ${lead >= 1.5 ? "ok" : "MISSED"}; peak RSS tiller/pi-1.6 ${t22.rss && p22.rss ? (t22.rss / p22.rss).toFixed(2) : "?"}`,
    );
  } else {
    console.log("\nbench/reference is not installed: the pi 1.6 rows are skipped (scripts/bench.mjs installs it).");
  }
  console.log(`\nmock requests served: ${server.requests.length}`);
} finally {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
}
