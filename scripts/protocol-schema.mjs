#!/usr/bin/env node
// Writes packages/gateway/protocol.schema.json from the gateway's TypeBox schemas: the protocol
// (packages/gateway/src/protocol/schema/) and tiller.json (packages/gateway/src/config/config-schema.ts). With --check it writes nothing and exits 1 when the file is stale.
// Run through tsx (it imports TypeScript source): node --import tsx scripts/protocol-schema.mjs [--check]
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const file = join(root, "packages/gateway/protocol.schema.json");
const { protocolDocument } = await import("../packages/gateway/src/protocol/schema/index.ts");
const { TillerConfigSchema } = await import("../packages/gateway/src/config/config-schema.ts");
// JSON round trip: drops TypeBox's non-enumerable markers and undefined values, as a reader of the file sees it.
const doc = JSON.parse(JSON.stringify({ ...protocolDocument(), config: { "tiller.json": TillerConfigSchema } }));

if (process.argv.includes("--check")) {
  let current;
  try {
    current = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    current = undefined;
  }
  if (!isDeepStrictEqual(current, doc)) {
    console.error(
      "packages/gateway/protocol.schema.json is stale: run `node --import tsx scripts/protocol-schema.mjs` and commit it",
    );
    process.exit(1);
  }
  console.log("protocol.schema.json is up to date");
} else {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  // In the repository's formatting, so `biome check` stays clean; --check compares content, not layout.
  spawnSync(join(root, "node_modules/.bin/biome"), ["format", "--write", file], { stdio: "ignore" });
  console.log(`wrote ${file}`);
}
