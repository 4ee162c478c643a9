#!/usr/bin/env node
// Compiles every package in layer order (each one's dist/ is what the next one imports at run time).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const LAYERS = ["ai", "agent", "coding-agent", "gateway"];
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
if (!existsSync(tsc)) {
  console.error("build: TypeScript is not installed yet (run npm ci)");
  process.exit(1);
}
for (const pkg of LAYERS) {
  const res = spawnSync(process.execPath, [tsc, "-p", join(root, "packages", pkg, "tsconfig.build.json")], {
    stdio: "inherit",
  });
  if (res.status !== 0) {
    console.error(`build: @tiller/${pkg} failed to compile`);
    process.exit(res.status ?? 1);
  }
}
