/**
 * The process tool: manage exec sessions — list them, poll new output, page through the log, write to
 * stdin, kill.
 */
import type { AgentTool } from "@tiller/agent";
import { type Static, Type } from "@tiller/ai";
import { outputTail } from "./exec.js";
import { defaultProcessRegistry, type ProcessRegistry, type ProcessSession } from "./process-registry.js";
import { DEFAULT_MAX_BYTES, truncateHead } from "./truncate.js";

const processSchema = Type.Object({
  action: Type.Union([
    Type.Literal("list"),
    Type.Literal("poll"),
    Type.Literal("log"),
    Type.Literal("write"),
    Type.Literal("kill"),
  ]),
  sessionId: Type.Optional(Type.String({ description: "Session id from exec (all actions but list)" })),
  offset: Type.Optional(Type.Number({ description: "log: first line (1-based); default: the last `limit` lines" })),
  limit: Type.Optional(Type.Number({ description: "log: number of lines (default 200)" })),
  data: Type.Optional(Type.String({ description: "write: text to send to stdin" })),
  eof: Type.Optional(Type.Boolean({ description: "write: close stdin afterwards" })),
});
export type ProcessToolInput = Static<typeof processSchema>;

export interface ProcessToolDetails {
  sessions?: { id: string; status: string; pid?: number; exitCode: number | null; command: string }[];
  status?: ProcessSession["status"];
  exitCode?: number | null;
}

export interface ProcessToolOptions {
  registry?: ProcessRegistry;
}

const DEFAULT_LOG_LINES = 200;

function describe(s: ProcessSession): string {
  const secs = (((s.endedAt ?? Date.now()) - s.startedAt) / 1000).toFixed(1);
  const state =
    s.status === "running"
      ? `running ${secs}s`
      : s.status === "failed"
        ? `failed: ${s.error}`
        : s.killReason
          ? `killed (${s.killReason}) after ${secs}s`
          : `exited with code ${s.exitCode ?? s.signal} after ${secs}s`;
  return `${s.id} pid ${s.pid ?? "?"} ${state}: ${s.command.length > 80 ? `${s.command.slice(0, 77)}...` : s.command}`;
}

export function createProcessTool(
  options: ProcessToolOptions = {},
): AgentTool<typeof processSchema, ProcessToolDetails> {
  const registry = options.registry ?? defaultProcessRegistry;
  return {
    name: "process",
    label: "process",
    description:
      "Manage commands started with exec: list sessions, poll (new output since the last poll, and status), " +
      "log (page through output with offset/limit lines), write (send data to stdin, eof to close it), kill.",
    parameters: processSchema,
    async execute(_id, params, signal) {
      if (signal?.aborted) throw new Error("process aborted");
      if (params.action === "list") {
        const all = registry.list();
        return {
          content: [{ type: "text", text: all.length === 0 ? "No sessions" : all.map(describe).join("\n") }],
          details: {
            sessions: all.map((s) => ({
              id: s.id,
              status: s.status,
              pid: s.pid,
              exitCode: s.exitCode,
              command: s.command,
            })),
          },
        };
      }
      if (!params.sessionId) throw new Error(`sessionId is required for action ${params.action}`);
      const s = registry.get(params.sessionId);
      if (!s) throw new Error(`No session ${params.sessionId}. Use action list to see sessions.`);
      const status = () => ({ status: s.status, exitCode: s.endedAt !== undefined ? s.exitCode : undefined });

      switch (params.action) {
        case "poll": {
          const text = outputTail(s, s.pollCursor);
          s.pollCursor = s.output.end;
          return {
            content: [{ type: "text", text: `${text || "(no new output)"}\n\n[${describe(s)}]` }],
            details: status(),
          };
        }
        case "log": {
          const { first, lines } = s.output.lines();
          const limit = Math.max(1, Math.floor(params.limit ?? DEFAULT_LOG_LINES));
          const total = first - 1 + lines.length;
          const from =
            params.offset !== undefined ? Math.max(1, Math.floor(params.offset)) : Math.max(1, total - limit + 1);
          if (from > total && total > 0)
            throw new Error(`Offset ${from} is beyond the end of the output (${total} lines)`);
          const notes: string[] = [];
          if (from < first) notes.push(`lines 1-${first - 1} were dropped from memory`);
          const start = Math.max(from, first);
          const picked = lines.slice(start - first, start - first + limit);
          const t = truncateHead(picked.join("\n"), { maxLines: limit, maxBytes: DEFAULT_MAX_BYTES });
          const last = start + t.outputLines - 1;
          if (last < total)
            notes.push(`showing lines ${start}-${last} of ${total}; use offset=${last + 1} to continue`);
          const body = t.content === "" ? "(no output)" : t.content;
          const text = `${body}\n\n[${notes.length > 0 ? `${notes.join("; ")}. ` : ""}${describe(s)}]`;
          return { content: [{ type: "text", text }], details: status() };
        }
        case "write": {
          if (s.status !== "running") throw new Error(`Session ${s.id} is not running (${s.status})`);
          const stdin = s.child.stdin;
          if (!stdin || stdin.destroyed || stdin.writableEnded) throw new Error(`stdin of ${s.id} is closed`);
          const data = params.data ?? "";
          await new Promise<void>((resolve, reject) => stdin.write(data, (err) => (err ? reject(err) : resolve())));
          if (params.eof) stdin.end();
          return {
            content: [
              {
                type: "text",
                text: `Wrote ${Buffer.byteLength(data)} bytes to ${s.id}${params.eof ? " and closed stdin" : ""}`,
              },
            ],
            details: status(),
          };
        }
        case "kill": {
          if (s.status !== "running")
            return { content: [{ type: "text", text: `Already finished: ${describe(s)}` }], details: status() };
          await registry.kill(s.id, "killed");
          return { content: [{ type: "text", text: `Killed: ${describe(s)}` }], details: status() };
        }
        default:
          throw new Error(`Unknown action: ${String((params as { action: unknown }).action)}`);
      }
    },
  };
}
