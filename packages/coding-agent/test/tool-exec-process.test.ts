import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createExecTool } from "../src/tools/exec.js";
import { createProcessTool } from "../src/tools/process.js";
import { ProcessRegistry } from "../src/tools/process-registry.js";
import { processAlive, tempDir, textOf } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
let registry: ProcessRegistry;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  registry = new ProcessRegistry({ killGraceMs: 300 });
});
afterEach(async () => {
  await registry.killAll();
  registry.dispose();
  cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it holds (a loaded machine may be slow; the bound is only a safety net). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("exec tool", () => {
  it("returns a quick command's output and exit code, and errors on failure", async () => {
    const exec = createExecTool(dir, { registry });
    const r = await exec.execute("1", { command: "echo hi; echo err >&2" });
    expect(textOf(r)).toBe("hi\nerr\n\nExit code: 0");
    expect(r.details.status).toBe("exited");
    await expect(exec.execute("2", { command: "echo bad; exit 4" })).rejects.toThrow(
      /^bad\n\nCommand exited with code 4$/,
    );
  });

  it("yields a long command to the background, where poll reads its new output", async () => {
    const exec = createExecTool(dir, { registry });
    const proc = createProcessTool({ registry });
    // The command holds until the test creates `go`, so it is surely still running when the yield comes.
    const r = await exec.execute("1", {
      command: "echo first; until [ -e go ]; do sleep 0.02; done; echo second",
      yieldMs: 1500,
    });
    expect(textOf(r)).toMatch(/^first\n\n\[Still running after 1500 ms \(session proc_/);
    const id = r.details.sessionId;
    writeFileSync(path.join(dir, "go"), "");
    await registry.get(id)!.done;
    const polled = textOf(await proc.execute("2", { action: "poll", sessionId: id }));
    expect(polled).toMatch(/^second\n\n\[proc_.* exited with code 0/);
    expect(textOf(await proc.execute("3", { action: "poll", sessionId: id }))).toMatch(/^\(no new output\)/);
    expect(textOf(await proc.execute("4", { action: "list" }))).toContain(`${id} pid`);
  });

  it("regression: exec does not source ~/.bashrc (bash takes Node's stdin socket for rshd)", async () => {
    // A ~/.bashrc that leaves a mark: before the fix every exec call ran it (and a slow one stalled exec).
    writeFileSync(path.join(dir, ".bashrc"), `echo sourced > ${JSON.stringify(path.join(dir, "mark"))}\n`);
    const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
    process.env.HOME = dir;
    delete process.env.SHLVL; // bash only sources it for a top-level shell
    try {
      const exec = createExecTool(dir, { registry });
      expect(textOf(await exec.execute("1", { command: "echo ran" }))).toBe("ran\n\nExit code: 0");
      expect(existsSync(path.join(dir, "mark"))).toBe(false);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("talks to a background process through stdin", async () => {
    const exec = createExecTool(dir, { registry });
    const proc = createProcessTool({ registry });
    const r = await exec.execute("1", { command: "while read l; do echo got:$l; done; echo bye", background: true });
    expect(textOf(r)).toContain("Started in the background");
    const id = r.details.sessionId;
    await proc.execute("2", { action: "write", sessionId: id, data: "one\ntwo\n" });
    await proc.execute("3", { action: "write", sessionId: id, data: "three\n", eof: true });
    await registry.get(id)!.done;
    expect(textOf(await proc.execute("4", { action: "poll", sessionId: id }))).toMatch(
      /^got:one\ngot:two\ngot:three\nbye\n/,
    );
    await expect(proc.execute("5", { action: "write", sessionId: id, data: "x" })).rejects.toThrow("is not running");
  });

  it("pages through the log by line and says when old lines were dropped", async () => {
    const small = new ProcessRegistry({ maxOutputChars: 2000 });
    try {
      const exec = createExecTool(dir, { registry: small });
      const proc = createProcessTool({ registry: small });
      const r = await exec.execute("1", { command: "seq 1 3000", background: true });
      await small.get(r.details.sessionId)!.done;
      const log = textOf(await proc.execute("2", { action: "log", sessionId: r.details.sessionId, limit: 3 }));
      expect(log).toMatch(/^2998\n2999\n3000\n\n\[proc_/);
      const early = textOf(
        await proc.execute("3", { action: "log", sessionId: r.details.sessionId, offset: 1, limit: 2 }),
      );
      expect(early).toMatch(/\[lines 1-\d+ were dropped from memory; showing lines \d+-\d+ of 3000/);
    } finally {
      await small.killAll();
      small.dispose();
    }
  });

  it("kills the whole tree on kill, on timeout and on abort", async () => {
    const exec = createExecTool(dir, { registry });
    const proc = createProcessTool({ registry });
    const bg = await exec.execute("1", { command: "sleep 30 & echo $!; wait", background: true });
    const output = () => registry.get(bg.details.sessionId)!.output.since(0).text;
    await until(() => /\d+\n/.test(output()), "the grandchild's pid");
    const grandchild = Number(registry.get(bg.details.sessionId)!.output.since(0).text.trim());
    expect(processAlive(grandchild)).toBe(true);
    expect(textOf(await proc.execute("2", { action: "kill", sessionId: bg.details.sessionId }))).toMatch(
      /^Killed: .*killed \(killed\)/,
    );
    await until(() => !processAlive(grandchild), "the grandchild to be killed");

    const timed = await exec.execute("3", { command: "sleep 30", background: true, timeout: 0.2 });
    await registry.get(timed.details.sessionId)!.done;
    expect(registry.get(timed.details.sessionId)!.killReason).toBe("timeout");

    const controller = new AbortController();
    const fg = exec.execute(
      "4",
      { command: "echo started; touch started; sleep 30", yieldMs: 20_000 },
      controller.signal,
    );
    await until(() => existsSync(path.join(dir, "started")), "the command to start");
    const t0 = Date.now();
    controller.abort();
    await expect(fg).rejects.toThrow(/^started\n\nCommand aborted$/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("reports unknown sessions and missing ids clearly", async () => {
    const proc = createProcessTool({ registry });
    await expect(proc.execute("1", { action: "poll", sessionId: "nope" })).rejects.toThrow(
      "No session nope. Use action list to see sessions.",
    );
    await expect(proc.execute("1", { action: "kill" })).rejects.toThrow("sessionId is required for action kill");
  });

  it("kills background processes when the Node process exits", () => {
    const registryPath = fileURLToPath(new URL("../src/tools/process-registry.ts", import.meta.url));
    const script = path.join(dir, "owner.ts");
    const pidFile = path.join(dir, "pid");
    writeFileSync(
      script,
      `import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { ProcessRegistry } from ${JSON.stringify(registryPath)};
const r = new ProcessRegistry();
const s = r.start({ command: "sleep 30", cwd: ${JSON.stringify(dir)} });
writeFileSync(${JSON.stringify(pidFile)}, String(s.pid));
setTimeout(() => process.exit(0), 100);
`,
    );
    execFileSync(process.execPath, ["--import", "tsx", script], { cwd: path.dirname(registryPath), timeout: 20_000 });
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    expect(processAlive(pid)).toBe(false);
  });
});
