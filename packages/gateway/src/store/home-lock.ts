/**
 * The gateway owns its home: one gateway per `TILLER_HOME`, held by `$TILLER_HOME/gateway.lock` (the coding agent's
 * owner lock, the same one session files use, so the same liveness rules apply: a holder that is gone, a zombie,
 * or whose pid now belongs to another process is reclaimed at once). It is taken before the session index is
 * opened, so a second gateway can neither mark the first one's live runs interrupted nor write its sessions.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type FoundLockOwner, releaseOwnerLock, tryAcquireOwnerLock, updateOwnerLock } from "@tiller/coding-agent";

/** Another live gateway runs on this home. */
export class GatewayHomeLockedError extends Error {
  constructor(
    readonly home: string,
    readonly owner: FoundLockOwner,
  ) {
    const address = owner.details?.address;
    super(
      `another gateway is running on ${home}: pid ${owner.pid}` +
        `${address ? ` at ${address}` : " (still starting, no address yet)"}` +
        `${owner.hostname ? ` on host ${owner.hostname}` : ""}${owner.since ? ` since ${owner.since}` : ""}. ` +
        `Stop it (kill ${owner.pid}) or start this one with another TILLER_HOME.`,
    );
    this.name = "GatewayHomeLockedError";
  }
}

export interface HomeLock {
  readonly path: string;
  /** Set when a dead gateway's lock was taken over: its pid and why it counted as dead. */
  readonly reclaimed?: { pid: number; reason: string };
  /** Records the address once listening, for the message a second gateway prints. */
  setAddress(url: string): void;
  release(): void;
}

export function homeLockPath(home: string): string {
  return join(home, "gateway.lock");
}

/** Takes the home lock or throws `GatewayHomeLockedError`. Never waits. */
export function acquireHomeLock(home: string): HomeLock {
  mkdirSync(home, { recursive: true });
  const path = homeLockPath(home);
  const r = tryAcquireOwnerLock(path);
  if (!r.acquired) throw new GatewayHomeLockedError(home, r.owner);
  return {
    path,
    ...(r.reclaimed ? { reclaimed: { pid: r.reclaimed.owner.pid, reason: r.reclaimed.reason } } : {}),
    setAddress: (url) => updateOwnerLock(path, { address: url }),
    release: () => releaseOwnerLock(path),
  };
}
