/**
 * The gateway's session index and run ledger in SQLite (better-sqlite3, WAL), beside the JSONL
 * transcripts: $TILLER_HOME/sessions/index.sqlite and $TILLER_HOME/sessions/gateway/<agentId>/*.jsonl.
 * The index maps a session key to its session id, model, overrides and token counters; the ledger keeps
 * every accepted run so `agent.wait` and `sessions.list` can answer after a restart. Statements are
 * prepared once. The writes of a run's course (started, usage, transcript path, ended) of one event-loop turn
 * are committed together in one transaction at the turn's end (`WriteBatch`); every other write, and every read,
 * first commits what is queued, so this process always reads what it wrote, in order. WAL checkpoints (the
 * index's only fsyncs) run on a worker thread (`WalCheckpointer`), never in a commit on the event loop.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { QueueDropPolicy, QueueMode } from "../config/config-types.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import { WriteBatch } from "./write-batch.js";

/** One row of the session index. `sessionFile` is "" until the first turn writes the transcript. */
export interface SessionEntry {
  key: string;
  agentId: string;
  sessionId: string;
  sessionFile: string;
  label?: string;
  /** "provider/id" override; undefined: the agent default. */
  model?: string;
  thinking?: string;
  verbose?: boolean;
  queueMode?: QueueMode;
  queueDebounceMs?: number;
  queueCap?: number;
  queueDrop?: QueueDropPolicy;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  contextTokens: number;
  /**
   * Dollars of every run so far, from the models' pricing (0 when they have none). Optional: indexes that do
   * not keep it (the cluster's) leave it out.
   */
  costUsd?: number;
  compactionCount: number;
  createdAt: number;
  updatedAt: number;
  /** Status of the session's latest run, for listings. */
  lastRunId?: string;
  lastRunStatus?: RunStatus;
}

export type RunStatus = "accepted" | "running" | "ok" | "error" | "timeout" | "aborted" | "interrupted";

/** One row of the run ledger. */
export interface RunRow {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  acceptedAt: number;
  startedAt?: number;
  endedAt?: number;
  error?: string;
  summary?: string;
  /** JSON of the final `result` ({payloads, meta}). */
  result?: unknown;
}

export type SessionPatch = Partial<
  Pick<
    SessionEntry,
    "label" | "model" | "thinking" | "verbose" | "queueMode" | "queueDebounceMs" | "queueCap" | "queueDrop"
  >
>;

const PATCHABLE: Record<keyof SessionPatch, string> = {
  label: "label",
  model: "model",
  thinking: "thinking",
  verbose: "verbose",
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
  verbose: number | null;
  queue_mode: string | null;
  queue_debounce_ms: number | null;
  queue_cap: number | null;
  queue_drop: string | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  context_tokens: number;
  cost_usd: number;
  compaction_count: number;
  created_at: number;
  updated_at: number;
  last_run_id: string | null;
  last_run_status: string | null;
}

interface RunRowDb {
  run_id: string;
  session_key: string;
  status: string;
  accepted_at: number;
  started_at: number | null;
  ended_at: number | null;
  error: string | null;
  summary: string | null;
  result: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, session_id TEXT NOT NULL, session_file TEXT NOT NULL,
  label TEXT, model TEXT, thinking TEXT, verbose INTEGER, queue_mode TEXT, queue_debounce_ms INTEGER,
  queue_cap INTEGER, queue_drop TEXT,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens INTEGER NOT NULL DEFAULT 0, context_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  compaction_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_run_id TEXT, last_run_status TEXT
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_session_id ON sessions(session_id);
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, status TEXT NOT NULL, accepted_at INTEGER NOT NULL,
  started_at INTEGER, ended_at INTEGER, error TEXT, summary TEXT, result TEXT
);
CREATE INDEX IF NOT EXISTS runs_session ON runs(session_key, accepted_at DESC);
`;

export class SessionStore {
  readonly dir: string;
  private readonly db: Database.Database;
  private readonly stmts;
  /** The run-course writes of the current event-loop turn. */
  private readonly batch: WriteBatch;
  /** WAL checkpoints on a worker thread, not in a commit on the event loop. */
  private readonly checkpointer: WalCheckpointer;

  constructor(home: string) {
    this.dir = join(home, "sessions");
    mkdirSync(this.dir, { recursive: true });
    this.db = new Database(join(this.dir, "index.sqlite"));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(SCHEMA);
    // An index written before cost was kept gains the column (its old runs count as $0).
    const cols = this.db.prepare<[], { name: string }>("PRAGMA table_info(sessions)").all();
    if (!cols.some((c) => c.name === "cost_usd")) {
      this.db.exec("ALTER TABLE sessions ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0");
    }
    const db = this.db;
    this.stmts = {
      get: db.prepare<[string], SessionRowDb>("SELECT * FROM sessions WHERE key = ?"),
      bySessionId: db.prepare<[string], SessionRowDb>("SELECT * FROM sessions WHERE session_id = ? LIMIT 1"),
      insert: db.prepare(
        `INSERT INTO sessions (key, agent_id, session_id, session_file, created_at, updated_at)
         VALUES (@key, @agentId, @sessionId, @sessionFile, @now, @now)`,
      ),
      setFile: db.prepare("UPDATE sessions SET session_file = ? WHERE key = ?"),
      touch: db.prepare("UPDATE sessions SET updated_at = ? WHERE key = ?"),
      list: db.prepare<[number, number], SessionRowDb>(
        "SELECT * FROM sessions ORDER BY updated_at DESC LIMIT ? OFFSET ?",
      ),
      count: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM sessions"),
      remove: db.prepare("DELETE FROM sessions WHERE key = ?"),
      reset: db.prepare(
        `UPDATE sessions SET session_id = ?, session_file = ?, input_tokens = 0, output_tokens = 0, total_tokens = 0,
         context_tokens = 0, cost_usd = 0, compaction_count = 0, updated_at = ? WHERE key = ?`,
      ),
      usage: db.prepare(
        `UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
         total_tokens = total_tokens + ?, context_tokens = ?, cost_usd = cost_usd + ?, updated_at = ? WHERE key = ?`,
      ),
      compacted: db.prepare(
        "UPDATE sessions SET compaction_count = compaction_count + 1, updated_at = ? WHERE key = ?",
      ),
      lastRun: db.prepare("UPDATE sessions SET last_run_id = ?, last_run_status = ?, updated_at = ? WHERE key = ?"),
      runInsert: db.prepare(
        "INSERT OR IGNORE INTO runs (run_id, session_key, status, accepted_at) VALUES (?, ?, 'accepted', ?)",
      ),
      runStart: db.prepare("UPDATE runs SET status = 'running', started_at = ? WHERE run_id = ?"),
      runEnd: db.prepare(
        "UPDATE runs SET status = ?, ended_at = ?, error = ?, summary = ?, result = ?, started_at = COALESCE(started_at, ?) WHERE run_id = ?",
      ),
      runReopen: db.prepare(
        "UPDATE runs SET status = 'accepted', ended_at = NULL, error = NULL, summary = NULL, result = NULL WHERE run_id = ?",
      ),
      runGet: db.prepare<[string], RunRowDb>("SELECT * FROM runs WHERE run_id = ?"),
      runsUnfinished: db.prepare<[], RunRowDb>("SELECT * FROM runs WHERE status IN ('accepted', 'running')"),
      runsDeleteForSession: db.prepare("DELETE FROM runs WHERE session_key = ?"),
    };
    this.checkpointer = new WalCheckpointer(db, join(this.dir, "index.sqlite"), (err) => {
      process.stderr.write(`tiller gateway: session index checkpoints back on the event loop: ${String(err)}\n`);
    });
    this.batch = new WriteBatch(
      db,
      (err) => process.stderr.write(`tiller gateway: session index write failed: ${String(err)}\n`),
      () => this.checkpointer.committed(),
    );
  }

  /** Commits the queued run-course writes now (reads and other writes do it first on their own). */
  flush(): void {
    this.batch.flush();
  }

  get(key: string): SessionEntry | undefined {
    this.batch.flush();
    const row = this.stmts.get.get(key);
    return row ? toEntry(row) : undefined;
  }

  /** The entry whose current session id is `sessionId`. */
  getBySessionId(sessionId: string): SessionEntry | undefined {
    this.batch.flush();
    const row = this.stmts.bySessionId.get(sessionId);
    return row ? toEntry(row) : undefined;
  }

  /** The entry for `key`, created (new session id and transcript path) when absent. */
  ensure(key: string, agentId: string, now = Date.now()): SessionEntry {
    const existing = this.get(key);
    if (existing) return existing;
    const sessionId = randomUUID();
    this.stmts.insert.run({ key, agentId, sessionId, sessionFile: "", now });
    return this.get(key) as SessionEntry;
  }

  /**
   * Makes `key` use `sessionId`, decided elsewhere (a cluster's shared session index): created when absent; an
   * entry with another id takes this one with a fresh transcript path, like `reset`.
   */
  adopt(key: string, agentId: string, sessionId: string, now = Date.now()): SessionEntry {
    this.batch.flush();
    const existing = this.get(key);
    if (existing?.sessionId === sessionId) return existing;
    if (existing) this.stmts.reset.run(sessionId, "", now, key);
    else this.stmts.insert.run({ key, agentId, sessionId, sessionFile: "", now });
    return this.get(key) as SessionEntry;
  }

  /** Directory of an agent's gateway transcripts (the SessionManager names the files). */
  transcriptDir(agentId: string): string {
    return join(this.dir, "gateway", agentId);
  }

  /** Records where the session's transcript lives once the engine has created it. */
  setSessionFile(key: string, file: string): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    this.batch.add(() => this.stmts.setFile.run(file, key));
  }

  list(limit = 100, offset = 0): SessionEntry[] {
    this.batch.flush();
    return this.stmts.list.all(limit, offset).map(toEntry);
  }

  count(): number {
    this.batch.flush();
    return this.stmts.count.get()?.n ?? 0;
  }

  /** Applies a patch; `null` clears a field. Returns the updated entry (undefined for an unknown key). */
  patch(key: string, patch: { [K in keyof SessionPatch]?: SessionPatch[K] | null }): SessionEntry | undefined {
    this.batch.flush();
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [k, v] of Object.entries(patch)) {
      const col = PATCHABLE[k as keyof SessionPatch];
      if (!col || v === undefined) continue;
      sets.push(`${col} = ?`);
      values.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
    }
    if (sets.length > 0) {
      this.db
        .prepare(`UPDATE sessions SET ${sets.join(", ")}, updated_at = ? WHERE key = ?`)
        .run(...values, Date.now(), key);
    }
    return this.get(key);
  }

  /** New session id and transcript for `key` (the old transcript stays on disk). */
  reset(key: string): SessionEntry | undefined {
    this.batch.flush();
    const entry = this.get(key);
    if (!entry) return undefined;
    const sessionId = randomUUID();
    this.stmts.reset.run(sessionId, "", Date.now(), key);
    return this.get(key);
  }

  delete(key: string): boolean {
    this.batch.flush();
    const n = this.stmts.remove.run(key).changes;
    this.stmts.runsDeleteForSession.run(key);
    return n > 0;
  }

  touch(key: string): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    const now = Date.now();
    this.batch.add(() => this.stmts.touch.run(now, key));
  }

  addUsage(key: string, u: { input: number; output: number; total: number; context: number; costUsd?: number }): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    const now = Date.now();
    this.batch.add(() => this.stmts.usage.run(u.input, u.output, u.total, u.context, u.costUsd ?? 0, now, key));
  }

  markCompacted(key: string): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    const now = Date.now();
    this.batch.add(() => this.stmts.compacted.run(now, key));
  }

  runAccepted(runId: string, sessionKey: string, acceptedAt: number): void {
    this.batch.flush();
    this.db.transaction(() => {
      this.stmts.runInsert.run(runId, sessionKey, acceptedAt);
      this.stmts.lastRun.run(runId, "accepted", acceptedAt, sessionKey);
    })();
    this.checkpointer.committed();
  }

  runStarted(runId: string, sessionKey: string, startedAt: number): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    this.batch.add(() => {
      this.stmts.runStart.run(startedAt, runId);
      this.stmts.lastRun.run(runId, "running", startedAt, sessionKey);
    });
  }

  /** The run's end in the ledger and the session's last-run status, committed with the turn's other writes. */
  runEnded(row: RunRow): void {
    if (!this.db.open) return; // late writes of runs aborted by shutdown
    this.batch.add(() => this.writeRunEnd(row));
  }

  private writeRunEnd(row: RunRow): void {
    const ended = row.endedAt ?? Date.now();
    this.stmts.runEnd.run(
      row.status,
      ended,
      row.error ?? null,
      row.summary ?? null,
      row.result === undefined ? null : JSON.stringify(row.result),
      row.startedAt ?? null,
      row.runId,
    );
    this.stmts.lastRun.run(row.runId, row.status, ended, row.sessionKey);
  }

  /** A run marked interrupted goes on (its approval was decided after a restart): the ledger waits for its end. */
  runReopened(runId: string, sessionKey: string, at: number): void {
    this.batch.flush();
    this.db.transaction(() => {
      this.stmts.runReopen.run(runId);
      this.stmts.lastRun.run(runId, "accepted", at, sessionKey);
    })();
  }

  getRun(runId: string): RunRow | undefined {
    this.batch.flush();
    const r = this.stmts.runGet.get(runId);
    return r ? toRun(r) : undefined;
  }

  /**
   * Start-up recovery: every run that was accepted or running when the previous process died is marked
   * `interrupted`. Returns those runs.
   */
  markInterrupted(now = Date.now()): RunRow[] {
    this.batch.flush();
    const rows = this.stmts.runsUnfinished.all().map(toRun);
    this.db.transaction(() => {
      for (const r of rows) {
        this.writeRunEnd({
          ...r,
          status: "interrupted",
          endedAt: now,
          error: "gateway stopped before the run finished",
          summary: "interrupted",
        });
      }
    })();
    return rows;
  }

  /** Commits what is queued, then closes the index. */
  close(): void {
    if (!this.db.open) return;
    this.batch.flush();
    this.checkpointer.close();
    this.db.close();
  }
}

function opt<T>(v: T | null): T | undefined {
  return v === null ? undefined : v;
}

function toEntry(r: SessionRowDb): SessionEntry {
  return {
    key: r.key,
    agentId: r.agent_id,
    sessionId: r.session_id,
    sessionFile: r.session_file,
    label: opt(r.label),
    model: opt(r.model),
    thinking: opt(r.thinking),
    verbose: r.verbose === null ? undefined : r.verbose === 1,
    queueMode: opt(r.queue_mode) as QueueMode | undefined,
    queueDebounceMs: opt(r.queue_debounce_ms),
    queueCap: opt(r.queue_cap),
    queueDrop: opt(r.queue_drop) as QueueDropPolicy | undefined,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    totalTokens: r.total_tokens,
    contextTokens: r.context_tokens,
    costUsd: r.cost_usd,
    compactionCount: r.compaction_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastRunId: opt(r.last_run_id),
    lastRunStatus: opt(r.last_run_status) as RunStatus | undefined,
  };
}

function toRun(r: RunRowDb): RunRow {
  return {
    runId: r.run_id,
    sessionKey: r.session_key,
    status: r.status as RunStatus,
    acceptedAt: r.accepted_at,
    startedAt: opt(r.started_at),
    endedAt: opt(r.ended_at),
    error: opt(r.error),
    summary: opt(r.summary),
    result: r.result ? (JSON.parse(r.result) as unknown) : undefined,
  };
}
