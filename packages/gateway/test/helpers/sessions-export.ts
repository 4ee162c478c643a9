/**
 * Runs `tiller gateway sessions export …` as the user would (its own process on a home) and reads an exported
 * file the way the coding agent does, for comparing with what `chat.history` served.
 */
import { spawn } from "node:child_process";
import { SessionManager } from "@tiller/coding-agent";
import { GATEWAY_CLI, ROOT } from "../gateway-harness.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSessionsCli(home: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const proc = spawn(
      process.execPath,
      ["--conditions=tiller-source", "--import", "tsx", GATEWAY_CLI, "sessions", ...args],
      { cwd: ROOT, env: { ...process.env, TILLER_HOME: home, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    proc.stdout?.on("data", (d: Buffer) => {
      stdout += String(d);
    });
    proc.stderr?.on("data", (d: Buffer) => {
      stderr += String(d);
    });
    proc.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The visible messages (role + content) of a JSONL transcript, as `SessionManager.open` builds its context. */
export function exportedContext(file: string): { role: string; content: unknown }[] {
  const sm = SessionManager.open(file, { readOnly: true });
  try {
    return (sm.buildSessionContext().messages as { role: string; content: unknown }[])
      .filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult")
      .map((m) => ({ role: m.role, content: m.content }));
  } finally {
    sm.close();
  }
}

/** chat.history's messages reduced to the same shape. */
export function historyContext(history: { messages: { role: string; content: unknown }[] }): {
  role: string;
  content: unknown;
}[] {
  return history.messages.map((m) => ({ role: m.role, content: m.content }));
}
