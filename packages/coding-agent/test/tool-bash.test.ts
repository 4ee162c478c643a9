import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { AgentToolResult } from "@tiller/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../src/tools/bash.js";
import { processAlive, tempDir, textOf } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("bash tool", () => {
  it("returns stdout and stderr with the exit code", async () => {
    const r = await createBashTool(dir).execute("1", { command: "echo out; echo err >&2; pwd" });
    const text = textOf(r);
    expect(text).toContain("out\n");
    expect(text).toContain("err\n");
    expect(text).toContain(dir);
    expect(text.endsWith("Exit code: 0")).toBe(true);
  });

  it("makes a non-zero exit an error that carries the output", async () => {
    await expect(createBashTool(dir).execute("1", { command: "echo partial; exit 3" })).rejects.toThrow(
      /^partial\n\nCommand exited with code 3$/,
    );
  });

  it("keeps the last 2,000 lines and spills the whole output to a temp file", async () => {
    const r = await createBashTool(dir).execute("1", { command: "seq 1 5000" });
    const text = textOf(r);
    expect(text.startsWith("3001\n")).toBe(true);
    expect(text).toContain("\n5000\n\n[Showing");
    expect(text).toMatch(/\[Showing lines 3001-5000 of 5000 \(.*\)\. Full output: .*output\.log\]\n\nExit code: 0$/);
    const full = r.details.fullOutputPath!;
    expect(existsSync(full)).toBe(true);
    const lines = readFileSync(full, "utf8").trimEnd().split("\n");
    expect(lines.length).toBe(5000);
    expect(lines[0]).toBe("1");
    rmSync(path.dirname(full), { recursive: true, force: true });
  });

  it("bounds output by bytes as well (50 KB) while streaming throttled updates", async () => {
    const updates: AgentToolResult<unknown>[] = [];
    const t0 = Date.now();
    const r = await createBashTool(dir).execute(
      "1",
      { command: "for i in $(seq 1 30); do head -c 20000 /dev/zero | tr '\\0' 'a'; echo; sleep 0.01; done" },
      undefined,
      (u) => updates.push(u),
    );
    expect(r.details.truncation?.truncatedBy).toBe("bytes");
    expect(Buffer.byteLength(textOf(r))).toBeLessThan(52 * 1024);
    expect(readFileSync(r.details.fullOutputPath!, "utf8").length).toBe(30 * 20001);
    rmSync(path.dirname(r.details.fullOutputPath!), { recursive: true, force: true });
    expect(updates.length).toBeGreaterThan(0);
    // At most one update per 100 ms window (plus the first), however many chunks arrived.
    expect(updates.length).toBeLessThanOrEqual(Math.ceil((Date.now() - t0) / 100) + 1);
  });

  it("times out, killing the whole process tree", async () => {
    const pidFile = path.join(dir, "child.pid");
    const started = Date.now();
    await expect(
      createBashTool(dir).execute("1", {
        command: `sleep 30 & echo $! > ${pidFile}; echo started; wait`,
        timeout: 0.5,
      }),
    ).rejects.toThrow(/^started\n\nCommand timed out after 0.5 seconds$/);
    expect(Date.now() - started).toBeLessThan(4000);
    const child = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !processAlive(child));
  });

  it("aborts promptly and kills a child that ignores SIGTERM", async () => {
    const pidFile = path.join(dir, "child.pid");
    const controller = new AbortController();
    const tool = createBashTool(dir, { killGraceMs: 300 });
    const run = tool.execute(
      "1",
      {
        command: `sh -c 'trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done' & wait`,
      },
      controller.signal,
    );
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const child = Number(readFileSync(pidFile, "utf8"));
    const t0 = Date.now();
    controller.abort();
    await expect(run).rejects.toThrow(/Command aborted$/);
    expect(Date.now() - t0).toBeLessThan(1500);
    await waitFor(() => !processAlive(child));
  });

  it("returns even when a background child keeps the pipes open", async () => {
    const t0 = Date.now();
    const r = await createBashTool(dir).execute("1", { command: "sleep 5 & echo $!" });
    expect(Date.now() - t0).toBeLessThan(2000);
    const pid = Number(textOf(r).split("\n")[0]);
    expect(processAlive(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
  });

  it("refuses to start when already aborted", async () => {
    await expect(createBashTool(dir).execute("1", { command: "echo hi" }, AbortSignal.abort())).rejects.toThrow(
      "Command aborted",
    );
  });
});
