/**
 * `agent` and `agent.wait`. `agent` validates, resolves the session, persists it, answers
 * {runId, status:"accepted", acceptedAt} at once and answers again on the same id when the run ends.
 * The same idempotencyKey never starts a second run: a retry gets the first run's answer(s).
 */
import { GatewayError } from "../protocol/frames.js";
import type { AgentFinal, AgentParams, AgentResult } from "../protocol/schema/agent.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { normalizeSessionKey } from "../store/session-keys.js";
import { acceptMessage } from "./accept-message.js";
import { defineMethod, type MethodContext, type MethodDef } from "./method-types.js";

/** The final payload of a run, as the second `agent` response carries it. */
export function finalPayload(runId: string, o: RunOutcome): AgentFinal {
  return {
    runId,
    status: o.status === "ok" ? "ok" : o.status === "timeout" ? "timeout" : "error",
    summary: o.summary,
    result: o.result,
    ...(o.status !== "ok" ? { error: { kind: o.status, message: o.error ?? o.summary } } : {}),
  };
}

/** Finds the session key for params carrying sessionKey, sessionId or agentId. */
export function resolveSessionKey(core: GatewayCore, p: { sessionKey?: string; sessionId?: string; agentId?: string }) {
  const agents = core.config.agents;
  if (p.agentId && !agents.list.some((a) => a.id === p.agentId?.toLowerCase())) {
    throw new GatewayError("INVALID_REQUEST", `unknown agent "${p.agentId}" (see agents.list)`, {
      code: "INVALID_PARAMS",
      key: "agentId",
    });
  }
  if (!p.sessionKey && p.sessionId) {
    const found = core.store.getBySessionId(p.sessionId);
    if (found) return { key: found.key, agentId: found.agentId, rest: found.key };
  }
  const parsed = normalizeSessionKey(p.sessionKey, agents.defaultId, p.agentId);
  if (!agents.list.some((a) => a.id === parsed.agentId)) {
    throw new GatewayError("INVALID_REQUEST", `unknown agent "${parsed.agentId}" in session key`, {
      code: "INVALID_PARAMS",
      key: "sessionKey",
    });
  }
  return parsed;
}

/** Sends the accepted ack now and the final answer when the run ends (also for a deduped retry). */
function answerTwice(
  ctx: MethodContext<AgentParams, AgentResult>,
  runId: string,
  sessionKey: string,
  acceptedAt: number,
): void {
  const { core } = ctx;
  ctx.respond({ runId, status: "accepted", acceptedAt, sessionKey });
  void core.runs.whenDone(runId).then((o) => ctx.respond(finalPayload(runId, o)));
}

async function agent(ctx: MethodContext<AgentParams, AgentResult>): Promise<undefined> {
  const { core } = ctx;
  const p = ctx.params;
  const runId = p.idempotencyKey;
  const existing = core.runs.get(runId);
  if (existing) {
    ctx.conn.subscribe(existing.request.sessionKey);
    answerTwice(ctx, runId, existing.request.sessionKey, existing.request.acceptedAt);
    return undefined;
  }
  const old = core.runs.ledger(runId);
  if (old) {
    // Finished long ago (or interrupted by a restart): the recorded answer, never a second run.
    ctx.respond({ runId, status: "accepted", acceptedAt: old.acceptedAt, sessionKey: old.sessionKey, cached: true });
    if (old.status !== "accepted" && old.status !== "running") {
      ctx.respond({
        runId,
        status: old.status === "ok" ? "ok" : old.status === "timeout" ? "timeout" : "error",
        summary: old.summary ?? old.status,
        result: (old.result as AgentFinal["result"] | undefined) ?? {
          payloads: [],
          meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } },
        },
        cached: true,
      });
    }
    return undefined;
  }
  const session = resolveSessionKey(core, p);
  const acceptedAt = Date.now();
  const req = baseRequest(p, session, acceptedAt);
  if (p.label) core.store.ensure(session.key, session.agentId);
  await acceptMessage(core, ctx.conn, req, {
    ack: () => ctx.respond({ runId, status: "accepted", acceptedAt, sessionKey: session.key }),
    end: (o) => ctx.respond(finalPayload(runId, o)),
    afterSubmit: () => {
      if (p.label) {
        core.store.patch(session.key, { label: p.label });
        void core.placement.sessionPatched?.(session.key, session.agentId, { label: p.label }).catch(() => {});
      }
    },
  });
  return undefined;
}

function baseRequest(p: AgentParams, session: { key: string; agentId: string }, acceptedAt: number): RunRequest {
  return {
    runId: p.idempotencyKey,
    sessionKey: session.key,
    agentId: session.agentId,
    message: p.message,
    acceptedAt,
    model: p.model || undefined,
    provider: p.provider || undefined,
    thinking: p.thinking || undefined,
    queueMode: p.queueMode,
    timeoutMs: p.timeout ? p.timeout * 1000 : undefined,
    extraSystemPrompt: p.extraSystemPrompt,
    label: p.label,
    lane: p.lane,
    source: "agent",
  };
}

export const agentMethods: MethodDef[] = [
  defineMethod("agent", agent),
  defineMethod("agent.wait", (ctx) => ctx.core.waitRun(ctx.params.runId, ctx.params.timeoutMs ?? 30_000)),
];
