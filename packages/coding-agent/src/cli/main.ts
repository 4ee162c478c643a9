/**
 * `tiller` after the fast path: subcommands, argument errors, help, then the chosen mode (each imported lazily).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliArgs, parseArgs } from "./args.js";
import { CliUsageError } from "./errors.js";
import { EXTERNAL_SUBCOMMANDS } from "./subcommands.js";

/**
 * The package root (…/packages/coding-agent or …/node_modules/@tiller/coding-agent): the nearest folder above
 * this module whose package.json is this package's, so the same code works from src/, dist/ and the bundle.
 */
export function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here, i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === PACKAGE_NAME) {
        return dir;
      }
    } catch {
      // No package.json here: keep walking up.
    }
  }
  return join(here, "..", "..");
}

const PACKAGE_NAME = "@tiller/coding-agent";

export function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** Runs the CLI; resolves with the exit code. Never throws for bad input. */
export async function main(argv: readonly string[]): Promise<number> {
  const first = argv[0];
  if (first === "mcp") {
    const { runMcpCommand } = await import("./mcp-command.js");
    return runMcpCommand(argv.slice(1), packageRoot());
  }
  if (first && (EXTERNAL_SUBCOMMANDS as readonly string[]).includes(first)) {
    const { findSubcommand, runSubcommand } = await import("./subcommands.js");
    const exe = findSubcommand(first, packageRoot());
    if (!exe) {
      process.stderr.write(
        `tiller ${first} needs @tiller/gateway installed (no tiller-${first} executable in node_modules/.bin or PATH)\n`,
      );
      return 1;
    }
    return runSubcommand(exe, argv.slice(1));
  }
  const parsed = parseArgs(argv);
  if (!parsed.ok) {
    process.stderr.write(`tiller: ${parsed.error}\nRun "tiller --help" for usage.\n`);
    return 2;
  }
  const args = parsed.args;
  if (args.help) {
    const { HELP_TEXT } = await import("./help.js");
    process.stdout.write(HELP_TEXT);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${readVersion()}\n`);
    return 0;
  }
  try {
    return await runMode(args);
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`tiller: ${err.message}\n`);
      return 2;
    }
    // Last line of defence: a clear message and exit code 1 rather than a stack trace.
    process.stderr.write(`tiller: ${err instanceof Error ? err.message : String(err)}\n`);
    if (process.env.TILLER_DEBUG && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}

async function runMode(args: CliArgs): Promise<number> {
  if (args.listModels) {
    const { listModels } = await import("./list-models.js");
    return listModels(args);
  }
  if (args.mode === "rpc") {
    const { runRpcMode } = await import("./rpc-mode.js");
    return runRpcMode(args);
  }
  if (args.mode === "json") {
    const { runJsonMode } = await import("./print-mode.js");
    return runJsonMode(args);
  }
  const interactive = !args.print && args.mode === undefined && process.stdin.isTTY === true && process.stdout.isTTY;
  if (!interactive) {
    if (args.resume) {
      process.stderr.write("tiller: --resume needs a terminal; use --session <id|path>\n");
      return 2;
    }
    const { runPrintMode } = await import("./print-mode.js");
    return runPrintMode(args);
  }
  const { runInteractiveMode } = await import("./tui/interactive-mode.js");
  return runInteractiveMode(args);
}
