/**
 * The bash tool: runs a command in the workspace, streams its output through `onUpdate` (throttled),
 * keeps a bounded tail and spills the full output to a temp file. Abort and timeout kill the whole
 * process tree. A non-zero exit, a timeout or an abort is an error result carrying the output.
 */
import { existsSync } from "node:fs";
import type { AgentTool, AgentToolUpdateCallback } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { OutputSink } from "./output-sink.js";
import { DEFAULT_KILL_GRACE_MS, killTree, spawnShell } from "./process-tree.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.js";

/** Minimum delay between two `onUpdate` calls. */
export const BASH_UPDATE_THROTTLE_MS = 100;
/** After the shell exits, how long to wait for pipes held open by background children. */
const PIPE_DRAIN_MS = 250;

const bashSchema = Type.Object({
  command: Type.String({ description: "Bash command to execute" }),
  timeout: Type.Optional(Type.Number({ description: "Timeout in seconds (no timeout when omitted)" })),
});
export type BashToolInput = Static<typeof bashSchema>;

export interface BashToolDetails {
  exitCode?: number | null;
  truncation?: TruncationResult;
  /** Temp file holding the whole output, when it was truncated. */
  fullOutputPath?: string;
}

/** How commands run; replace it to run them elsewhere (a container, SSH). */
export interface BashOperations {
  /** Run `command`, feeding output to `onData`; must stop the command when `signal` aborts. */
  exec: (
    command: string,
    cwd: string,
    options: { onData: (data: Buffer) => void; signal?: AbortSignal; env?: NodeJS.ProcessEnv },
  ) => Promise<{ exitCode: number | null; signal?: NodeJS.Signals | null }>;
}

/** What a command is about to run as: the hook of `BashToolOptions.spawnHook` may rewrite any of it. */
export interface BashSpawnContext {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}
/** Rewrites a command before it runs (pi's `spawnHook`): wrap it, move it, change its environment. */
export type BashSpawnHook = (context: BashSpawnContext) => BashSpawnContext;

export interface BashToolOptions {
  operations?: BashOperations;
  /** Called before each command with the command (prefix included), cwd and environment; runs what it returns. */
  spawnHook?: BashSpawnHook;
  /** Shell binary; defaults to bash, else sh. */
  shellPath?: string;
  /** Prepended to every command (e.g. `source .envrc`). */
  commandPrefix?: string;
  env?: NodeJS.ProcessEnv;
  /** Timeout (seconds) used when the call gives none. */
  defaultTimeoutSec?: number;
  /** SIGTERM → SIGKILL delay on abort/timeout. */
  killGraceMs?: number;
  maxLines?: number;
  maxBytes?: number;
}

/** The local backend: a detached shell whose process group is killed on abort. */
export function createLocalBashOperations(options: { shellPath?: string; killGraceMs?: number } = {}): BashOperations {
  return {
    exec: (command, cwd, { onData, signal, env }) =>
      new Promise((resolve, reject) => {
        if (!existsSync(cwd)) return reject(new Error(`Working directory does not exist: ${cwd}`));
        if (signal?.aborted) return resolve({ exitCode: null, signal: "SIGTERM" });
        const child = spawnShell(command, { cwd, env, shell: options.shellPath });
        const onAbort = () => {
          if (child.pid) void killTree(child.pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        let drainTimer: NodeJS.Timeout | undefined;
        let done = false;
        const finish = (code: number | null, sig: NodeJS.Signals | null) => {
          if (done) return;
          done = true;
          if (drainTimer) clearTimeout(drainTimer);
          signal?.removeEventListener("abort", onAbort);
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ exitCode: code, signal: sig });
        };
        child.on("error", (err) => {
          if (done) return;
          done = true;
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        });
        child.on("exit", (code, sig) => {
          // Background children (`cmd &`) can keep the pipes open forever: give them a moment, then detach.
          drainTimer = setTimeout(() => finish(code, sig), PIPE_DRAIN_MS);
        });
        child.on("close", (code, sig) => finish(code, sig));
      }),
  };
}

function outputWithNotes(text: string, snap: ReturnType<OutputSink["snapshot"]>): string {
  const trimmed = text.replace(/\n+$/, "");
  let out = trimmed === "" ? "(no output)" : trimmed;
  const t = snap.truncation;
  if (t.truncated) {
    const shown = t.lastLinePartial
      ? `last ${formatSize(t.outputBytes)} of line ${t.totalLines}`
      : `lines ${t.totalLines - t.outputLines + 1}-${t.totalLines} of ${t.totalLines}`;
    out += `\n\n[Showing ${shown} (${formatSize(t.totalBytes)} total).`;
    out += snap.fullOutputPath ? ` Full output: ${snap.fullOutputPath}]` : "]";
  }
  return out;
}

export function createBashTool(
  cwd: string,
  options: BashToolOptions = {},
): AgentTool<typeof bashSchema, BashToolDetails> {
  const ops = options.operations ?? createLocalBashOperations(options);
  return {
    name: "bash",
    label: "bash",
    description:
      `Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to ` +
      `the last ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB; the full output is saved to a temp file. ` +
      `Optionally provide a timeout in seconds.`,
    parameters: bashSchema,
    async execute(_id, params, signal, onUpdate?: AgentToolUpdateCallback<BashToolDetails>) {
      if (typeof params.command !== "string" || params.command.trim() === "") throw new Error("command is empty");
      if (signal?.aborted) throw new Error("Command aborted");
      const timeoutSec = params.timeout ?? options.defaultTimeoutSec;
      const prefixed = options.commandPrefix ? `${options.commandPrefix}\n${params.command}` : params.command;
      const spawn = options.spawnHook
        ? options.spawnHook({ command: prefixed, cwd, env: { ...process.env, ...options.env } })
        : { command: prefixed, cwd, env: options.env };
      const sink = new OutputSink({
        maxLines: options.maxLines,
        maxBytes: options.maxBytes,
        spillPrefix: "tiller-bash",
      });
      const controller = new AbortController();
      let stopReason: "aborted" | "timeout" | undefined;
      const onAbort = () => {
        stopReason ??= "aborted";
        controller.abort();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const timer =
        timeoutSec !== undefined && timeoutSec > 0
          ? setTimeout(() => {
              stopReason ??= "timeout";
              controller.abort();
            }, timeoutSec * 1000)
          : undefined;

      let lastUpdate = 0;
      let updateTimer: NodeJS.Timeout | undefined;
      const emit = () => {
        updateTimer = undefined;
        lastUpdate = Date.now();
        const snap = sink.snapshot();
        onUpdate?.({
          content: [{ type: "text", text: snap.text }],
          details: { truncation: snap.truncation.truncated ? snap.truncation : undefined },
        });
      };
      const onData = (data: Buffer) => {
        sink.write(data);
        if (!onUpdate || updateTimer) return;
        const wait = BASH_UPDATE_THROTTLE_MS - (Date.now() - lastUpdate);
        if (wait <= 0) emit();
        else updateTimer = setTimeout(emit, wait);
      };

      let exit: { exitCode: number | null; signal?: NodeJS.Signals | null };
      try {
        exit = await ops.exec(spawn.command, spawn.cwd, { onData, signal: controller.signal, env: spawn.env });
      } finally {
        if (timer) clearTimeout(timer);
        if (updateTimer) clearTimeout(updateTimer);
        signal?.removeEventListener("abort", onAbort);
      }
      const snap = await sink.finish();
      const text = outputWithNotes(snap.text, snap);
      if (stopReason === "timeout") throw new Error(`${text}\n\nCommand timed out after ${timeoutSec} seconds`);
      if (stopReason === "aborted") throw new Error(`${text}\n\nCommand aborted`);
      if (exit.exitCode === null) throw new Error(`${text}\n\nCommand killed by signal ${exit.signal ?? "unknown"}`);
      if (exit.exitCode !== 0) throw new Error(`${text}\n\nCommand exited with code ${exit.exitCode}`);
      return {
        content: [{ type: "text", text: `${text}\n\nExit code: 0` }],
        details: {
          exitCode: 0,
          truncation: snap.truncation.truncated ? snap.truncation : undefined,
          fullOutputPath: snap.fullOutputPath,
        },
      };
    },
  };
}
