#!/usr/bin/env node
// Tracked launcher for the `tiller-mcp` bin (`tiller mcp serve …`): npm links bins at install time, before `dist/` is built.
import { main } from "../dist/mcp/mcp-serve-command.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`tiller mcp: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
