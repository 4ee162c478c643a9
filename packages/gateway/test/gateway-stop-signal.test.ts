/**
 * A supervisor that stops the gateway the moment it reads `listening` (scripts, tests, systemd restarts) gets a
 * clean stop: exit code 0 (not killed by the signal's default action) and the home lock released, so the next
 * gateway on that home starts at once. The signal handlers are installed before the gateway listens.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { GATEWAY_CLI, makeHome, ROOT, removeHome } from "./gateway-harness.js";

const home = makeHome();
afterAll(() => removeHome(home));

/** Starts `tiller gateway` and sends SIGTERM as soon as its stdout says `listening`; resolves with how it ended. */
function startThenTerm(): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(
      process.execPath,
      ["--conditions=tiller-source", "--import", "tsx", GATEWAY_CLI, "--port", "0"],
      {
        cwd: ROOT,
        env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let sent = false;
    let stderr = "";
    proc.stdout?.on("data", (d: Buffer) => {
      if (!sent && String(d).includes("listening")) {
        sent = true;
        proc.kill("SIGTERM");
      }
    });
    proc.stderr?.on("data", (d: Buffer) => {
      stderr += String(d);
    });
    proc.once("exit", (code, signal) => resolve({ code, signal, stderr }));
  });
}

it("SIGTERM right after `listening` stops the gateway cleanly (exit 0, home lock released), every time", async () => {
  for (let i = 0; i < 4; i++) {
    const r = await startThenTerm();
    expect({ code: r.code, signal: r.signal }, r.stderr).toEqual({ code: 0, signal: null });
    expect(existsSync(join(home, "gateway.lock"))).toBe(false);
  }
}, 120_000);
