import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionLockedError, SessionManager } from "../src/index.js";

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

function startChild(file: string, mode: "hold" | "exit"): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=tiller-source", "--import", "tsx", join(here, "session-lock-child.ts"), file, mode],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, line: out.slice(0, nl) });
    });
    child.on("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`child exited ${code} without output`));
    });
  });
}

function makeSession(): string {
  const sm = SessionManager.create("/p", dir);
  sm.appendMessage({ role: "user", content: "hi", timestamp: 1 });
  const file = sm.getSessionFile() as string;
  sm.close();
  return file;
}

describe("session writer lock", () => {
  it("a second process cannot write a session another live process holds, and reclaims it once that one dies", async () => {
    const file = makeSession();
    const { child, line } = await startChild(file, "hold");
    expect(line).toBe(`opened ${child.pid}`);
    expect(readFileSync(`${file}.lock`, "utf8").trim()).toBe(String(child.pid));

    expect(() => SessionManager.open(file)).toThrow(`session is locked by pid ${child.pid}`);
    expect(() => SessionManager.open(file)).toThrow(SessionLockedError);
    // Reading is still possible and sees the other writer's entry.
    expect(
      SessionManager.open(file, { readOnly: true })
        .getEntries()
        .map((e) => e.type),
    ).toEqual(["message", "custom"]);

    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGKILL");
    await exited;
    expect(existsSync(`${file}.lock`)).toBe(true); // a killed writer leaves its lock behind

    const sm = SessionManager.open(file);
    expect(readFileSync(`${file}.lock`, "utf8").trim()).toBe(String(process.pid));
    sm.appendMessage({ role: "user", content: "after", timestamp: 2 });
    sm.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 20_000);

  it("a process holding the lock blocks a second child; after a clean exit the lock is gone", async () => {
    const file = makeSession();
    const sm = SessionManager.open(file);
    const denied = await startChild(file, "exit");
    expect(denied.line).toBe(`error session is locked by pid ${process.pid}: ${file}`);
    expect(() => SessionManager.open(file)).toThrow(/locked by pid/);
    sm.close();
    const ok = await startChild(file, "exit");
    expect(ok.line).toMatch(/^opened \d+$/);
    await new Promise((r) => (ok.child.exitCode !== null ? r(null) : ok.child.on("exit", r)));
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(SessionManager.open(file, { readOnly: true }).getEntries()).toHaveLength(2);
  }, 20_000);
});
