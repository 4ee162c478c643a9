/**
 * Tools the gateway itself provides to agents: `message` (send text to a target through the outbound hooks),
 * `sessions_list`, `sessions_send` (start a turn in another session) and `session_status`. Each takes its
 * capability as a function so the tools stay independent of the server (and testable without one).
 */
import type { AgentTool, AgentToolResult } from "@tiller/agent";
import { type TSchema, Type } from "@tiller/ai";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { PluginHookContext } from "../plugins/hook-types.js";
import { deliverOutbound } from "../reply/outbound.js";

export interface GatewayToolDeps {
  /** Delivers text to a target (a session key or channel address). Absent: no `message` tool. */
  sendMessage?: (p: { to: string; text: string }) => Promise<void>;
  listSessions?: (p: { limit: number }) => Promise<{ key: string; updatedAt?: number; label?: string }[]>;
  sendToSession?: (p: { sessionKey: string; message: string }) => Promise<{ runId: string }>;
  sessionStatus?: () => Promise<Record<string, unknown>>;
  /** Outbound hooks for `message`. */
  hooks?: HookRunner;
  hookContext?: PluginHookContext;
  /** The default target of `message` (the current conversation). */
  defaultTarget?: string;
}

const text = (t: string): AgentToolResult<Record<string, unknown>> => ({
  content: [{ type: "text", text: t }],
  details: {},
});

const messageSchema = Type.Object({
  text: Type.String({ description: "The message to send" }),
  to: Type.Optional(
    Type.String({ description: "Target: a session key or channel address (default: this conversation)" }),
  ),
});
const listSchema = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })) });
const sendSchema = Type.Object({
  sessionKey: Type.String({ description: "Key of the session to message" }),
  message: Type.String({ description: "Text to send to that session's agent" }),
});
const statusSchema = Type.Object({});

/** Types `execute`'s params from the tool's own schema (inside an `AgentTool<any>[]` they would be `unknown`). */
function typed<S extends TSchema>(tool: AgentTool<S>): AgentTool<S> {
  return tool;
}

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
export function createGatewayTools(deps: GatewayToolDeps): AgentTool<any, any>[] {
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
  const tools: AgentTool<any, any>[] = [];
  if (deps.sendMessage) {
    const send = deps.sendMessage;
    tools.push(
      typed({
        name: "message",
        label: "Message",
        description: "Send a message to someone other than the current conversation, or a proactive update.",
        parameters: messageSchema,
        execute: async (_id, params) => {
          const to = params.to ?? deps.defaultTarget;
          if (!to) throw new Error("no target: pass `to`");
          const r = await deliverOutbound(
            deps.hooks,
            { to, content: params.text },
            (c) => send({ to, text: c }),
            deps.hookContext,
          );
          if (r.cancelledBy) throw new Error(`message not sent: cancelled by plugin ${r.cancelledBy}`);
          if (!r.delivered) throw new Error(`message not sent: ${r.error ?? "unknown error"}`);
          return { content: [{ type: "text", text: `Sent to ${to}.` }], details: { to, text: r.content } };
        },
      }),
    );
  }
  if (deps.listSessions) {
    const list = deps.listSessions;
    tools.push(
      typed({
        name: "sessions_list",
        label: "Sessions",
        description: "List recent sessions of this gateway (key, last update, label).",
        parameters: listSchema,
        execute: async (_id, params) => {
          const rows = await list({ limit: params.limit ?? 20 });
          const lines = rows.map(
            (r) =>
              `${r.key}${r.label ? ` (${r.label})` : ""}${r.updatedAt ? ` — ${new Date(r.updatedAt).toISOString()}` : ""}`,
          );
          return { content: [{ type: "text", text: lines.join("\n") || "No sessions." }], details: { sessions: rows } };
        },
      }),
    );
  }
  if (deps.sendToSession) {
    const sendTo = deps.sendToSession;
    tools.push(
      typed({
        name: "sessions_send",
        label: "Send to session",
        description: "Send a message to another session's agent; it runs there in the background.",
        parameters: sendSchema,
        execute: async (_id, params) => {
          const r = await sendTo({ sessionKey: params.sessionKey, message: params.message });
          return { content: [{ type: "text", text: `Queued in ${params.sessionKey} (run ${r.runId}).` }], details: r };
        },
      }),
    );
  }
  if (deps.sessionStatus) {
    const status = deps.sessionStatus;
    tools.push(
      typed({
        name: "session_status",
        label: "Session status",
        description: "Show this session's model, token usage and settings.",
        parameters: statusSchema,
        execute: async () => {
          const s = await status();
          return { ...text(JSON.stringify(s, null, 2)), details: s };
        },
      }),
    );
  }
  return tools;
}
