/** health, status, agents.list, models.list. */
import { SERVER_VERSION } from "../protocol/frames.js";
import type { MethodContext, MethodTable } from "./method-types.js";

function health(ctx: MethodContext): unknown {
  const started = Date.now();
  const { core } = ctx;
  const recent = core.store.list(5).map((s) => ({ key: s.key, updatedAt: s.updatedAt, sessionId: s.sessionId }));
  return {
    ok: true,
    ts: Date.now(),
    durationMs: Date.now() - started,
    channels: {},
    channelOrder: [],
    channelLabels: {},
    heartbeatSeconds: 0,
    defaultAgentId: core.config.agents.defaultId,
    agents: core.config.agents.list.map((a) => ({ id: a.id, name: a.name ?? a.id })),
    sessions: { path: core.store.dir, count: core.store.count(), recent },
  };
}

function status(ctx: MethodContext): unknown {
  const { core } = ctx;
  return {
    ok: true,
    version: SERVER_VERSION,
    uptimeMs: Date.now() - core.startedAt,
    defaultModel: core.models.defaultRef,
    offline: core.models.isOffline,
    activeRuns: core.runs.active().map((r) => ({
      runId: r.request.runId,
      sessionKey: r.request.sessionKey,
      status: r.status,
      acceptedAt: r.request.acceptedAt,
      startedAt: r.startedAt,
    })),
    lanes: core.lanes.busy(),
    sessions: core.store.count(),
    recoveredInterruptedRuns: core.recovered.length,
  };
}

function agentsList(ctx: MethodContext): unknown {
  const a = ctx.core.config.agents;
  return {
    defaultId: a.defaultId,
    mainKey: "main",
    scope: "per-sender",
    ...(a.list.length === 1 ? { ownership: "sole" } : {}),
    agents: a.list.map((x) => ({ id: x.id, name: x.name ?? x.id, ...(x.model ? { model: x.model } : {}) })),
  };
}

function modelsList(ctx: MethodContext): unknown {
  const { models } = ctx.core;
  return {
    defaultModel: models.defaultRef,
    models: models.list().map((m) => ({
      id: m.id,
      name: m.name,
      provider: m.provider,
      ref: `${m.provider}/${m.id}`,
      api: m.api,
      contextWindow: m.contextWindow,
      maxTokens: m.maxTokens,
      reasoning: m.reasoning,
      input: m.input,
    })),
  };
}

export const systemMethods: MethodTable = {
  health: { scope: "operator.read", handler: health },
  status: { scope: "operator.read", handler: status },
  "agents.list": { scope: "operator.read", handler: agentsList },
  "models.list": { scope: "operator.read", handler: modelsList },
};
