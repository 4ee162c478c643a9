/** Small helpers shared by the cluster tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "cluster-node-child.ts");

/** Resolves when `check` returns a value (polled every 50 ms), or rejects after `timeoutMs` naming `what`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ChildNode {
  proc: ChildProcess;
  /** Lines printed so far. */
  lines: string[];
  /** Resolves with the first line matching `re` (already printed or still to come). */
  line(re: RegExp, timeoutMs?: number): Promise<string>;
}

/** Starts a cluster node in its own process (see cluster-node-child.ts). */
export function spawnClusterNode(
  url: string,
  nodeId: string,
  opts: { leaseMs?: number; mode?: "hold" | "quick" } = {},
): ChildNode {
  const proc = spawn(
    process.execPath,
    [
      "--conditions=tiller-source",
      "--import",
      "tsx",
      CHILD,
      url,
      nodeId,
      String(opts.leaseMs ?? "-"),
      opts.mode ?? "hold",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: string[] = [];
  let buf = "";
  let stderr = "";
  proc.stdout?.on("data", (d: Buffer) => {
    buf += d.toString();
    let i = buf.indexOf("\n");
    while (i >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf("\n");
    }
  });
  proc.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return {
    proc,
    lines,
    line: (re, timeoutMs = 60_000) =>
      until(
        `child ${nodeId} to print ${re} (stderr: ${stderr.slice(-500)})`,
        () => {
          if (proc.exitCode !== null)
            throw new Error(`child ${nodeId} exited ${proc.exitCode}: ${stderr.slice(-1000)}`);
          return lines.find((l) => re.test(l));
        },
        timeoutMs,
      ),
  };
}
