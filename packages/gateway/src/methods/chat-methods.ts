/**
 * WebChat methods: chat.send (a run on a session, answered "started" then with its end), chat.history
 * (the transcript's user/assistant messages) and chat.abort.
 */
import { existsSync } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import { SessionManager } from "@tiller/coding-agent";
import type { ChatSendParams, ChatSendResult, HistoryMessage } from "../protocol/schema/chat.js";
import type { RunRequest } from "../run/run-types.js";
import { acceptMessage } from "./accept-message.js";
import { resolveSessionKey } from "./agent-methods.js";
import { defineMethod, type MethodContext, type MethodDef } from "./method-types.js";

async function chatSend(ctx: MethodContext<ChatSendParams, ChatSendResult>): Promise<ChatSendResult | undefined> {
  const { core } = ctx;
  const p = ctx.params;
  const runId = p.idempotencyKey;
  const existing = core.runs.get(runId);
  if (existing && existing.status !== "done") return { runId, status: "in_flight", cached: true };
  if (existing?.outcome || core.runs.ledger(runId)) {
    const o = existing?.outcome;
    return { runId, status: o ? (o.status === "ok" ? "ok" : "error") : "done", cached: true };
  }
  const session = resolveSessionKey(core, { sessionKey: p.sessionKey });
  const req: RunRequest = {
    runId,
    sessionKey: session.key,
    agentId: session.agentId,
    message: p.message,
    acceptedAt: Date.now(),
    thinking: p.thinking,
    timeoutMs: p.timeoutMs,
    source: "chat",
  };
  await acceptMessage(core, ctx.conn, req, {
    ack: () => ctx.respond({ runId, status: "started" }),
    end: (o) =>
      ctx.respond({
        runId,
        status: o.status === "ok" ? "ok" : o.status === "timeout" ? "timeout" : "error",
        summary: o.summary,
      }),
  });
  return undefined;
}

const chatHistory = defineMethod("chat.history", (ctx) => {
  const { core } = ctx;
  const p = ctx.params;
  const session = resolveSessionKey(core, { sessionKey: p.sessionKey });
  ctx.conn.touch(session.key);
  const entry = core.store.get(session.key);
  const limit = p.limit ?? 200;
  let messages: HistoryMessage[] = [];
  if (entry?.sessionFile && existsSync(entry.sessionFile)) {
    const sm = SessionManager.open(entry.sessionFile, { readOnly: true, onWarning: () => {} });
    try {
      const all = sm.buildSessionContext().messages as AgentMessage[];
      messages = all
        .filter((m) => {
          const role = (m as { role?: string }).role;
          return role === "user" || role === "assistant";
        })
        .slice(-limit)
        .map((m) => {
          const x = m as HistoryMessage;
          return { role: x.role, content: x.content, timestamp: x.timestamp, stopReason: x.stopReason };
        });
    } finally {
      sm.close();
    }
  }
  return { sessionKey: session.key, sessionId: entry?.sessionId, messages };
});

const chatAbort = defineMethod("chat.abort", async (ctx) => {
  const p = ctx.params;
  const session = resolveSessionKey(ctx.core, { sessionKey: p.sessionKey });
  const runIds = await ctx.core.abortRuns(session.key, p.runId || undefined);
  return { ok: true, aborted: runIds.length > 0, runIds };
});

export const chatMethods: MethodDef[] = [defineMethod("chat.send", chatSend), chatHistory, chatAbort];
