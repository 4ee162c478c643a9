/**
 * When a lock's holder counts as dead, with real processes: a pid that is gone, a zombie (killed but never
 * reaped by its parent), a pid now owned by an unrelated live process (start time differs), a record from before
 * a reboot, and the legacy pid-only record. A live holder — the one the record names — is never reclaimed, nor
 * one on another host.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bootId,
  type LockOwner,
  parseLockRecord,
  readProcStat,
  SessionLockedError,
  SessionManager,
} from "../src/index.js";

let dir: string;
const procs: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-liveness-"));
});
afterEach(() => {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
  procs.length = 0;
  rmSync(dir, { recursive: true, force: true });
});

function makeSession(): string {
  const sm = SessionManager.create("/p", dir);
  sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
  const file = sm.getSessionFile() as string;
  sm.close();
  return file;
}

/** A live process unrelated to any session (`sleep`). */
async function liveProcess(): Promise<number> {
  const p = spawn("sleep", ["1000"], { stdio: "ignore" });
  procs.push(p);
  await new Promise((r) => p.once("spawn", r));
  return p.pid as number;
}

/** A record naming `pid` exactly as its own process would write it, with overrides. */
function recordOf(pid: number, overrides: Partial<LockOwner> = {}): LockOwner {
  const stat = readProcStat(pid);
  return {
    pid,
    hostname: hostname(),
    ...(bootId() ? { bootId: bootId() as string } : {}),
    ...(stat ? { startTime: stat.startTime } : {}),
    since: new Date(Date.now() - 60_000).toISOString(),
    ...overrides,
  };
}

function writeLock(file: string, record: unknown): void {
  writeFileSync(`${file}.lock`, typeof record === "string" ? record : `${JSON.stringify(record)}\n`);
}

/** Opens for writing, appends, closes: the lock was taken over. */
function writesThrough(file: string): void {
  const sm = SessionManager.open(file);
  expect(parseLockRecord(readFileSync(`${file}.lock`, "utf8"))?.pid).toBe(process.pid);
  sm.appendMessage({ role: "user", content: "taken over", timestamp: 2 });
  sm.close();
  const texts = SessionManager.open(file, { readOnly: true })
    .getEntries()
    .map((e) => (e.type === "message" && "content" in e.message ? e.message.content : e.type));
  expect(texts).toEqual(["hi", "taken over"]);
}

function refused(file: string, pid: number): void {
  expect(() => SessionManager.open(file)).toThrow(SessionLockedError);
  expect(() => SessionManager.open(file)).toThrow(new RegExp(`session is locked by pid ${pid}[ :]`));
}

const onLinux = readProcStat(process.pid) !== undefined;

describe("lock liveness", () => {
  it("a live holder, as its record names it, is never reclaimed", async () => {
    const file = makeSession();
    const pid = await liveProcess();
    writeLock(file, recordOf(pid));
    refused(file, pid);
    refused(file, pid); // still there: refusing changed nothing
    expect(parseLockRecord(readFileSync(`${file}.lock`, "utf8"))?.pid).toBe(pid);
  });

  it("a pid now owned by an unrelated live process (start time differs) is reclaimed at once", async () => {
    if (!onLinux) return;
    const file = makeSession();
    const pid = await liveProcess();
    const real = readProcStat(pid)?.startTime as string;
    writeLock(file, recordOf(pid, { startTime: String(Number(real) - 1000) }));
    writesThrough(file);
  });

  it("a zombie holder (killed, its parent never reaps it) is reclaimed", async () => {
    if (!onLinux) return;
    const file = makeSession();
    // sh starts the holder in the background and becomes `sleep`, which never waits for it.
    const parent = spawn("sh", ["-c", "sleep 1000 & echo $!; exec sleep 1000"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    procs.push(parent);
    const pid = await new Promise<number>((resolve) => {
      let out = "";
      parent.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(Number(out.trim()));
      });
    });
    writeLock(file, recordOf(pid));
    refused(file, pid);
    process.kill(pid, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while (readProcStat(pid)?.state !== "Z") {
      if (Date.now() > deadline) throw new Error(`pid ${pid} did not become a zombie`);
      await new Promise((r) => setTimeout(r, 10));
    }
    // The zombie still answers kill(pid, 0): a pid check alone would call it alive.
    expect(() => process.kill(pid, 0)).not.toThrow();
    writesThrough(file);
  });

  it("a pid that is gone, a record from before a reboot, and the legacy pid-only record are reclaimed", async () => {
    const gone = spawn("true");
    await new Promise((r) => gone.once("exit", r));
    const file = makeSession();
    writeLock(file, recordOf(gone.pid as number));
    writesThrough(file);

    const second = makeSession();
    const pid = await liveProcess();
    writeLock(second, recordOf(pid, { bootId: "00000000-0000-0000-0000-000000000000" }));
    if (bootId()) writesThrough(second);

    const third = makeSession();
    writeLock(third, `${gone.pid}\n`);
    writesThrough(third);
    const fourth = makeSession();
    writeLock(fourth, `${pid}\n`); // legacy record of a live pid: kept
    refused(fourth, pid);
  });

  it("a holder on another host cannot be checked from here and is not reclaimed", async () => {
    const file = makeSession();
    writeLock(file, recordOf(999_999, { hostname: `not-${hostname()}` }));
    expect(() => SessionManager.open(file)).toThrow(`on host not-${hostname()}`);
  });
});
