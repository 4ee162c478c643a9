/**
 * `tiller mcp list [--json]`: connects the configured servers (untrusted project servers are listed, not
 * started), prints each one's state, tools and errors, and stops them. `tiller mcp <other> …` runs the
 * `tiller-mcp` executable of @tiller/gateway git-style (e.g. `tiller mcp serve`), as `tiller agent` does.
 */
import { getTillerHome } from "../home.js";
import { formatMcpStatus } from "./mcp-format.js";
import { findSubcommand, runSubcommand } from "./subcommands.js";

const USAGE = "usage: tiller mcp list [--json] | tiller mcp serve [options]";

export async function runMcpCommand(argv: readonly string[], packageRoot: string): Promise<number> {
  const sub = argv[0];
  if (sub === "list") {
    const rest = argv.slice(1);
    const unknown = rest.find((a) => a !== "--json");
    if (unknown) {
      process.stderr.write(`tiller: unknown option ${unknown} for "tiller mcp list"\n${USAGE}\n`);
      return 2;
    }
    return list(rest.includes("--json"));
  }
  if (!sub || sub === "--help" || sub === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return sub ? 0 : 2;
  }
  const exe = findSubcommand("mcp", packageRoot);
  if (!exe) {
    process.stderr.write(
      `tiller mcp ${sub} needs @tiller/gateway installed (no tiller-mcp executable in node_modules/.bin or PATH)\n`,
    );
    return 1;
  }
  return runSubcommand(exe, argv);
}

async function list(json: boolean): Promise<number> {
  const { loadMcpConfig, McpManager, McpTrustStore } = await import("../mcp/index.js");
  const { UNTRUSTED_REASON } = await import("./mcp-setup.js");
  const cwd = process.cwd();
  const home = getTillerHome();
  const { servers, errors } = loadMcpConfig({ cwd, home });
  const untrusted = new McpTrustStore(home).untrusted(servers);
  const manager = new McpManager(servers, { blocked: new Map(untrusted.map((s) => [s.name, UNTRUSTED_REASON])) });
  try {
    await manager.start();
    const status = manager.status();
    if (json) process.stdout.write(`${JSON.stringify({ servers: status, errors })}\n`);
    else {
      process.stdout.write(`${formatMcpStatus(status)}\n`);
      for (const e of errors) process.stdout.write(`config error: ${e}\n`);
    }
    return 0;
  } finally {
    await manager.stop();
  }
}
