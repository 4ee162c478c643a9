#!/usr/bin/env node
// Runs every benchmark in bench/ (files named *.bench.ts, and the *.check.ts checks), one after another, each in its
// own process.
// `npm run bench -- ai` runs only the files whose name contains "ai".
// First installs bench/reference (pi 1.6.0 and the Node 22 binary it needs; its own lock, outside the workspace)
// when it is missing; without it (no registry) the benchmarks skip their pi 1.6 rows.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const filter = process.argv[2] ?? "";
const files = readdirSync(join(root, "bench"))
  // *.check.ts: checks that need bench/reference (the real reference clients), run the same way; a failing one fails.
  .filter((f) => (f.endsWith(".bench.ts") || f.endsWith(".check.ts")) && f.includes(filter))
  .sort();
const reference = join(root, "bench", "reference");
if (files.length > 0 && !existsSync(join(reference, "node_modules", "node", "bin", "node"))) {
  console.log("installing bench/reference (pi 1.6.0, Node 22): npm ci --prefix bench/reference");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const res = spawnSync(npm, ["ci", "--prefix", reference, "--no-audit", "--no-fund"], { stdio: "inherit", cwd: root });
  if (res.status !== 0) console.log("bench/reference could not be installed: the pi 1.6 rows will be skipped");
}
// Each bench appends its target rows (bench/summary.ts) to this file; they are printed as one table at the end.
const summaryDir = mkdtempSync(join(tmpdir(), "tiller-bench-summary-"));
const summary = join(summaryDir, "targets.jsonl");
// OpenClaw 2026.9.6 and Node 24 for gateway-openclaw, in their own folder (bench/reference pins Node 22 for pi 1.6).
// Three steps because openclaw's install scripts refuse any Node below 24: unpack without scripts, let the `node`
// package fetch its Node 24 binary, then run openclaw's scripts with that binary first on PATH.
const openclawRef = join(reference, "openclaw");
if (
  files.some((f) => f.includes("openclaw")) &&
  !existsSync(join(openclawRef, "node_modules", "openclaw", "openclaw.mjs"))
) {
  console.log(
    "installing bench/reference/openclaw (OpenClaw 2026.9.6, Node 24): npm ci --prefix bench/reference/openclaw",
  );
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const node24 = join(openclawRef, "node_modules", "node", "bin");
  const env = { ...process.env, PATH: `${node24}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}` };
  const steps = [
    ["ci", "--prefix", openclawRef, "--ignore-scripts", "--no-audit", "--no-fund"],
    ["rebuild", "node", "--prefix", openclawRef],
    ["rebuild", "--prefix", openclawRef],
  ];
  for (const step of steps) {
    const res = spawnSync(npm, step, { stdio: "inherit", cwd: root, env });
    if (res.status !== 0) {
      console.log("bench/reference/openclaw could not be installed: gateway-openclaw runs Tiller alone");
      break;
    }
  }
}
let failures = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const res = spawnSync(
    process.execPath,
    ["--conditions=tiller-source", "--expose-gc", "--import", "tsx", join(root, "bench", file)],
    { stdio: "inherit", cwd: root, env: { ...process.env, TILLER_BENCH_SUMMARY: summary } },
  );
  if (res.status !== 0) failures++;
}
if (files.length === 0) console.log("no benchmarks match");
printSummary();
rmSync(summaryDir, { recursive: true, force: true });

function printSummary() {
  if (!existsSync(summary)) return;
  const rows = readFileSync(summary, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  if (rows.length === 0) return;
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");
  console.log(`\n=== targets (issue 13); load average now ${load} on ${cpus().length} cores ===`);
  console.log("| bench | row | vs | ratio | target | result | note |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    const min = (r.kind ?? "min") === "min";
    const pass = min ? r.ratio >= r.target : r.ratio <= r.target;
    console.log(
      `| ${r.bench} | ${r.row} | ${r.vs || "-"} | ${r.ratio.toFixed(2)}${min ? "x" : ""} | ${min ? ">=" : "<="} ${r.target} | ${pass ? "PASS" : "MISS"} | ${r.note ?? ""} |`,
    );
  }
}
process.exit(failures > 0 ? 1 : 0);
