/**
 * WebChat methods: chat.send (a run on a session, answered "started" then with its end), chat.history
 * (the transcript, paged: see chat-history.ts) and chat.abort.
 */
import type { ChatSendParams, ChatSendResult } from "../protocol/schema/chat.js";
import type { RunRequest } from "../run/run-types.js";
import { acceptMessage } from "./accept-message.js";
import { resolveSessionKey } from "./agent-methods.js";
import { historyPage } from "./chat-history.js";
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
    queueMode: p.queueMode,
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
  const session = resolveSessionKey(ctx.core, { sessionKey: ctx.params.sessionKey });
  ctx.conn.touch(session.key);
  return historyPage(ctx.core.store.get(session.key), session.key, ctx.params);
});

const chatAbort = defineMethod("chat.abort", async (ctx) => {
  const p = ctx.params;
  const session = resolveSessionKey(ctx.core, { sessionKey: p.sessionKey });
  const runIds = await ctx.core.abortRuns(session.key, p.runId || undefined);
  return { ok: true, aborted: runIds.length > 0, runIds };
});

export const chatMethods: MethodDef[] = [defineMethod("chat.send", chatSend), chatHistory, chatAbort];
