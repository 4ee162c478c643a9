/**
 * Background processes started by the exec tool, readable later through the process tool. Each keeps a
 * bounded output buffer (oldest output dropped first). Running processes are killed when Node exits.
 */
import type { ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { sanitizeOutput } from "./output-sink.js";
import { DEFAULT_KILL_GRACE_MS, killTree, killTreeNow, spawnShell } from "./process-tree.js";

export type ProcessStatus = "running" | "exited" | "killed" | "failed";

/** Output kept in memory for one process: a window over the whole stream, addressed by absolute offsets. */
export class BoundedOutput {
  private text = "";
  /** Characters and lines dropped from the front so far. */
  droppedChars = 0;
  droppedLines = 0;

  constructor(readonly maxChars = 1024 * 1024) {}

  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.maxChars * 2) {
      // Cut at a line boundary so line numbers stay exact.
      let cut = this.text.length - this.maxChars;
      const nl = this.text.indexOf("\n", cut);
      if (nl !== -1) cut = nl + 1;
      const dropped = this.text.slice(0, cut);
      for (let i = dropped.indexOf("\n"); i !== -1; i = dropped.indexOf("\n", i + 1)) this.droppedLines++;
      this.droppedChars += cut;
      this.text = this.text.slice(cut);
    }
  }

  /** Absolute offset just past the last character. */
  get end(): number {
    return this.droppedChars + this.text.length;
  }

  /** Text from absolute offset `from` (clamped to what is still held) and how much was lost before it. */
  since(from: number): { text: string; lost: number } {
    const start = Math.max(from, this.droppedChars);
    return { text: this.text.slice(start - this.droppedChars), lost: start - from };
  }

  /** Held lines with their 1-based absolute numbers. */
  lines(): { first: number; lines: string[] } {
    const lines = this.text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return { first: this.droppedLines + 1, lines };
  }
}

export interface ProcessSession {
  id: string;
  command: string;
  cwd: string;
  pid: number | undefined;
  startedAt: number;
  endedAt?: number;
  status: ProcessStatus;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why it was killed, when it was. */
  killReason?: "timeout" | "killed" | "aborted";
  error?: string;
  output: BoundedOutput;
  /** Absolute offset up to which `poll` has returned output. */
  pollCursor: number;
  /** Resolves when the process has exited and its output is complete. */
  done: Promise<void>;
  child: ChildProcess;
}

export interface StartOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  shell?: string;
  /** Kill the tree after this many seconds. */
  timeoutSec?: number;
  onOutput?: (chunk: string) => void;
}

export interface ProcessRegistryOptions {
  /** Characters of output kept per process. Default 1 MiB. */
  maxOutputChars?: number;
  /** Finished sessions kept for reading. Default 50. */
  maxFinished?: number;
  killGraceMs?: number;
}

/** Holds exec sessions; one registry is shared by an exec tool and its process tool. */
export class ProcessRegistry {
  private readonly sessions = new Map<string, ProcessSession>();
  private counter = 0;
  private exitHook: (() => void) | undefined;

  constructor(private readonly options: ProcessRegistryOptions = {}) {}

  start(opts: StartOptions): ProcessSession {
    const id = `proc_${(++this.counter).toString(36)}_${Date.now().toString(36).slice(-4)}`;
    const child = spawnShell(opts.command, { cwd: opts.cwd, env: opts.env, shell: opts.shell, stdin: true });
    const session: ProcessSession = {
      id,
      command: opts.command,
      cwd: opts.cwd,
      pid: child.pid,
      startedAt: Date.now(),
      status: "running",
      exitCode: null,
      signal: null,
      output: new BoundedOutput(this.options.maxOutputChars),
      pollCursor: 0,
      child,
      done: Promise.resolve(),
    };
    const decoder = new StringDecoder("utf8");
    const onData = (data: Buffer) => {
      const text = sanitizeOutput(decoder.write(data));
      if (text === "") return;
      session.output.append(text);
      opts.onOutput?.(text);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.stdin?.on("error", () => {}); // Writing to a process that exited must not crash us.
    const timer =
      opts.timeoutSec && opts.timeoutSec > 0
        ? setTimeout(() => void this.kill(id, "timeout"), opts.timeoutSec * 1000)
        : undefined;
    timer?.unref();
    session.done = new Promise<void>((resolve) => {
      let drain: NodeJS.Timeout | undefined;
      const finish = (code: number | null, sig: NodeJS.Signals | null) => {
        if (session.endedAt !== undefined) return;
        if (drain) clearTimeout(drain);
        if (timer) clearTimeout(timer);
        const rest = sanitizeOutput(decoder.end());
        if (rest) session.output.append(rest);
        session.endedAt = Date.now();
        session.exitCode = code;
        session.signal = sig;
        if (session.status === "running") session.status = session.killReason ? "killed" : "exited";
        child.stdout?.destroy();
        child.stderr?.destroy();
        this.prune();
        resolve();
      };
      child.on("error", (err) => {
        session.status = "failed";
        session.error = err.message;
        finish(null, null);
      });
      // Background grandchildren can hold the pipes open: stop waiting shortly after the shell exits.
      child.on("exit", (code, sig) => {
        drain = setTimeout(() => finish(code, sig), 250);
      });
      child.on("close", (code, sig) => finish(code, sig));
    });
    this.sessions.set(id, session);
    this.installExitHook();
    return session;
  }

  get(id: string): ProcessSession | undefined {
    return this.sessions.get(id);
  }

  list(): ProcessSession[] {
    return [...this.sessions.values()];
  }

  /** Kill a session's process tree; resolves when it has exited. */
  async kill(id: string, reason: "timeout" | "killed" | "aborted" = "killed"): Promise<ProcessSession | undefined> {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.status === "running" && session.pid) {
      session.killReason ??= reason;
      await killTree(session.pid, this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      await session.done;
    }
    return session;
  }

  /** Kill everything still running (tests, shutdown). */
  async killAll(): Promise<void> {
    await Promise.all(this.list().map((s) => this.kill(s.id)));
  }

  /** Forget finished sessions beyond the retention limit, oldest first. */
  private prune(): void {
    const max = this.options.maxFinished ?? 50;
    const finished = this.list().filter((s) => s.status !== "running");
    for (const s of finished.slice(0, Math.max(0, finished.length - max))) this.sessions.delete(s.id);
  }

  private installExitHook(): void {
    if (this.exitHook) return;
    this.exitHook = () => {
      for (const s of this.sessions.values()) if (s.status === "running" && s.pid) killTreeNow(s.pid);
    };
    process.once("exit", this.exitHook);
  }

  /** Remove the exit hook (after killAll), so short-lived registries do not pile up listeners. */
  dispose(): void {
    if (this.exitHook) process.removeListener("exit", this.exitHook);
    this.exitHook = undefined;
  }
}

/** Registry used when a tool is created without one. */
export const defaultProcessRegistry = new ProcessRegistry();
