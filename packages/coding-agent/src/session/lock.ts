/**
 * Writer lock of a session file across processes: `<session>.lock` names the writing process (see
 * `owner-lock.ts`). Within one process the lock is taken once per file by the writer registry
 * (`writer-registry.ts`), which every writing `SessionManager` of that file shares; another process that wants to
 * write gets `SessionLockedError`. A lock whose holder died (gone, zombie, pid reused, rebooted) is reclaimed.
 */
import { releaseOwnerLock, tryAcquireOwnerLock } from "./owner-lock.js";
import type { FoundLockOwner } from "./types.js";

/** Another live process writes this session. Carries who, where and since when, and says what to do. */
export class SessionLockedError extends Error {
  /** The holder's pid (NaN when its record is unreadable). */
  readonly pid: number;
  readonly hostname: string | undefined;
  /** ISO time the holder took the lock. */
  readonly since: string | undefined;

  constructor(
    readonly sessionFile: string,
    owner: FoundLockOwner,
  ) {
    const where = [owner.hostname ? `on host ${owner.hostname}` : "", owner.since ? `since ${owner.since}` : ""]
      .filter(Boolean)
      .join(" ");
    super(
      `session is locked by pid ${owner.pid}${where ? ` (${where})` : ""}: ${sessionFile}. ` +
        "Another process is writing this session: stop it or let it finish, or open the session read-only. " +
        "A lock left by a process that died is reclaimed automatically.",
    );
    this.name = "SessionLockedError";
    this.pid = owner.pid;
    this.hostname = owner.hostname;
    this.since = owner.since;
  }
}

export function lockPathOf(sessionFile: string): string {
  return `${sessionFile}.lock`;
}

/**
 * Takes the lock of `sessionFile` for this process (callers go through the writer registry, which takes it once
 * per file). Throws `SessionLockedError` when a live process holds it.
 */
export function acquireSessionLock(sessionFile: string): void {
  const r = tryAcquireOwnerLock(lockPathOf(sessionFile));
  if (!r.acquired) throw new SessionLockedError(sessionFile, r.owner);
}

/** Releases a lock this process holds (no-op otherwise). */
export function releaseSessionLock(sessionFile: string): void {
  releaseOwnerLock(lockPathOf(sessionFile));
}
