/**
 * The session writer lock across real processes: a second writer gets a `SessionLockedError` that names the
 * holder (pid, host, since when) and says what to do; nothing either process wrote is torn or lost; a killed
 * holder's lock is reclaimed at once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseLockRecord, SessionLockedError, SessionManager } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-lock-"));
});
afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  children.length = 0;
  rmSync(dir, { recursive: true, force: true });
});

interface Child {
  child: ChildProcess;
  /** Resolves with each stdout line matching, in order. */
  line(match: RegExp): Promise<string>;
  exited: Promise<number | null>;
}

function startChild(file: string, ...args: string[]): Child {
  const child = spawn(
    process.execPath,
    ["--conditions=tiller-source", "--import", "tsx", join(here, "session-lock-child.ts"), file, ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  let out = "";
  const waiters: { match: RegExp; resolve: (l: string) => void }[] = [];
  const check = (): void => {
    for (const w of waiters.slice()) {
      const line = out.split("\n").find((l) => w.match.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
    check();
  });
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return {
    child,
    exited,
    line: (match) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ match, resolve });
        check();
        void exited.then(() => setTimeout(() => reject(new Error(`child exited without ${match}: ${out}`)), 50));
      }),
  };
}

function makeSession(): string {
  const sm = SessionManager.create("/p", dir);
  sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
  const file = sm.getSessionFile() as string;
  sm.close();
  return file;
}

/** Every line of the file parses (no torn line) and the entry ids are unique. */
function wholeLines(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  const rows = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const ids = rows.slice(1).map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  return rows;
}

describe("session writer lock across processes", () => {
  it("a live holder's session cannot be written by another process; the error names it and says what to do", async () => {
    const file = makeSession();
    const holder = startChild(file, "hold");
    expect(await holder.line(/^opened/)).toBe(`opened ${holder.child.pid}`);
    const record = parseLockRecord(readFileSync(`${file}.lock`, "utf8"));
    expect(record).toMatchObject({ pid: holder.child.pid, hostname: hostname() });
    expect(Date.parse(record?.since ?? "")).toBeGreaterThan(Date.now() - 60_000);

    let err: unknown;
    try {
      SessionManager.open(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SessionLockedError);
    const locked = err as SessionLockedError;
    expect(locked.pid).toBe(holder.child.pid);
    expect(locked.hostname).toBe(hostname());
    expect(locked.since).toBe(record?.since);
    expect(locked.message).toContain(`session is locked by pid ${holder.child.pid} (on host ${hostname()} since `);
    expect(locked.message).toContain(file);
    expect(locked.message).toMatch(/stop it or let it finish, or open the session read-only/);
    // Reading never waits for the lock and sees the other writer's entry.
    expect(
      SessionManager.open(file, { readOnly: true })
        .getEntries()
        .map((e) => e.type),
    ).toEqual(["message", "custom"]);

    holder.child.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(`${file}.lock`)).toBe(true); // a killed writer leaves its lock behind…
    const sm = SessionManager.open(file); // …and it is reclaimed at once
    expect(parseLockRecord(readFileSync(`${file}.lock`, "utf8"))?.pid).toBe(process.pid);
    sm.appendMessage({ role: "user", content: "after", timestamp: 2 });
    sm.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 30_000);

  it("two processes writing one session: the second is refused while the first writes; no line is torn or lost", async () => {
    const file = makeSession();
    const sm = SessionManager.open(file);
    // This process writes while a second process tries to open the session.
    const denied = startChild(file, "exit");
    let answered = false;
    let parentEntries = 0;
    const writes = (async () => {
      while (!answered || parentEntries < 50) {
        sm.appendCustomEntry("parent", { i: parentEntries++ });
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const line = await denied.line(/^(error|opened)/);
    answered = true;
    expect(line).toMatch(new RegExp(`^error session is locked by pid ${process.pid} \\(on host `));
    expect(await denied.exited).toBe(3);
    await writes;
    sm.close();

    // Now the child writes a stream of entries while this process is refused.
    const writer = startChild(file, "stream", "300");
    await writer.line(/^opened/);
    let refusals = 0;
    while (writer.child.exitCode === null && refusals < 5) {
      try {
        SessionManager.open(file).close();
        break; // the child finished first
      } catch (e) {
        expect(e).toBeInstanceOf(SessionLockedError);
        expect((e as SessionLockedError).pid).toBe(writer.child.pid);
        refusals++;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(refusals).toBeGreaterThan(0);
    await writer.line(/^done$/);
    expect(await writer.exited).toBe(0);
    expect(existsSync(`${file}.lock`)).toBe(false);

    const after = SessionManager.open(file);
    after.appendMessage({ role: "user", content: "last", timestamp: 3 });
    after.close();
    const rows = wholeLines(file);
    const data = rows.filter((r) => r.type === "custom").map((r) => `${r.customType}:${(r.data as { i: number }).i}`);
    expect(data).toEqual([
      ...Array.from({ length: parentEntries }, (_, i) => `parent:${i}`),
      ...Array.from({ length: 300 }, (_, i) => `child:${i}`),
    ]);
    expect(rows.at(-1)).toMatchObject({ type: "message", message: { content: "last" } });
  }, 60_000);

  it("after a clean exit of the holder the lock is gone and the session opens", async () => {
    const file = makeSession();
    const ok = startChild(file, "exit");
    expect(await ok.line(/^opened/)).toMatch(/^opened \d+$/);
    expect(await ok.exited).toBe(0);
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(SessionManager.open(file, { readOnly: true }).getEntries()).toHaveLength(2);
  }, 30_000);
});
