#!/usr/bin/env node
/**
 * The `tiller` executable. Kept tiny on purpose: `--version` and `--help` must answer without loading the SDK;
 * everything else is imported in the branch that needs it.
 */
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import("./cli/main.js");
  const code = await main(argv);
  // Exit now: idle keep-alive sockets or timers left by providers must not hold the process open.
  process.exit(code);
}
