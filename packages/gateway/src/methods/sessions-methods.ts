/**
 * sessions.list / describe / reset / delete / compact / patch / subscribe and sessions.messages.(un)subscribe
 * over the SQLite session index.
 */
import { existsSync, renameSync } from "node:fs";
import { GatewayError } from "../protocol/frames.js";
import type { SessionKeyParams, SessionRow } from "../protocol/schema/sessions.js";
import type { GatewayCore } from "../server/gateway-core.js";
import type { SessionQueueState } from "../server/run-placement.js";
import type { SessionEntry } from "../store/session-store.js";
import { resolveSessionKey } from "./agent-methods.js";
import { defineMethod, type MethodDef } from "./method-types.js";

/** A row with the queue state a placement keeps outside this process (a cluster's), when it keeps one. */
function withQueueState(row: SessionRow, states: Map<string, SessionQueueState> | undefined): SessionRow {
  if (!states) return row;
  const q = states.get(row.key);
  return { ...row, activeRunId: q?.activeRunId, queued: q?.queued ?? 0 };
}

/** The model a session runs on: its override, else its agent's model, else the default. */
function sessionModel(core: GatewayCore, s: Pick<SessionEntry, "model" | "agentId">) {
  const agent = core.config.agents.list.find((a) => a.id === s.agentId);
  return core.models.resolve(s.model ?? agent?.model) ?? core.models.resolve(undefined);
}

/** A session row as clients see it (names follow the reference's SessionEntry). */
export function sessionView(core: GatewayCore, s: SessionEntry): SessionRow {
  const active = core.queues.active(s.key);
  const model = sessionModel(core, s)?.model;
  return {
    key: s.key,
    agentId: s.agentId,
    sessionId: s.sessionId,
    sessionFile: s.sessionFile || undefined,
    label: s.label,
    modelProvider: model?.provider,
    model: model?.id,
    modelOverride: s.model,
    thinkingLevel: s.thinking,
    verboseLevel: s.verbose === undefined ? undefined : s.verbose ? "on" : "off",
    queueMode: s.queueMode,
    queueDebounceMs: s.queueDebounceMs,
    queueCap: s.queueCap,
    queueDrop: s.queueDrop,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    // The reference's meaning: tokens in the context now (the last run's prompt + reply) over the window.
    totalTokens: s.contextTokens,
    totalTokensFresh: s.lastRunId !== undefined,
    contextTokens: model?.contextWindow,
    estimatedCostUsd: s.costUsd,
    compactionCount: s.compactionCount,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastRun: s.lastRunId ? { runId: s.lastRunId, status: s.lastRunStatus } : undefined,
    activeRunId: active && !active.finished ? active.runId : undefined,
    queued: core.queues.pendingCount(s.key),
  };
}

/** The session named by `key` (or `sessionKey`), resolved to its full key. */
function keyOf(core: GatewayCore, method: string, p: SessionKeyParams): { key: string; agentId: string } {
  const raw = p.key ?? p.sessionKey;
  if (!raw) {
    throw new GatewayError("INVALID_REQUEST", `invalid ${method} params: key: required non-empty string`, {
      code: "INVALID_PARAMS",
      key: "key",
    });
  }
  const { key, agentId } = resolveSessionKey(core, { sessionKey: raw });
  return { key, agentId };
}

/** The existing session named by the params. `create`: make it when absent (patching before a first message). */
function entryOf(core: GatewayCore, method: string, p: SessionKeyParams, create = false) {
  const { key, agentId } = keyOf(core, method, p);
  const entry = create ? core.store.ensure(key, agentId) : core.store.get(key);
  if (!entry) throw new GatewayError("INVALID_REQUEST", `unknown session "${key}"`, { code: "SESSION_NOT_FOUND", key });
  return { key, entry };
}

const list = defineMethod("sessions.list", async (ctx) => {
  const p = ctx.params;
  const { core } = ctx;
  // A cluster lists every node's sessions from its shared index.
  const shared = await core.placement.listSessions?.(p.limit ?? 100, p.offset ?? 0);
  let rows = shared?.sessions ?? core.store.list(p.limit ?? 100, p.offset ?? 0);
  if (p.agentId) rows = rows.filter((r) => r.agentId === p.agentId);
  if (p.label) rows = rows.filter((r) => r.label === p.label);
  const search = p.search;
  if (search) rows = rows.filter((r) => r.key.includes(search) || r.label?.includes(search));
  const def = core.models.resolve(undefined)?.model;
  const states = await core.placement.queueState?.(rows.map((r) => r.key));
  return {
    ts: Date.now(),
    path: core.store.dir,
    count: shared?.count ?? core.store.count(),
    defaults: {
      modelProvider: def?.provider ?? "",
      model: def?.id ?? "",
      ...(def ? { contextTokens: def.contextWindow } : {}),
    },
    sessions: rows.map((r) => withQueueState(sessionView(core, r), states)),
  };
});

const describe = defineMethod("sessions.describe", async (ctx) => {
  const { key } = keyOf(ctx.core, "sessions.describe", ctx.params);
  const entry = ctx.core.store.get(key);
  const states = entry ? await ctx.core.placement.queueState?.([key]) : undefined;
  return { session: entry ? withQueueState(sessionView(ctx.core, entry), states) : null };
});

const reset = defineMethod("sessions.reset", async (ctx) => {
  const { key } = entryOf(ctx.core, "sessions.reset", ctx.params);
  const entry = await ctx.core.resetSession(key);
  return { ok: true, key, entry: entry ? sessionView(ctx.core, entry) : undefined };
});

const remove = defineMethod("sessions.delete", async (ctx) => {
  const { key, entry } = entryOf(ctx.core, "sessions.delete", ctx.params);
  await ctx.core.deleteSession(key);
  let archived: string | undefined;
  if (ctx.params.deleteTranscript !== false && entry.sessionFile && existsSync(entry.sessionFile)) {
    archived = `${entry.sessionFile}.deleted.${Date.now()}`;
    renameSync(entry.sessionFile, archived);
  }
  return { ok: true, key, deleted: true, archived };
});

const compact = defineMethod("sessions.compact", async (ctx) => {
  const { key, entry } = entryOf(ctx.core, "sessions.compact", ctx.params);
  const active = ctx.core.queues.active(key);
  if (active && !active.finished) {
    throw new GatewayError(
      "UNAVAILABLE",
      `session "${key}" has a run in progress; abort it first`,
      { code: "SESSION_BUSY" },
      true,
      1000,
    );
  }
  return ctx.core.compactSession(entry);
});

const patch = defineMethod("sessions.patch", async (ctx) => {
  const p = ctx.params;
  const { key } = entryOf(ctx.core, "sessions.patch", p, true);
  if (typeof p.model === "string" && p.model && !ctx.core.models.resolve(p.model)) {
    throw new GatewayError("INVALID_REQUEST", `unknown model "${p.model}" (see models.list)`, {
      code: "INVALID_PARAMS",
      key: "model",
    });
  }
  const changes = {
    label: p.label,
    model: p.model === "" ? null : p.model,
    thinking: p.thinkingLevel,
    verbose: p.verboseLevel === undefined ? undefined : p.verboseLevel === null ? null : p.verboseLevel !== "off",
    queueMode: p.queueMode,
    queueDebounceMs: p.queueDebounceMs,
    queueCap: p.queueCap,
    queueDrop: p.queueDrop,
  };
  const entry = ctx.core.store.patch(key, changes);
  if (entry) await ctx.core.placement.sessionPatched?.(key, entry.agentId, changes);
  return { ok: true, key, entry: entry ? sessionView(ctx.core, entry) : undefined };
});

const subscribe = defineMethod("sessions.subscribe", (ctx) => {
  const k = ctx.params.key;
  if (!k) {
    ctx.conn.subscribeAll();
    return { ok: true, subscribed: "*" };
  }
  const { key } = resolveSessionKey(ctx.core, { sessionKey: k });
  ctx.conn.subscribe(key);
  return { ok: true, subscribed: key };
});

const messagesSubscribe = defineMethod("sessions.messages.subscribe", (ctx) => {
  const { key } = resolveSessionKey(ctx.core, { sessionKey: ctx.params.key });
  ctx.conn.subscribe(key);
  return { ok: true, subscribed: key };
});

const messagesUnsubscribe = defineMethod("sessions.messages.unsubscribe", (ctx) => {
  const { key } = resolveSessionKey(ctx.core, { sessionKey: ctx.params.key });
  ctx.conn.unsubscribe(key);
  return { ok: true, unsubscribed: key };
});

export const sessionsMethods: MethodDef[] = [
  list,
  describe,
  reset,
  remove,
  compact,
  patch,
  subscribe,
  messagesSubscribe,
  messagesUnsubscribe,
];
