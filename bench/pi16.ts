/**
 * The newest pi (1.6.0: `@earendil-works/pi-ai`, `pi-agent-core`, `pi-coding-agent`) for the benchmarks. It needs
 * Node >= 22.19, so it lives outside the root workspace in bench/reference/ (own package.json and lock, with the
 * npm `node` package pinned to a Node 22 binary), installed on first use by scripts/bench.mjs. Rows comparing
 * with it run both Tiller and pi 1.6 as child processes of that one Node 22 binary.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const REFERENCE_DIR = join(ROOT, "bench", "reference");
const MODULES = join(REFERENCE_DIR, "node_modules");

/** The Node 22 binary of bench/reference (the npm `node` package). */
export const NODE22 = join(MODULES, "node", "bin", "node");

/** pi 1.6's CLI entry point. */
export const PI16_CLI = join(MODULES, "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

/** True when bench/reference is installed (scripts/bench.mjs installs it; rows with pi 1.6 are skipped without). */
export function hasPi16(): boolean {
  return existsSync(NODE22) && existsSync(join(MODULES, "@earendil-works", "pi-coding-agent", "package.json"));
}

/** "pi 1.6.0 on Node v22.x" for table headers. */
export function pi16Label(): string {
  const pkg = JSON.parse(readFileSync(join(MODULES, "@earendil-works", "pi-ai", "package.json"), "utf8")) as {
    version: string;
  };
  return `pi ${pkg.version}`;
}

type Pi16Package = "pi-ai" | "pi-agent-core" | "pi-coding-agent";

/** Imports a pi 1.6 package (or one of its subpath exports, e.g. "./compat") from bench/reference. */
export async function importPi16(name: Pi16Package, subpath = "."): Promise<Record<string, unknown>> {
  const dir = join(MODULES, "@earendil-works", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    exports: Record<string, { import: string }>;
  };
  const target = pkg.exports[subpath]?.import;
  if (!target) throw new Error(`${name} has no export ${subpath}`);
  return (await import(pathToFileURL(join(dir, target)).href)) as Record<string, unknown>;
}

/** Arguments running a bench file's TypeScript child cases (Tiller from source) under any Node binary. */
export const TS_ARGS = ["--conditions=tiller-source", "--expose-gc", "--import", "tsx"];
