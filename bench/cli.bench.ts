/**
 * CLI start-up: `tiller --version` and `tiller -p "hi"` (built CLI, packages/coding-agent/dist/cli.js) against
 * `pi --version` and `pi -p "hi"` (@mariozechner/pi-coding-agent 0.73.1), with `node -e 0` as the floor.
 * `-p` runs against a loopback OpenAI-compatible mock configured through each tool's own models.json
 * (TILLER_HOME / PI_CODING_AGENT_DIR in temp folders), so both do one real streaming round trip.
 * Median wall time and peak RSS (GNU time's %M) over CLI_BENCH_RUNS (default 10) fresh processes, after one
 * warm-up each. Targets: tiller --version ≤ 250 ms, tiller -p ≤ 500 ms. `npm run bench -- cli`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockOpenAI } from "../packages/coding-agent/test/cli-helpers/mock-openai.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.CLI_BENCH_RUNS ?? 10);
const TIME = "/usr/bin/time";
const hasTime = existsSync(TIME);

console.log("building (npm run build)…");
const build = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });
if (build.status !== 0) {
  console.error("cli.bench: build failed; the benchmark needs packages/coding-agent/dist/cli.js");
  process.exit(1);
}
const tillerCli = join(root, "packages", "coding-agent", "dist", "cli.js");
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
  ms: number;
  rssMb: number | undefined;
  ok: boolean;
  stdout: string;
  stderr: string;
}

function runOnce(args: string[]): Sample {
  const rssFile = join(tmp, "rss.txt");
  const cmd = hasTime ? TIME : process.execPath;
  const argv = hasTime ? ["-f", "%M", "-o", rssFile, process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, {
    cwd: work,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  const ms = performance.now() - t0;
  let rssMb: number | undefined;
  if (hasTime && existsSync(rssFile)) {
    const kb = Number(readFileSync(rssFile, "utf8").trim().split("\n").pop());
    if (Number.isFinite(kb)) rssMb = kb / 1024;
  }
  return { ms, rssMb, ok: r.status === 0, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
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

function measure(name: string, args: string[], check?: (s: Sample) => string | undefined): Row {
  const warm = runOnce(args);
  const problem = !warm.ok ? `exit status non-zero: ${warm.stderr.slice(0, 300)}` : check?.(warm);
  if (problem) throw new Error(`${name}: ${problem}`);
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(runOnce(args));
  const times = samples.map((s) => s.ms);
  const rss = samples.map((s) => s.rssMb).filter((x): x is number => x !== undefined);
  const row = {
    name,
    ms: median(times),
    min: Math.min(...times),
    max: Math.max(...times),
    rss: rss.length ? median(rss) : undefined,
  };
  console.log(
    `  ${name.padEnd(22)} ${row.ms.toFixed(0).padStart(6)} ms  (${row.min.toFixed(0)}-${row.max.toFixed(0)})  ` +
      `${row.rss !== undefined ? `${row.rss.toFixed(1)} MB` : "n/a"}`,
  );
  return row;
}

const expectHello = (s: Sample) =>
  s.stdout.includes("Hello! How can I help")
    ? undefined
    : `unexpected output: ${s.stdout.slice(0, 200)} ${s.stderr.slice(0, 300)}`;

try {
  console.log(`\nCLI start-up, ${RUNS} runs each (median, min-max, peak RSS)`);
  const floor = measure("node -e 0", ["-e", "0"]);
  const tv = measure("tiller --version", [tillerCli, "--version"]);
  const pv = measure("pi --version", [piCli, "--version"]);
  const tp = measure('tiller -p "hi"', [tillerCli, "-p", "hi"], expectHello);
  const pp = measure('pi -p "hi"', [piCli, "-p", "hi"], expectHello);

  const ratio = (a: Row, b: Row) => (b.ms / a.ms).toFixed(1);
  console.log("\n| command | tiller | pi | pi/tiller | tiller above floor | target |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  console.log(
    `| --version | ${tv.ms.toFixed(0)} ms, ${tv.rss?.toFixed(0) ?? "?"} MB | ${pv.ms.toFixed(0)} ms, ${pv.rss?.toFixed(0) ?? "?"} MB | ${ratio(tv, pv)}x | ${(tv.ms - floor.ms).toFixed(0)} ms | ≤ 250 ms ${tv.ms <= 250 ? "met" : "MISSED"} |`,
  );
  console.log(
    `| -p "hi" | ${tp.ms.toFixed(0)} ms, ${tp.rss?.toFixed(0) ?? "?"} MB | ${pp.ms.toFixed(0)} ms, ${pp.rss?.toFixed(0) ?? "?"} MB | ${ratio(tp, pp)}x | ${(tp.ms - floor.ms).toFixed(0)} ms | ≤ 500 ms ${tp.ms <= 500 ? "met" : "MISSED"} |`,
  );
  console.log(`| node -e 0 (floor) | ${floor.ms.toFixed(0)} ms, ${floor.rss?.toFixed(0) ?? "?"} MB | | | | |`);
  console.log(`\nmock requests served: ${server.requests.length}`);
} finally {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
}
