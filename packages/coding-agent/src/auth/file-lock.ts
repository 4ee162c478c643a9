/**
 * A short-lived cross-process lock for read-modify-write of small shared files (auth.json): `<file>.lock`
 * created exclusively, retried for up to `timeoutMs`; a lock whose holder died or that is older than `staleMs`
 * is broken.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs `fn` while holding `<path>.lock`. Throws when the lock cannot be taken within `timeoutMs`. */
export function withFileLock<T>(path: string, fn: () => T, timeoutMs = 5000, staleMs = 10_000): T {
  const lock = `${path}.lock`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        const pid = Number.parseInt(readFileSync(lock, "utf8"), 10);
        const age = Date.now() - statSync(lock).mtimeMs;
        if ((Number.isInteger(pid) && pid > 0 && !alive(pid)) || age > staleMs) unlinkSync(lock);
      } catch {
        // Lock vanished or half-written: retry.
      }
      if (Date.now() > deadline) throw new Error(`could not lock ${path} within ${timeoutMs} ms (held by ${lock})`);
      Atomics.wait(sleeper, 0, 0, 10);
    }
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already broken by another process after staleMs.
    }
  }
}
