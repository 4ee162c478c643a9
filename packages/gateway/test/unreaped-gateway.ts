/**
 * Test helper: a real gateway process whose parent never reaps it, as in a container whose pid 1 does not wait for
 * its children. `sh` starts the gateway in the background and becomes `sleep`; once the gateway is killed it stays
 * a zombie (its pid still answers `kill(pid, 0)`) until the test ends the parent.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readProcStat } from "@tiller/coding-agent";
import { GATEWAY_CLI, ROOT } from "./gateway-harness.js";

export interface UnreapedGateway {
  pid: number;
  url: string;
  parent: ChildProcess;
  stderr: string[];
  /** SIGKILL the gateway and wait until it is a zombie. */
  killToZombie(): Promise<void>;
  /** Ends the non-reaping parent (the zombie then goes to init, which reaps it). */
  dispose(): void;
}

function procState(pid: number): string | undefined {
  return readProcStat(pid)?.state;
}

export function spawnUnreapedGateway(home: string): Promise<UnreapedGateway> {
  const parent = spawn(
    "sh",
    [
      "-c",
      '"$@" & echo "gateway-pid $!"; exec sleep 100000',
      "sh",
      process.execPath,
      "--conditions=tiller-source",
      "--import",
      "tsx",
      GATEWAY_CLI,
      "--port",
      "0",
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const stderr: string[] = [];
  parent.stderr?.on("data", (d: Buffer) => stderr.push(String(d)));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      parent.kill("SIGKILL");
      reject(new Error(`unreaped gateway did not start: ${stderr.join("")}`));
    }, 25_000);
    parent.stdout?.on("data", (d: Buffer) => {
      out += String(d);
      const pid = /gateway-pid (\d+)/.exec(out);
      const url = /listening (ws:\/\/\S+)/.exec(out);
      if (!pid || !url) return;
      clearTimeout(timer);
      const gatewayPid = Number(pid[1]);
      resolve({
        pid: gatewayPid,
        url: url[1] as string,
        parent,
        stderr,
        killToZombie: async () => {
          process.kill(gatewayPid, "SIGKILL");
          const deadline = Date.now() + 10_000;
          while (procState(gatewayPid) !== "Z") {
            if (Date.now() > deadline) throw new Error(`gateway ${gatewayPid} did not become a zombie`);
            await new Promise((r) => setTimeout(r, 10));
          }
        },
        dispose: () => {
          try {
            process.kill(gatewayPid, "SIGKILL");
          } catch {
            // Already dead.
          }
          if (parent.exitCode === null) parent.kill("SIGKILL");
        },
      });
    });
    parent.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`unreaped gateway's parent exited with ${code}: ${stderr.join("")}`));
    });
  });
}

/** Whether /proc says `pid` is a zombie. */
export function isZombie(pid: number): boolean {
  return procState(pid) === "Z";
}
