/**
 * Writer lock of a session file: `<session>.lock` holds the writer's pid. A second writer (another process, or a
 * second manager in this process) gets `SessionLockedError`; a lock whose pid is dead is reclaimed. Locks held by
 * this process are removed when it exits.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

export class SessionLockedError extends Error {
  constructor(
    readonly sessionFile: string,
    readonly pid: number,
  ) {
    super(`session is locked by pid ${pid}: ${sessionFile}`);
    this.name = "SessionLockedError";
  }
}

const held = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const lockPath of held) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Already gone.
      }
    }
  });
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function lockPathOf(sessionFile: string): string {
  return `${sessionFile}.lock`;
}

/** Takes the lock of `sessionFile` for this process. Throws `SessionLockedError` when a live process holds it. */
export function acquireSessionLock(sessionFile: string): void {
  const lockPath = lockPathOf(sessionFile);
  if (held.has(lockPath)) throw new SessionLockedError(sessionFile, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o644);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      held.add(lockPath);
      installExitHook();
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    let pid = Number.NaN;
    try {
      pid = Number.parseInt(readFileSync(lockPath, "utf8").trim(), 10);
    } catch {
      // Removed between our open and read: try again.
      continue;
    }
    // Our own pid without an entry in `held` is a leftover of an earlier process that had the same pid.
    if (pid !== process.pid && pidAlive(pid)) throw new SessionLockedError(sessionFile, pid);
    try {
      unlinkSync(lockPath); // stale: its writer is dead
    } catch {
      // Someone else reclaimed it first.
    }
  }
  throw new SessionLockedError(sessionFile, Number.NaN);
}

/** Releases a lock this process holds (no-op otherwise). */
export function releaseSessionLock(sessionFile: string): void {
  const lockPath = lockPathOf(sessionFile);
  if (!held.delete(lockPath)) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // Already gone.
  }
}
