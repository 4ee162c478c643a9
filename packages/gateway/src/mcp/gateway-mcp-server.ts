/**
 * The gateway as an MCP server (`tiller mcp serve`): four tools over a `GatewayLink` —
 *   sessions_list   {limit?}                              → sessions.list
 *   session_history {sessionKey, limit?}                  → chat.history
 *   send_message    {sessionKey, message, timeoutSeconds?} → agent; the reply streams as progress notifications
 *                                                           (one per delta, `message` = the delta), the result
 *                                                           is the final text; a cancelled call aborts the run
 *   abort_run       {sessionKey, runId?}                   → chat.abort
 * Schemas are TypeBox (one definition: the advertised JSON Schema and the argument check).
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { GatewayLink } from "./gateway-link.js";

const SessionsList = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) });
const SessionHistory = Type.Object({
  sessionKey: Type.String({ minLength: 1, description: 'Session key, e.g. "demo" or "agent:main:demo"' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
const SendMessage = Type.Object({
  sessionKey: Type.String({ minLength: 1, description: "Session to send to (created when new)" }),
  message: Type.String({ minLength: 1 }),
  timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, description: "Run timeout (default: the gateway's)" })),
});
const AbortRun = Type.Object({
  sessionKey: Type.String({ minLength: 1 }),
  runId: Type.Optional(Type.String({ description: "Only this run (default: every active run of the session)" })),
});

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;
};
type Handler = (args: Record<string, unknown>, extra: Extra) => Promise<CallToolResult>;

interface ToolDef {
  description: string;
  schema: TSchema;
  run: (link: GatewayLink) => Handler;
}

const json = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
});

interface FinalPayload {
  runId: string;
  status: string;
  summary?: string;
  result?: { payloads?: { text?: string; isError?: boolean }[] };
}

const TOOLS: Record<string, ToolDef> = {
  sessions_list: {
    description: "List the gateway's sessions (most recent first): key, label, model, token counts, last run.",
    schema: SessionsList,
    run: (link) => async (args) => json(await link.request("sessions.list", { limit: (args.limit as number) ?? 50 })),
  },
  session_history: {
    description: "Read a session's history: its user and assistant messages, oldest first.",
    schema: SessionHistory,
    run: (link) => async (args) =>
      json(await link.request("chat.history", { sessionKey: args.sessionKey, limit: (args.limit as number) ?? 50 })),
  },
  send_message: {
    description:
      "Send a message to a session's agent and wait for its reply. The reply streams as progress notifications; cancelling the call aborts the run.",
    schema: SendMessage,
    run: (link) => async (args, extra) => {
      const sessionKey = args.sessionKey as string;
      const runId = randomUUID();
      const token = extra._meta?.progressToken;
      let progress = 0;
      // Notifications are chained so they arrive in order; a failed send (client gone) is not the run's failure.
      let chain: Promise<void> = Promise.resolve();
      const off = link.onRun(runId, (e) => {
        const delta = e.stream === "assistant" ? e.data.delta : undefined;
        if (token === undefined || typeof delta !== "string" || delta === "") return;
        progress++;
        const params = { progressToken: token, progress, message: delta };
        chain = chain.then(() => extra.sendNotification({ method: "notifications/progress", params }).catch(() => {}));
      });
      const abort = () => void link.request("chat.abort", { sessionKey, runId }, { timeoutMs: 5000 }).catch(() => {});
      extra.signal.addEventListener("abort", abort, { once: true });
      try {
        const final = (await link.request(
          "agent",
          {
            message: args.message,
            idempotencyKey: runId,
            sessionKey,
            ...(args.timeoutSeconds !== undefined ? { timeout: args.timeoutSeconds } : {}),
          },
          { expectFinal: true, timeoutMs: 0 },
        )) as FinalPayload;
        await chain;
        // The SDK's client handles notifications a microtask after the message while a response is handled at
        // once: progress arriving in the same read as the result would be dropped. A short pause avoids that.
        if (progress > 0) await new Promise((r) => setTimeout(r, 20));
        const text = (final.result?.payloads ?? [])
          .map((p) => p.text ?? "")
          .filter(Boolean)
          .join("\n\n");
        return {
          content: [{ type: "text", text: text || final.summary || `(run ${final.status}, no text)` }],
          structuredContent: { runId, status: final.status },
          ...(final.status === "ok" ? {} : { isError: true }),
        };
      } finally {
        off();
        extra.signal.removeEventListener("abort", abort);
      }
    },
  },
  abort_run: {
    description: "Abort a session's active run (or one run by id).",
    schema: AbortRun,
    run: (link) => async (args) =>
      json(
        await link.request("chat.abort", { sessionKey: args.sessionKey, ...(args.runId ? { runId: args.runId } : {}) }),
      ),
  },
};

const checks = Object.fromEntries(Object.entries(TOOLS).map(([name, t]) => [name, Compile(t.schema)]));

/** An MCP `Server` exposing the gateway behind `link`. Connect it to any server transport. */
export async function createGatewayMcpServer(link: GatewayLink, version = "0.1.0"): Promise<Server> {
  const { Server: McpServer } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const server = new McpServer({ name: "tiller-gateway", version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.entries(TOOLS).map(([name, t]) => ({
      name,
      description: t.description,
      inputSchema: JSON.parse(JSON.stringify(t.schema)) as { type: "object" },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const tool = TOOLS[name];
    if (!tool) return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const check = checks[name]!;
    if (!check.Check(args)) {
      const e = [...check.Errors(args)][0];
      return {
        content: [
          { type: "text", text: `invalid arguments for ${name}: ${e?.instancePath || "(root)"} ${e?.message}` },
        ],
        isError: true,
      };
    }
    try {
      return await tool.run(link)(args, extra as unknown as Extra);
    } catch (err) {
      return {
        content: [{ type: "text", text: `gateway: ${err instanceof Error ? err.message : String(err)}` }],
        isError: true,
      };
    }
  });
  return server;
}
