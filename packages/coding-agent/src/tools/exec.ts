/**
 * The exec tool (OpenClaw's replacement for bash): runs a command in the foreground for up to `yieldMs`,
 * then leaves it running in the background as a session the process tool can poll, read, write to or kill.
 * `background: true` returns at once.
 */
import { existsSync } from "node:fs";
import type { AgentTool, AgentToolUpdateCallback } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { resolveToolPath } from "./path-guard.js";
import { defaultProcessRegistry, type ProcessRegistry, type ProcessSession } from "./process-registry.js";
import { formatSize, truncateTail } from "./truncate.js";

const execSchema = Type.Object({
  command: Type.String({ description: "Shell command to run" }),
  workdir: Type.Optional(Type.String({ description: "Working directory (default: current directory)" })),
  env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: "Extra environment variables" })),
  background: Type.Optional(Type.Boolean({ description: "Start in the background and return immediately" })),
  yieldMs: Type.Optional(
    Type.Number({
      description: "Wait this long (ms) before leaving the command running in the background (default 10000)",
    }),
  ),
  timeout: Type.Optional(Type.Number({ description: "Kill the command after this many seconds" })),
});
export type ExecToolInput = Static<typeof execSchema>;

export interface ExecToolDetails {
  sessionId: string;
  pid?: number;
  status: ProcessSession["status"];
  exitCode?: number | null;
}

export interface ExecToolOptions {
  registry?: ProcessRegistry;
  /** Confine `workdir` to cwd. */
  sandbox?: boolean;
  env?: NodeJS.ProcessEnv;
  shellPath?: string;
  defaultYieldMs?: number;
}

export const DEFAULT_YIELD_MS = 10_000;
const UPDATE_THROTTLE_MS = 100;

/** Tail of a session's output within the usual limits, with a note when cut. */
export function outputTail(session: ProcessSession, from = 0): string {
  const { text, lost } = session.output.since(from);
  const t = truncateTail(text);
  let out = t.content.replace(/\n+$/, "");
  if (t.truncated || lost > 0)
    out = `[Earlier output omitted: showing the last ${formatSize(t.outputBytes)}. Use process log to page through it.]\n${out}`;
  return out;
}

export function createExecTool(
  cwd: string,
  options: ExecToolOptions = {},
): AgentTool<typeof execSchema, ExecToolDetails> {
  const registry = options.registry ?? defaultProcessRegistry;
  return {
    name: "exec",
    label: "exec",
    description:
      "Run a shell command. It runs in the foreground for up to yieldMs (default 10s); if still running it " +
      "continues in the background and you get a session id for the process tool (poll, log, write, kill). " +
      "Set background=true for servers and watchers.",
    parameters: execSchema,
    async execute(_id, params, signal, onUpdate?: AgentToolUpdateCallback<ExecToolDetails>) {
      if (signal?.aborted) throw new Error("Command aborted");
      if (typeof params.command !== "string" || params.command.trim() === "") throw new Error("command is empty");
      const workdir = params.workdir ? resolveToolPath(params.workdir, cwd, options) : cwd;
      if (!existsSync(workdir)) throw new Error(`Working directory does not exist: ${params.workdir ?? cwd}`);
      let lastUpdate = 0;
      let updateTimer: NodeJS.Timeout | undefined;
      let foreground = !params.background;
      let session: ProcessSession | undefined;
      const details = (): ExecToolDetails => ({
        sessionId: session!.id,
        pid: session!.pid,
        status: session!.status,
        exitCode: session!.endedAt !== undefined ? session!.exitCode : undefined,
      });
      const emit = () => {
        updateTimer = undefined;
        lastUpdate = Date.now();
        if (foreground && session)
          onUpdate?.({ content: [{ type: "text", text: outputTail(session) }], details: details() });
      };
      session = registry.start({
        command: params.command,
        cwd: workdir,
        env: params.env ? { ...(options.env ?? process.env), ...params.env } : options.env,
        shell: options.shellPath,
        timeoutSec: params.timeout,
        onOutput: () => {
          if (!foreground || !onUpdate || updateTimer) return;
          const wait = UPDATE_THROTTLE_MS - (Date.now() - lastUpdate);
          if (wait <= 0) emit();
          else updateTimer = setTimeout(emit, wait);
        },
      });
      const s = session;
      const header = `session ${s.id}, pid ${s.pid ?? "?"}`;
      if (params.background) {
        return {
          content: [
            {
              type: "text",
              text: `Started in the background (${header}). Use process with action poll or log to read its output.`,
            },
          ],
          details: details(),
        };
      }

      const yieldMs = Math.max(0, params.yieldMs ?? options.defaultYieldMs ?? DEFAULT_YIELD_MS);
      let yieldTimer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const outcome = await Promise.race([
        s.done.then(() => "done" as const),
        new Promise<"yield">((resolve) => {
          yieldTimer = setTimeout(() => resolve("yield"), yieldMs);
        }),
        new Promise<"aborted">((resolve) => {
          onAbort = () => resolve("aborted");
          signal?.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      foreground = false;
      if (yieldTimer) clearTimeout(yieldTimer);
      if (updateTimer) clearTimeout(updateTimer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);

      if (outcome === "aborted") {
        await registry.kill(s.id, "aborted");
        throw new Error(`${outputTail(s) || "(no output)"}\n\nCommand aborted`);
      }
      if (outcome === "yield") {
        s.pollCursor = s.output.end;
        const sofar = outputTail(s);
        return {
          content: [
            {
              type: "text",
              text:
                `${sofar ? `${sofar}\n\n` : ""}[Still running after ${yieldMs} ms (${header}). ` +
                `Use process with action poll to read new output, or kill to stop it.]`,
            },
          ],
          details: details(),
        };
      }
      s.pollCursor = s.output.end;
      const text = outputTail(s) || "(no output)";
      if (s.status === "failed") throw new Error(`Command failed to start: ${s.error}`);
      if (s.killReason === "timeout") throw new Error(`${text}\n\nCommand timed out after ${params.timeout} seconds`);
      if (s.exitCode === null) throw new Error(`${text}\n\nCommand killed by signal ${s.signal ?? "unknown"}`);
      if (s.exitCode !== 0) throw new Error(`${text}\n\nCommand exited with code ${s.exitCode}`);
      return { content: [{ type: "text", text: `${text}\n\nExit code: 0` }], details: details() };
    },
  };
}
