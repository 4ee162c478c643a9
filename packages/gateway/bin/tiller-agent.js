#!/usr/bin/env node
// Tracked launcher for the `tiller-agent` bin (`tiller agent …`): npm links bins at install time, before anything is
// built. It runs the code-split bundle when the build made one (far fewer modules to load at start-up), else dist/.
import { existsSync } from "node:fs";

const bundled = new URL("../bundle/agent-command.js", import.meta.url);
const { main } = await import(existsSync(bundled) ? bundled.href : "../dist/cli/agent-command.js");

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`tiller agent: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
