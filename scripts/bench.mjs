#!/usr/bin/env node
// Runs every benchmark in bench/ (files named *.bench.ts), one after another, each in its own process.
// `npm run bench -- ai` runs only the files whose name contains "ai".
// First installs bench/reference (pi 1.6.0 and the Node 22 binary it needs; its own lock, outside the workspace)
// when it is missing; without it (no registry) the benchmarks skip their pi 1.6 rows.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const filter = process.argv[2] ?? "";
const files = readdirSync(join(root, "bench"))
  .filter((f) => f.endsWith(".bench.ts") && f.includes(filter))
  .sort();
const reference = join(root, "bench", "reference");
if (files.length > 0 && !existsSync(join(reference, "node_modules", "node", "bin", "node"))) {
  console.log("installing bench/reference (pi 1.6.0, Node 22): npm ci --prefix bench/reference");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const res = spawnSync(npm, ["ci", "--prefix", reference, "--no-audit", "--no-fund"], { stdio: "inherit", cwd: root });
  if (res.status !== 0) console.log("bench/reference could not be installed: the pi 1.6 rows will be skipped");
}
let failures = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const res = spawnSync(
    process.execPath,
    ["--conditions=tiller-source", "--expose-gc", "--import", "tsx", join(root, "bench", file)],
    { stdio: "inherit", cwd: root },
  );
  if (res.status !== 0) failures++;
}
if (files.length === 0) console.log("no benchmarks match");
process.exit(failures > 0 ? 1 : 0);
