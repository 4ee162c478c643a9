/** sessions.list / reset / delete / compact / patch / subscribe over the SQLite session index. */
import { existsSync, renameSync } from "node:fs";
import { DROP_POLICIES, QUEUE_MODES, THINKING_SETTINGS } from "../config/config-types.js";
import { GatewayError } from "../protocol/frames.js";
import { validateParams } from "../protocol/params.js";
import type { GatewayCore } from "../server/gateway-core.js";
import type { SessionEntry } from "../store/session-store.js";
import { resolveSessionKey } from "./agent-methods.js";
import type { MethodContext, MethodTable } from "./method-types.js";

/** A session row as clients see it (names follow the reference's SessionEntry). */
export function sessionView(core: GatewayCore, s: SessionEntry): Record<string, unknown> {
  const active = core.queues.active(s.key);
  return {
    key: s.key,
    agentId: s.agentId,
    sessionId: s.sessionId,
    sessionFile: s.sessionFile || undefined,
    label: s.label,
    model: s.model,
    thinkingLevel: s.thinking,
    verboseLevel: s.verbose === undefined ? undefined : s.verbose ? "on" : "off",
    queueMode: s.queueMode,
    queueDebounceMs: s.queueDebounceMs,
    queueCap: s.queueCap,
    queueDrop: s.queueDrop,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    totalTokens: s.totalTokens,
    contextTokens: s.contextTokens,
    compactionCount: s.compactionCount,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lastRun: s.lastRunId ? { runId: s.lastRunId, status: s.lastRunStatus } : undefined,
    activeRunId: active && !active.finished ? active.runId : undefined,
    queued: core.queues.pendingCount(s.key),
  };
}

/** The session named by `key` (or `sessionKey`). `create`: make it when absent (patching before a first message). */
function keyParam(ctx: MethodContext, method: string, create = false): { key: string; entry: SessionEntry } {
  const p = validateParams<{ key?: string; sessionKey?: string }>(method, ctx.params, {
    key: { type: "string", nonEmpty: true },
    sessionKey: { type: "string", nonEmpty: true },
  });
  const raw = p.key ?? p.sessionKey;
  if (!raw) {
    throw new GatewayError("INVALID_REQUEST", `invalid ${method} params: key: required non-empty string`, {
      code: "INVALID_PARAMS",
      key: "key",
    });
  }
  const { key, agentId } = resolveSessionKey(ctx.core, { sessionKey: raw });
  const entry = create ? ctx.core.store.ensure(key, agentId) : ctx.core.store.get(key);
  if (!entry) throw new GatewayError("INVALID_REQUEST", `unknown session "${key}"`, { code: "SESSION_NOT_FOUND", key });
  return { key, entry };
}

function list(ctx: MethodContext): unknown {
  const p = validateParams<{ limit?: number; offset?: number; agentId?: string; label?: string; search?: string }>(
    "sessions.list",
    ctx.params,
    {
      limit: { type: "integer", min: 1, max: 10_000 },
      offset: { type: "integer", min: 0 },
      agentId: { type: "string" },
      label: { type: "string" },
      search: { type: "string" },
    },
  );
  const { core } = ctx;
  let rows = core.store.list(p.limit ?? 100, p.offset ?? 0);
  if (p.agentId) rows = rows.filter((r) => r.agentId === p.agentId);
  if (p.label) rows = rows.filter((r) => r.label === p.label);
  if (p.search) rows = rows.filter((r) => r.key.includes(p.search as string) || r.label?.includes(p.search as string));
  return {
    ts: Date.now(),
    path: core.store.dir,
    count: core.store.count(),
    sessions: rows.map((r) => sessionView(core, r)),
  };
}

function reset(ctx: MethodContext): unknown {
  const { key } = keyParam(ctx, "sessions.reset");
  ctx.core.queues.abort(key);
  const entry = ctx.core.store.reset(key);
  return { ok: true, key, entry: entry ? sessionView(ctx.core, entry) : undefined };
}

function remove(ctx: MethodContext): unknown {
  const { key, entry } = keyParam(ctx, "sessions.delete");
  const p = ctx.params as { deleteTranscript?: boolean };
  ctx.core.queues.abort(key);
  ctx.core.store.delete(key);
  let archived: string | undefined;
  if (p.deleteTranscript !== false && entry.sessionFile && existsSync(entry.sessionFile)) {
    archived = `${entry.sessionFile}.deleted.${Date.now()}`;
    renameSync(entry.sessionFile, archived);
  }
  return { ok: true, key, deleted: true, archived };
}

async function compact(ctx: MethodContext): Promise<unknown> {
  const { key, entry } = keyParam(ctx, "sessions.compact");
  const active = ctx.core.queues.active(key);
  if (active && !active.finished) {
    throw new GatewayError(
      "UNAVAILABLE",
      `session "${key}" has a run in progress; abort it first`,
      {
        code: "SESSION_BUSY",
      },
      true,
      1000,
    );
  }
  return ctx.core.compactSession(entry);
}

function patch(ctx: MethodContext): unknown {
  const { key } = keyParam(ctx, "sessions.patch", true);
  const p = validateParams<{
    label?: string | null;
    model?: string | null;
    thinkingLevel?: string | null;
    verboseLevel?: string | null;
    queueMode?: string | null;
    queueDebounceMs?: number | null;
    queueCap?: number | null;
    queueDrop?: string | null;
  }>("sessions.patch", ctx.params, {
    label: { type: "string|null", max: 100 },
    model: { type: "string|null" },
    thinkingLevel: { type: "string|null", oneOf: THINKING_SETTINGS },
    verboseLevel: { type: "string|null", oneOf: ["on", "off", "full"] },
    queueMode: { type: "string|null", oneOf: QUEUE_MODES },
    queueDrop: { type: "string|null", oneOf: DROP_POLICIES },
  });
  const raw = ctx.params as Record<string, unknown>;
  for (const k of ["queueDebounceMs", "queueCap"]) {
    const v = raw[k];
    if (
      v !== undefined &&
      v !== null &&
      (typeof v !== "number" || !Number.isInteger(v) || v < (k === "queueCap" ? 1 : 0))
    ) {
      throw new GatewayError("INVALID_REQUEST", `invalid sessions.patch params: ${k}: expected an integer or null`, {
        code: "INVALID_PARAMS",
        key: k,
      });
    }
  }
  if (typeof p.model === "string" && p.model && !ctx.core.models.resolve(p.model)) {
    throw new GatewayError("INVALID_REQUEST", `unknown model "${p.model}" (see models.list)`, {
      code: "INVALID_PARAMS",
      key: "model",
    });
  }
  const entry = ctx.core.store.patch(key, {
    label: p.label,
    model: p.model === "" ? null : p.model,
    thinking: p.thinkingLevel,
    verbose: p.verboseLevel === undefined ? undefined : p.verboseLevel === null ? null : p.verboseLevel !== "off",
    queueMode: p.queueMode as SessionEntry["queueMode"] | null | undefined,
    queueDebounceMs: raw.queueDebounceMs as number | null | undefined,
    queueCap: raw.queueCap as number | null | undefined,
    queueDrop: p.queueDrop as SessionEntry["queueDrop"] | null | undefined,
  });
  return { ok: true, key, entry: entry ? sessionView(ctx.core, entry) : undefined };
}

function subscribe(ctx: MethodContext): unknown {
  const p = validateParams<{ key?: string }>("sessions.subscribe", ctx.params, { key: { type: "string" } });
  if (!p.key) {
    ctx.conn.subscribeAll();
    return { ok: true, subscribed: "*" };
  }
  const { key } = resolveSessionKey(ctx.core, { sessionKey: p.key });
  ctx.conn.subscribe(key);
  return { ok: true, subscribed: key };
}

export const sessionsMethods: MethodTable = {
  "sessions.list": { scope: "operator.read", handler: list },
  "sessions.reset": { scope: "operator.write", handler: reset },
  "sessions.delete": { scope: "operator.admin", handler: remove },
  "sessions.compact": { scope: "operator.write", handler: compact },
  "sessions.patch": { scope: "operator.write", handler: patch },
  "sessions.subscribe": { scope: "operator.read", handler: subscribe },
};
