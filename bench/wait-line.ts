/** Bench helper: waits for a spawned process to print a line matching `re` on stdout (rejects if it exits first). */
import type { ChildProcess } from "node:child_process";

export function waitLine(proc: ChildProcess, re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buf = "";
    proc.stdout?.on("data", (d: Buffer) => {
      buf += String(d);
      const m = re.exec(buf);
      if (m) resolve(m);
    });
    proc.once("exit", (code) => reject(new Error(`process exited (${code}) before printing ${re}`)));
  });
}
