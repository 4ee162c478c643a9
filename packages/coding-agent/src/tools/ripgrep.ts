/**
 * Optional ripgrep backend for grep and find. Nothing is downloaded: `rg` is used only when it is already
 * on PATH; otherwise the pure JS implementations give the same results.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";

let cached: { key: string; value: string | undefined } | undefined;

/** Absolute path of `rg` on PATH, or undefined. */
export function findRipgrep(envPath = process.env.PATH ?? ""): string | undefined {
  if (cached?.key === envPath) return cached.value;
  let value: string | undefined;
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      accessSync(candidate, constants.X_OK);
      value = candidate;
      break;
    } catch {}
  }
  cached = { key: envPath, value };
  return value;
}

/** Flags that make ripgrep walk like the JS walker (see walk.ts). */
export const RG_WALK_FLAGS = [
  "--hidden",
  "--no-require-git",
  "--no-ignore-global",
  "--sort",
  "path",
  "--glob",
  "!.git",
];

/**
 * Run rg and hand each stdout line to `onLine`; `onLine` returns false to stop early (rg is killed).
 * Resolves with rg's exit code (null when stopped) and its stderr.
 */
export function runRipgrep(
  rg: string,
  args: string[],
  onLine: (line: string) => boolean | undefined,
  signal?: AbortSignal,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("Search aborted"));
    const child = spawn(rg, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let pending = "";
    let stopped = false;
    const stop = () => {
      stopped = true;
      child.kill("SIGKILL");
    };
    const onAbort = () => {
      stop();
      reject(new Error("Search aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      pending += chunk;
      let nl = pending.indexOf("\n");
      let start = 0;
      while (nl !== -1) {
        if (onLine(pending.slice(start, nl)) === false) {
          stop();
          return;
        }
        start = nl + 1;
        nl = pending.indexOf("\n", start);
      }
      pending = pending.slice(start);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk;
    });
    child.on("error", (err) => {
      signal?.removeEventListener("abort", onAbort);
      reject(err);
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", onAbort);
      if (!stopped && pending !== "") onLine(pending);
      resolve({ code: stopped ? null : code, stderr });
    });
  });
}
