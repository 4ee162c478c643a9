/**
 * An exclusive lock file naming its holder (`LockOwner`: pid, host, boot id, process start time, since when).
 * Used for session files (`lock.ts`) and the gateway's home directory. The record is written to a temp file and
 * hard-linked into place, so the lock never exists without its whole record. A lock whose holder is dead (see
 * `liveness.ts`) is reclaimed at once; a live holder's lock is never taken. Locks this process holds are removed
 * when it exits normally; after a crash the next taker reclaims them.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { currentProcessIdentity, ownerLiveness } from "./liveness.js";
import type { FoundLockOwner, LockOwner, OwnerLockResult } from "./types.js";

const held = new Map<string, LockOwner>();
let exitHookInstalled = false;
let tmpCounter = 0;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const lockPath of held.keys()) removeQuietly(lockPath);
  });
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function tmpPath(lockPath: string, tag: string): string {
  tmpCounter++;
  return `${lockPath}.${tag}.${process.pid}.${tmpCounter}`;
}

/** Parses a lock record; a bare integer is the legacy pid-only format. Undefined when unreadable. */
export function parseLockRecord(text: string): FoundLockOwner | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t) };
  try {
    const v = JSON.parse(t) as unknown;
    if (v && typeof v === "object" && Number.isInteger((v as { pid?: unknown }).pid)) return v as FoundLockOwner;
  } catch {
    // Not a record.
  }
  return undefined;
}

/** The record of `lockPath`, or undefined when there is no lock (or it cannot be parsed). */
export function readOwnerLock(lockPath: string): FoundLockOwner | undefined {
  try {
    return parseLockRecord(readFileSync(lockPath, "utf8"));
  } catch {
    return undefined;
  }
}

/** Whether this process holds `lockPath`. */
export function holdsOwnerLock(lockPath: string): boolean {
  return held.has(lockPath);
}

/** Creates `lockPath` holding `text`, atomically; false when it already exists. */
function createExclusive(lockPath: string, text: string): boolean {
  const tmp = tmpPath(lockPath, "new");
  writeFileSync(tmp, text, { mode: 0o644 });
  try {
    linkSync(tmp, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
    // A file system without hard links: exclusive create, then the record (a reader may briefly see it empty).
    let fd: number;
    try {
      fd = openSync(lockPath, "wx", 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw e;
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return true;
  } finally {
    removeQuietly(tmp);
  }
}

/**
 * Moves a dead holder's lock out of the way. Renaming is atomic, so of two processes reclaiming the same stale
 * lock only one gets it; if what was moved is not the record judged dead (someone reclaimed it first and took
 * it), it is put back.
 */
function reclaim(lockPath: string, judgedText: string): void {
  const aside = tmpPath(lockPath, "stale");
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // Gone already: someone else reclaimed it.
  }
  let movedText = "";
  try {
    movedText = readFileSync(aside, "utf8");
  } catch {
    // Treat as foreign below.
  }
  if (movedText !== judgedText) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // Its new holder's place is taken again: the next attempt reads whoever holds it now.
    }
  }
  removeQuietly(aside);
}

/** Tries to take `lockPath` for this process. Never waits; never takes a live holder's lock. */
export function tryAcquireOwnerLock(lockPath: string, details?: Record<string, string>): OwnerLockResult {
  const owner: LockOwner = {
    ...currentProcessIdentity(),
    since: new Date().toISOString(),
    ...(details ? { details } : {}),
  };
  const text = `${JSON.stringify(owner)}\n`;
  let reclaimed: { owner: FoundLockOwner; reason: string } | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(lockPath, text)) {
      held.set(lockPath, owner);
      installExitHook();
      return reclaimed ? { acquired: true, reclaimed } : { acquired: true };
    }
    let found: string;
    try {
      found = readFileSync(lockPath, "utf8");
    } catch {
      continue; // Released between our attempt and this read.
    }
    const record = parseLockRecord(found);
    let verdict: { alive: boolean; reason: string };
    if (!record) verdict = { alive: false, reason: "the lock file holds no owner record" };
    else if (record.pid === process.pid && !held.has(lockPath))
      verdict = { alive: false, reason: `pid ${record.pid} (this process's) left it in an earlier life` };
    else verdict = ownerLiveness(record);
    if (verdict.alive) return { acquired: false, owner: record ?? { pid: Number.NaN }, reason: verdict.reason };
    reclaimed = { owner: record ?? { pid: Number.NaN }, reason: verdict.reason };
    reclaim(lockPath, found);
  }
  const last = readOwnerLock(lockPath) ?? { pid: Number.NaN };
  return { acquired: false, owner: last, reason: "the lock changed hands while it was being taken; try again" };
}

/** Rewrites the record of a lock this process holds (e.g. to add the address once known). */
export function updateOwnerLock(lockPath: string, details: Record<string, string>): void {
  const owner = held.get(lockPath);
  if (!owner) throw new Error(`${lockPath}: not held by this process`);
  const next: LockOwner = { ...owner, details: { ...owner.details, ...details } };
  const tmp = tmpPath(lockPath, "update");
  writeFileSync(tmp, `${JSON.stringify(next)}\n`, { mode: 0o644 });
  renameSync(tmp, lockPath); // atomic: readers see the old record or the new one
  held.set(lockPath, next);
}

/** Releases a lock this process holds (no-op otherwise). */
export function releaseOwnerLock(lockPath: string): void {
  if (!held.delete(lockPath)) return;
  removeQuietly(lockPath);
}
