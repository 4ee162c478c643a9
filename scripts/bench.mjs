#!/usr/bin/env node
// Runs every benchmark in bench/ (files named *.bench.ts), one after another, each in its own process.
// `npm run bench -- ai` runs only the files whose name contains "ai".
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const filter = process.argv[2] ?? "";
const files = readdirSync(join(root, "bench"))
  .filter((f) => f.endsWith(".bench.ts") && f.includes(filter))
  .sort();
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
