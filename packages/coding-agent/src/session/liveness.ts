/**
 * Is the process that wrote a lock record still the same, live process? A pid alone cannot say: a killed process
 * stays a zombie until its parent reaps it (forever in a container whose pid 1 never reaps), and pids are reused
 * (a restarted container hands out the same ones). So a record carries the holder's host, the kernel's boot id
 * and the holder's start time (field 22 of `/proc/<pid>/stat`, in clock ticks since boot); the holder is live only
 * when all of them still match a running, non-zombie process. Where `/proc` is missing (macOS), only the pid is
 * checked. A holder on another host cannot be checked from here and is taken as live: never reclaim from a live
 * holder.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Liveness, LockOwner, ProcStat } from "./types.js";

/** `/proc/<pid>/stat` of a process, `null` when no such process exists, `undefined` without a readable `/proc`. */
export function readProcStat(pid: number): ProcStat | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return procAvailable() ? null : undefined;
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const startTime = fields[19];
  if (!state || !startTime) return undefined;
  return { state, startTime };
}

let procChecked: boolean | undefined;
function procAvailable(): boolean {
  if (procChecked === undefined) procChecked = readProcStatOfSelf() !== undefined;
  return procChecked;
}

function readProcStatOfSelf(): string | undefined {
  try {
    return readFileSync("/proc/self/stat", "utf8");
  } catch {
    return undefined;
  }
}

let bootIdCache: string | null | undefined;
/** The kernel's boot id (changes at every boot), or null where the system does not expose one. */
export function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

let selfCache: Omit<LockOwner, "since"> | undefined;
/** This process as a lock record names it (without `since`). */
export function currentProcessIdentity(): Omit<LockOwner, "since"> {
  if (!selfCache) {
    const stat = readProcStat(process.pid);
    selfCache = {
      pid: process.pid,
      hostname: hostname(),
      ...(bootId() ? { bootId: bootId() as string } : {}),
      ...(stat ? { startTime: stat.startTime } : {}),
    };
  }
  return selfCache;
}

/** Whether the process a lock record names is still that live process. */
export function ownerLiveness(owner: Pick<LockOwner, "pid"> & Partial<LockOwner>): Liveness {
  const { pid } = owner;
  if (!Number.isInteger(pid) || pid <= 0) return { alive: false, reason: `the lock names no valid pid (${pid})` };
  const self = currentProcessIdentity();
  if (owner.hostname !== undefined && owner.hostname !== self.hostname) {
    return { alive: true, reason: `pid ${pid} runs on another host (${owner.hostname}) and cannot be checked here` };
  }
  if (owner.bootId && self.bootId && owner.bootId !== self.bootId) {
    return { alive: false, reason: `pid ${pid} ran before the last reboot` };
  }
  const stat = readProcStat(pid);
  if (stat === null) return { alive: false, reason: `pid ${pid} is not running` };
  if (stat === undefined) {
    // No /proc: the signal-0 probe is all there is (EPERM: it exists but belongs to another user).
    try {
      process.kill(pid, 0);
      return { alive: true, reason: `pid ${pid} is running` };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === "EPERM"
        ? { alive: true, reason: `pid ${pid} is running` }
        : { alive: false, reason: `pid ${pid} is not running` };
    }
  }
  if (stat.state === "Z" || stat.state === "X") return { alive: false, reason: `pid ${pid} has exited (zombie)` };
  if (owner.startTime !== undefined && owner.startTime !== stat.startTime) {
    return { alive: false, reason: `pid ${pid} now belongs to another process (start time differs)` };
  }
  return { alive: true, reason: `pid ${pid} is running` };
}
