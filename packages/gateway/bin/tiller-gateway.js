#!/usr/bin/env node
// Tracked launcher for the `tiller-gateway` bin (`tiller gateway …`): npm links bins at install time, before `dist/` is built.
import { main } from "../dist/cli/gateway-command.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`tiller gateway: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
