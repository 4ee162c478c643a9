/** Drives `tiller --mode rpc` as a child process: send commands, wait for responses or events. */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { CLI_COMMAND } from "./spawn-cli.js";

export type RpcLine = Record<string, unknown>;

export interface RpcChild {
  child: ChildProcessWithoutNullStreams;
  lines: RpcLine[];
  stderr(): string;
  send(value: unknown): void;
  /** Writes raw text (for malformed-input tests). */
  sendRaw(text: string): void;
  /** Resolves with the first line (from `from` on) matching `pred`. */
  waitFor(pred: (l: RpcLine) => boolean, what: string, from?: number): Promise<RpcLine>;
  /** Sends a command with an id and resolves with its response. */
  request(cmd: Record<string, unknown>): Promise<RpcLine>;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null>;
}

let nextId = 0;

export function startRpc(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): RpcChild {
  const child = spawn(CLI_COMMAND[0]!, [...CLI_COMMAND.slice(1), "--mode", "rpc", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: RpcLine[] = [];
  let buf = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let nl = buf.indexOf("\n");
    while (nl >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)) as RpcLine);
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((r) => child.on("close", r));
  const waitFor = async (pred: (l: RpcLine) => boolean, what: string, from = 0) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const hit = lines.slice(from).find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  const send = (v: unknown) => child.stdin.write(`${JSON.stringify(v)}\n`);
  return {
    child,
    lines,
    stderr: () => stderr,
    send,
    sendRaw: (t) => child.stdin.write(t),
    waitFor,
    request: (cmd) => {
      const id = `r${++nextId}`;
      send({ ...cmd, id });
      return waitFor((l) => l.type === "response" && l.id === id, `response to ${String(cmd.type)}`);
    },
    close: () => {
      child.stdin.end();
      return exited;
    },
  };
}
