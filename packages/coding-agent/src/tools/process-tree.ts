/**
 * Child processes for bash and exec: each command runs in its own process group (`detached`), so abort and
 * timeout can signal the whole tree (`kill(-pid)`), first SIGTERM, then SIGKILL after a grace period.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** Delay between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2000;

let cachedShell: string | undefined;

/** The shell used to run commands: bash when installed, else sh. */
export function defaultShell(): string {
  if (cachedShell) return cachedShell;
  cachedShell = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"].find((p) => existsSync(p)) ?? "/bin/sh";
  return cachedShell;
}

export interface SpawnShellOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  shell?: string;
  /** Keep stdin open as a pipe (exec sessions can be written to); otherwise stdin is /dev/null. */
  stdin?: boolean;
}

/** Start `command` under a shell, as leader of a new process group. */
export function spawnShell(command: string, options: SpawnShellOptions): ChildProcess {
  const shell = options.shell ?? defaultShell();
  // Node hands a piped stdin over as a socket, and bash takes a socket on stdin for rshd and sources ~/.bashrc
  // for `-c` commands. That would make every exec call run the user's interactive set-up (seen here: a pyenv
  // rehash taking a lock, so concurrent calls hung for seconds). `--norc` keeps exec like the bash tool.
  const args = /(^|\/)bash$/.test(shell) ? ["--norc", "-c", command] : ["-c", command];
  return spawn(shell, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
  });
}

/** Signal the process group led by `pid`; falls back to the single process. Never throws. */
export function signalTree(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** True while any process of the group led by `pid` is alive. */
export function treeAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM the tree, then SIGKILL it if anything is still alive after `graceMs`.
 * Resolves once the group is gone or the SIGKILL was sent.
 */
export function killTree(pid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  signalTree(pid, "SIGTERM");
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = () => {
      if (!treeAlive(pid)) return resolve();
      if (Date.now() - started >= graceMs) {
        signalTree(pid, "SIGKILL");
        return resolve();
      }
      setTimeout(tick, Math.min(50, graceMs)).unref();
    };
    tick();
  });
}

/** Synchronous SIGKILL of a tree, for `process.on("exit")` cleanup where no timers run. */
export function killTreeNow(pid: number): void {
  signalTree(pid, "SIGKILL");
}
