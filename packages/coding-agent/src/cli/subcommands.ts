import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, dirname, join } from "node:path";

/** First arguments that run an external `tiller-<name>` program, git-style. */
export const EXTERNAL_SUBCOMMANDS = ["gateway", "agent"] as const;

/**
 * Finds the `tiller-<name>` executable: in every `node_modules/.bin` from `startDir` up to the filesystem root,
 * then on `PATH`. Returns undefined when absent.
 */
export function findSubcommand(
  name: string,
  startDir: string,
  pathEnv: string | undefined = process.env.PATH,
): string | undefined {
  const exe = `tiller-${name}`;
  const candidates: string[] = [];
  let dir = startDir;
  for (;;) {
    candidates.push(join(dir, "node_modules", ".bin", exe));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const p of (pathEnv ?? "").split(delimiter)) if (p) candidates.push(join(p, exe));
  const exts = process.platform === "win32" ? [".cmd", ".exe", ""] : [""];
  for (const c of candidates) {
    for (const ext of exts) {
      try {
        accessSync(c + ext, constants.X_OK);
        return c + ext;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * Runs the executable with inherited stdio and resolves with its exit code. A child killed by a signal yields
 * 128 + signal number, as a shell reports it.
 */
export function runSubcommand(executable: string, args: readonly string[]): Promise<number> {
  return new Promise((resolvePromise) => {
    const child = spawn(executable, args, { stdio: "inherit", shell: process.platform === "win32" });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    const done = (code: number) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolvePromise(code);
    };
    child.on("error", (err) => {
      process.stderr.write(`tiller: cannot run ${executable}: ${err.message}\n`);
      done(1);
    });
    child.on("exit", (code, signal) => {
      if (signal) done(128 + (signalNumber(signal) ?? 1));
      else done(code ?? 1);
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const map: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return map[signal];
}
