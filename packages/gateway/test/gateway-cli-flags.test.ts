/**
 * `tiller gateway` and `tiller agent` refuse flags they do not know, like the `tiller` CLI: exit 2 and a
 * message naming the flag, instead of starting on the defaults (a mistyped `--prot 1`, an unsupported
 * `--host 0.0.0.0`).
 */
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_CLI, GATEWAY_CLI, makeHome, ROOT, removeHome } from "./gateway-harness.js";

const home = makeHome();
afterAll(() => removeHome(home));

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", script, ...args], {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    proc.stdout?.on("data", (d: Buffer) => {
      stdout += String(d);
      // A gateway that started anyway would never exit: stop it so the assertion below reports it.
      if (stdout.includes("listening")) proc.kill("SIGTERM");
    });
    proc.stderr?.on("data", (d: Buffer) => {
      stderr += String(d);
    });
    proc.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("unknown flags", () => {
  it("tiller gateway --prot 1 and --host 0.0.0.0 exit 2 naming the flag, without listening", async () => {
    for (const [flag, value] of [
      ["--prot", "1"],
      ["--host", "0.0.0.0"],
    ] as const) {
      const r = await run(GATEWAY_CLI, ["--port", "0", flag, value]);
      expect(r.stdout).not.toContain("listening");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`unknown option ${flag}`);
    }
  }, 60_000);

  it("tiller gateway call and tiller agent refuse unknown flags too; known ones still parse", async () => {
    const call = await run(GATEWAY_CLI, ["call", "health", "--parms", "{}"]);
    expect(call.code).toBe(2);
    expect(call.stderr).toContain("unknown option --parms");
    const agent = await run(AGENT_CLI, ["--mesage", "hi"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("unknown option --mesage");
    const help = await run(GATEWAY_CLI, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage:");
  }, 60_000);
});
