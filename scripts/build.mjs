#!/usr/bin/env node
// Compiles every package in layer order (each one's dist/ is what the next one imports at run time).
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
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

// The gateway's web page: bundled into packages/gateway/web-dist/ (served at `/`). Required: a gateway
// without its page would answer `/` with "not built".
{
  const { buildWeb } = await import("../packages/gateway/web/build.mjs");
  await buildWeb().catch((err) => {
    console.error(
      `build: the gateway's web page failed to bundle: ${err instanceof Error ? err.message : String(err)}`,
    );
    process.exit(1);
  });
}

// The `tiller` CLI also ships as one esbuild bundle (code-split at its lazy imports): start-up then loads a
// handful of files instead of ~500 modules. Optional: when it cannot be built, the launcher uses dist/.
const bundleDir = join(root, "packages", "coding-agent", "bundle");
rmSync(bundleDir, { recursive: true, force: true });
try {
  const { build } = await import("esbuild");
  await build({
    entryPoints: [join(root, "packages", "coding-agent", "dist", "cli.js")],
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["tsx", "tsx/*", "better-sqlite3"],
    banner: {
      js: "import { createRequire as __tillerRequire } from 'node:module'; const require = __tillerRequire(import.meta.url);",
    },
    logLevel: "error",
  });
} catch (err) {
  rmSync(bundleDir, { recursive: true, force: true });
  console.error(
    `build: CLI bundle skipped (${err instanceof Error ? err.message : String(err)}); tiller runs from dist/`,
  );
}

// The gateway's executables likewise: `tiller gateway` loads TypeBox (the protocol schemas), the coding agent and
// its own modules; one code-split bundle keeps its cold start (spawn → listening) short. Optional as above: the
// launchers fall back to dist/.
const gatewayBundle = join(root, "packages", "gateway", "bundle");
rmSync(gatewayBundle, { recursive: true, force: true });
try {
  const { build } = await import("esbuild");
  await build({
    entryPoints: {
      "gateway-command": join(root, "packages", "gateway", "dist", "cli", "gateway-command.js"),
      "agent-command": join(root, "packages", "gateway", "dist", "cli", "agent-command.js"),
    },
    outdir: gatewayBundle,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Native or optional modules stay outside; tsx loads TypeScript plugins at run time.
    external: ["tsx", "tsx/*", "better-sqlite3", "bufferutil", "utf-8-validate"],
    banner: {
      js: "import { createRequire as __tillerRequire } from 'node:module'; const require = __tillerRequire(import.meta.url);",
    },
    logLevel: "error",
  });
} catch (err) {
  rmSync(gatewayBundle, { recursive: true, force: true });
  console.error(
    `build: gateway bundle skipped (${err instanceof Error ? err.message : String(err)}); tiller gateway runs from dist/`,
  );
}
