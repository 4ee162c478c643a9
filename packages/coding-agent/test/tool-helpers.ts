import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentToolResult } from "@tiller/agent";
import { type ExtensionContext, ExtensionRunner } from "../src/index.js";

/** A fresh temp dir (real path), removed by the returned cleanup. */
export function tempDir(prefix = "tiller-tools-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The text blocks of a result, joined. */
export function textOf(result: AgentToolResult<unknown>): string {
  return result.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** Whether a process is alive; a zombie (exited, not yet reaped by a non-reaping PID 1) counts as dead. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true; // No /proc (macOS): the signal check is all we have.
  }
}

/** An extension context in `cwd` bound to no session (what a runner hands out before its host binds one). */
export function bareContext(cwd: string): ExtensionContext {
  return Object.assign(Object.create(new ExtensionRunner([]).createContext()) as ExtensionContext, { cwd });
}
