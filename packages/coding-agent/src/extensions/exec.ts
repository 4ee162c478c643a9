/**
 * `ExtensionAPI.exec` (pi's): runs a program with arguments (no shell) and collects its output. Never rejects:
 * a program that cannot start ends with code 1 and the reason in `stderr`; abort and timeout stop it (SIGTERM,
 * then SIGKILL after 5 s) and mark the result `killed`.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

export interface ExecOptions {
  /** Aborting stops the program. */
  signal?: AbortSignal;
  /** Milliseconds before the program is stopped (none when omitted or 0). */
  timeout?: number;
  /** Working directory (default: the extension's cwd). */
  cwd?: string;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** Exit code; 0 when the program was ended by a signal, 1 when it could not start. */
  code: number;
  /** True when abort or timeout stopped it. */
  killed: boolean;
}

const KILL_GRACE_MS = 5000;

export function execCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  options: ExecOptions = {},
): Promise<ExecResult> {
  return new Promise((resolve) => {
    const out = new StringDecoder("utf8");
    const err = new StringDecoder("utf8");
    let stdout = "";
    let stderr = "";
    let killed = false;
    let done = false;
    const child = spawn(command, [...args], { cwd, shell: false, stdio: ["ignore", "pipe", "pipe"] });
    let hardKill: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killed || done) return;
      killed = true;
      child.kill("SIGTERM");
      hardKill = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
      hardKill.unref();
    };
    const timer = options.timeout && options.timeout > 0 ? setTimeout(stop, options.timeout) : undefined;
    if (options.signal?.aborted) stop();
    else options.signal?.addEventListener("abort", stop, { once: true });
    child.stdout?.on("data", (d: Buffer) => {
      stdout += out.write(d);
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += err.write(d);
    });
    const finish = (code: number, extraErr = "") => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      if (hardKill) clearTimeout(hardKill);
      options.signal?.removeEventListener("abort", stop);
      resolve({ stdout: stdout + out.end(), stderr: stderr + err.end() + extraErr, code, killed });
    };
    child.on("error", (e) => finish(1, `${stderr ? "\n" : ""}${e.message}`));
    child.on("close", (code) => finish(code ?? 0));
  });
}
