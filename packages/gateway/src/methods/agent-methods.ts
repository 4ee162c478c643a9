/**
 * `agent` and `agent.wait`. `agent` validates, resolves the session, persists it, answers
 * {runId, status:"accepted", acceptedAt} at once and answers again on the same id when the run ends.
 * The same idempotencyKey never starts a second run: a retry gets the first run's answer(s).
 */
import { GatewayError } from "../protocol/frames.js";
import { validateParams } from "../protocol/params.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { normalizeSessionKey } from "../store/session-keys.js";
import { handleSlashCommand } from "./commands.js";
import type { MethodContext, MethodTable } from "./method-types.js";

export interface AgentParams {
  message: string;
  idempotencyKey: string;
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  model?: string;
  provider?: string;
  thinking?: string;
  timeout?: number;
  extraSystemPrompt?: string;
  label?: string;
  lane?: string;
}

const AGENT_SPEC = {
  message: { type: "string", required: true, nonEmpty: true },
  idempotencyKey: { type: "string", required: true, nonEmpty: true, max: 200 },
  agentId: { type: "string", nonEmpty: true },
  sessionKey: { type: "string" },
  sessionId: { type: "string" },
  model: { type: "string" },
  provider: { type: "string" },
  thinking: { type: "string" },
  timeout: { type: "integer", min: 0 },
  extraSystemPrompt: { type: "string" },
  label: { type: "string", max: 100 },
  lane: { type: "string" },
  deliver: { type: "boolean" },
} as const;

/** The final payload of a run, as the second `agent` response carries it. */
export function finalPayload(runId: string, o: RunOutcome): Record<string, unknown> {
  return {
    runId,
    status: o.status === "ok" ? "ok" : "error",
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
function answerTwice(ctx: MethodContext, runId: string, sessionKey: string, acceptedAt: number): void {
  const { core } = ctx;
  ctx.respond({ runId, status: "accepted", acceptedAt, sessionKey });
  void core.runs.whenDone(runId).then((o) => ctx.respond(finalPayload(runId, o)));
}

async function agent(ctx: MethodContext): Promise<unknown> {
  const { core } = ctx;
  const p = validateParams<AgentParams>("agent", ctx.params, AGENT_SPEC);
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
        status: old.status === "ok" ? "ok" : "error",
        summary: old.summary ?? old.status,
        result: old.result ?? { payloads: [], meta: {} },
        cached: true,
      });
    }
    return undefined;
  }
  const session = resolveSessionKey(core, p);
  const acceptedAt = Date.now();
  ctx.conn.subscribe(session.key);
  const command = await handleSlashCommand(core, session.key, session.agentId, p.message);
  if (command) {
    core.runs.accept(baseRequest(p, session, acceptedAt));
    core.runs.finish(runId, command);
    answerTwice(ctx, runId, session.key, acceptedAt);
    return undefined;
  }
  const req = baseRequest(p, session, acceptedAt);
  if (p.label) core.store.ensure(session.key, session.agentId);
  // Ack before submit: a free lane starts the run inside submit, and its first event must not beat the ack
  // (the reference's order; a client learns the run from the ack).
  ctx.respond({ runId, status: "accepted", acceptedAt, sessionKey: session.key });
  core.submit(req);
  if (p.label) core.store.patch(session.key, { label: p.label });
  void core.runs.whenDone(runId).then((o) => ctx.respond(finalPayload(runId, o)));
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
    timeoutMs: p.timeout ? p.timeout * 1000 : undefined,
    extraSystemPrompt: p.extraSystemPrompt,
    label: p.label,
    lane: p.lane,
    source: "agent",
  };
}

async function agentWait(ctx: MethodContext): Promise<unknown> {
  const p = validateParams<{ runId: string; timeoutMs?: number }>("agent.wait", ctx.params, {
    runId: { type: "string", required: true, nonEmpty: true },
    timeoutMs: { type: "integer", min: 0, max: 24 * 60 * 60 * 1000 },
  });
  return ctx.core.runs.wait(p.runId, p.timeoutMs ?? 30_000);
}

export const agentMethods: MethodTable = {
  agent: { scope: "operator.write", handler: agent },
  "agent.wait": { scope: "operator.read", handler: agentWait },
};
