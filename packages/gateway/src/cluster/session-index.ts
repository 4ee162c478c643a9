/**
 * The session index in PostgreSQL: the same rows the single-node SQLite index holds (key → session id,
 * transcript, model, overrides, token counters, last run), readable and writable from every node. Counters are
 * added in SQL (`x = x + $n`), so usage reported by several nodes at once all counts. The cluster's `queued`
 * run state reads as the single-node word `accepted`. Created / updated stamps are the database's clock, so
 * `sessions.list`'s newest-first order does not depend on which node touched a session last.
 */
import { randomUUID } from "node:crypto";
import type { QueueDropPolicy, QueueMode } from "../config/config-types.js";
import type { RunStatus, SessionEntry, SessionPatch } from "../store/session-store.js";
import type { ClusterPool } from "./pool.js";
import { DB_NOW_MS } from "./run-rows.js";

const PATCHABLE: Record<keyof SessionPatch, string> = {
  label: "label",
  model: "model",
  thinking: "thinking",
  verbose: "verbose_mode",
  queueMode: "queue_mode",
  queueDebounceMs: "queue_debounce_ms",
  queueCap: "queue_cap",
  queueDrop: "queue_drop",
};

interface SessionRowDb {
  key: string;
  agent_id: string;
  session_id: string;
  session_file: string;
  label: string | null;
  model: string | null;
  thinking: string | null;
  verbose_mode: boolean | null;
  queue_mode: string | null;
  queue_debounce_ms: number | null;
  queue_cap: number | null;
  queue_drop: string | null;
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  context_tokens: string;
  compaction_count: number;
  created_at: string;
  updated_at: string;
  last_run_id: string | null;
  last_run_status: string | null;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function toEntry(r: SessionRowDb): SessionEntry {
  return {
    key: r.key,
    agentId: r.agent_id,
    sessionId: r.session_id,
    sessionFile: r.session_file,
    label: opt(r.label),
    model: opt(r.model),
    thinking: opt(r.thinking),
    verbose: opt(r.verbose_mode),
    queueMode: opt(r.queue_mode) as QueueMode | undefined,
    queueDebounceMs: opt(r.queue_debounce_ms),
    queueCap: opt(r.queue_cap),
    queueDrop: opt(r.queue_drop) as QueueDropPolicy | undefined,
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    totalTokens: Number(r.total_tokens),
    contextTokens: Number(r.context_tokens),
    compactionCount: r.compaction_count,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    lastRunId: opt(r.last_run_id),
    lastRunStatus: (r.last_run_status === "queued" ? "accepted" : opt(r.last_run_status)) as RunStatus | undefined,
  };
}

export class ClusterSessionIndex {
  constructor(private readonly pool: ClusterPool) {}

  async get(key: string): Promise<SessionEntry | undefined> {
    const { rows } = await this.pool.query<SessionRowDb>("SELECT * FROM cluster_sessions WHERE key = $1", [key]);
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  /** The entry for `key`, created (new session id) when absent; two nodes creating it at once get one row. */
  async ensure(key: string, agentId: string): Promise<SessionEntry> {
    await this.pool.query(
      `INSERT INTO cluster_sessions (key, agent_id, session_id, created_at, updated_at)
       VALUES ($1, $2, $3, ${DB_NOW_MS}, ${DB_NOW_MS}) ON CONFLICT (key) DO NOTHING`,
      [key, agentId, randomUUID()],
    );
    return (await this.get(key)) as SessionEntry;
  }

  async count(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>("SELECT count(*) AS n FROM cluster_sessions");
    return Number(rows[0]?.n ?? 0);
  }

  async list(limit = 100, offset = 0): Promise<SessionEntry[]> {
    const { rows } = await this.pool.query<SessionRowDb>(
      "SELECT * FROM cluster_sessions ORDER BY updated_at DESC, key LIMIT $1 OFFSET $2",
      [limit, offset],
    );
    return rows.map(toEntry);
  }

  /** Applies a patch; `null` clears a field. Returns the updated entry (undefined for an unknown key). */
  async patch(
    key: string,
    patch: { [K in keyof SessionPatch]?: SessionPatch[K] | null },
  ): Promise<SessionEntry | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [key];
    for (const [k, v] of Object.entries(patch)) {
      const col = PATCHABLE[k as keyof SessionPatch];
      if (!col || v === undefined) continue;
      values.push(v);
      sets.push(`${col} = $${values.length}`);
    }
    if (sets.length === 0) return this.get(key);
    const { rows } = await this.pool.query<SessionRowDb>(
      `UPDATE cluster_sessions SET ${sets.join(", ")}, updated_at = ${DB_NOW_MS} WHERE key = $1 RETURNING *`,
      values,
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async setSessionFile(key: string, file: string): Promise<void> {
    await this.pool.query("UPDATE cluster_sessions SET session_file = $2 WHERE key = $1", [key, file]);
  }

  async addUsage(key: string, u: { input: number; output: number; total: number; context: number }): Promise<void> {
    await this.pool.query(
      `UPDATE cluster_sessions SET input_tokens = input_tokens + $2, output_tokens = output_tokens + $3,
         total_tokens = total_tokens + $4, context_tokens = $5, updated_at = ${DB_NOW_MS} WHERE key = $1`,
      [key, u.input, u.output, u.total, u.context],
    );
  }

  /** New session id for `key` (the old transcript stays); `sessionId` when the caller already chose one. */
  async reset(key: string, sessionId: string = randomUUID()): Promise<SessionEntry | undefined> {
    const { rows } = await this.pool.query<SessionRowDb>(
      `UPDATE cluster_sessions SET session_id = $2, session_file = '', input_tokens = 0, output_tokens = 0,
         total_tokens = 0, context_tokens = 0, compaction_count = 0, updated_at = ${DB_NOW_MS} WHERE key = $1 RETURNING *`,
      [key, sessionId],
    );
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  /** Removes the session and its finished runs; refused while a run of it is queued or running. */
  async delete(key: string): Promise<boolean> {
    return this.pool.tx(async (db) => {
      const busy = await db.query(
        "SELECT 1 FROM cluster_runs WHERE session_key = $1 AND status IN ('queued', 'running') LIMIT 1",
        [key],
      );
      if ((busy.rowCount ?? 0) > 0) throw new Error(`session ${key} has a queued or running run; abort it first`);
      await db.query("DELETE FROM cluster_runs WHERE session_key = $1", [key]);
      await db.query("DELETE FROM cluster_run_events WHERE session_key = $1", [key]);
      const { rowCount } = await db.query("DELETE FROM cluster_sessions WHERE key = $1", [key]);
      return (rowCount ?? 0) > 0;
    });
  }
}
