#!/usr/bin/env node
// Fails when a package imports a layer above it (ai → agent → coding-agent → gateway).
// Usage: check-layers.mjs [repoRoot]   — prints each violation as file:line and exits 1.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const LAYERS = ["ai", "agent", "coding-agent", "gateway"];
const IMPORT_RE = /(?:from\s*|import\s*\(\s*|import\s+|require\s*\(\s*)["']@tiller\/([a-z-]+)(?:\/[^"']*)?["']/g;

function* walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(m|c)?[jt]sx?$/.test(name)) yield path;
  }
}

export function findLayerViolations(root) {
  const violations = [];
  for (const pkg of LAYERS) {
    const rank = LAYERS.indexOf(pkg);
    for (const file of walk(join(root, "packages", pkg))) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const m of line.matchAll(IMPORT_RE)) {
          const target = m[1];
          const targetRank = LAYERS.indexOf(target);
          if (targetRank > rank) {
            violations.push(
              `${relative(root, file)}:${i + 1}: @tiller/${pkg} imports @tiller/${target}, a higher layer`,
            );
          }
        }
      });
    }
  }
  return violations;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..");
  const violations = findLayerViolations(root);
  if (violations.length > 0) {
    console.error(`Layer check failed (a layer may import only the layers below it: ${LAYERS.join(" → ")}):`);
    for (const v of violations) console.error(`  ${v}`);
    process.exit(1);
  }
  console.log("layers ok");
}
