/** health, status, agents.list, models.list. */
import { openSessionWriterCount } from "@tiller/coding-agent";
import { SERVER_VERSION } from "../protocol/frames.js";
import type { SessionEntry } from "../store/session-store.js";
import { defineMethod, type MethodDef } from "./method-types.js";

/** How many recent sessions `health` lists (per agent and overall). */
const HEALTH_RECENT = 5;

/** A session row as `openclaw health` prints it: `- <key> (<age in minutes>m ago)`. */
function recentSessions(entries: readonly SessionEntry[], now: number) {
  return entries.slice(0, HEALTH_RECENT).map((s) => ({
    key: s.key,
    updatedAt: s.updatedAt,
    age: Math.max(0, now - s.updatedAt),
    sessionId: s.sessionId,
  }));
}

/**
 * The reference's health summary. Each `agents[]` entry carries `agentId`, `isDefault`, `heartbeat` and its own
 * `sessions` (the OpenClaw CLI reads exactly those: without them `openclaw health` printed "Agents: " and
 * "NaNm ago"); `id` stays for Tiller's own clients.
 */
const health = defineMethod("health", (ctx) => {
  const started = Date.now();
  const { core } = ctx;
  const { defaultId, list } = core.config.agents;
  const path = core.store.dir;
  const total = core.store.count();
  // One agent owns every session; with several, one pass over the index splits them (health is a rare call).
  const rows = list.length > 1 ? core.store.list(total) : core.store.list(HEALTH_RECENT);
  const now = Date.now();
  const sessions = { path, count: total, recent: recentSessions(rows, now) };
  const agents = list.map((a) => {
    const mine = list.length > 1 ? rows.filter((s) => s.agentId === a.id) : rows;
    return {
      agentId: a.id,
      id: a.id,
      name: a.name ?? a.id,
      isDefault: a.id === defaultId,
      // Tiller has no heartbeat scheduler: always disabled.
      heartbeat: { enabled: false, every: "disabled", everyMs: null },
      sessions: list.length > 1 ? { path, count: mine.length, recent: recentSessions(mine, now) } : sessions,
    };
  });
  return {
    ok: true,
    ts: now,
    durationMs: Date.now() - started,
    channels: {},
    channelOrder: [],
    channelLabels: {},
    heartbeatSeconds: 0,
    defaultAgentId: defaultId,
    agents,
    sessions,
  };
});

const status = defineMethod("status", (ctx) => {
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
    /** Session files open for writing in this process: back at its idle baseline (0) once every run ended. */
    openSessionWriters: openSessionWriterCount(),
    recoveredInterruptedRuns: core.recovered.length,
    mcp: core.mcp?.status() ?? { servers: [], errors: [] },
  };
});

const agentsList = defineMethod("agents.list", (ctx) => {
  const a = ctx.core.config.agents;
  return {
    defaultId: a.defaultId,
    mainKey: "main",
    scope: "per-sender",
    ...(a.list.length === 1 ? { ownership: "sole" } : {}),
    agents: a.list.map((x) => ({ id: x.id, name: x.name ?? x.id, ...(x.model ? { model: x.model } : {}) })),
  };
});

const modelsList = defineMethod("models.list", (ctx) => {
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
});

export const systemMethods: MethodDef[] = [health, status, agentsList, modelsList];
