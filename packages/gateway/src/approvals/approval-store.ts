/**
 * Pending approvals in SQLite ($TILLER_HOME/sessions/approvals.sqlite, WAL), beside the session index: a request
 * is inserted before it is announced, so a gateway that dies while a run waits finds it again on start-up with
 * everything needed to resume the run. Statements are prepared once; each write is one short transaction.
 * Resolved rows are kept a day for `get` and then pruned at start-up.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ToolResultMessage } from "@tiller/ai";
import Database from "better-sqlite3";
import { type ApprovalRow, approvalFromRow, type ColumnDecoders } from "./approval-row.js";
import type { ApprovalEnd, ApprovalStatus, ApprovalStore, StoredApproval } from "./types.js";

export type { ApprovalEnd } from "./types.js";

const KEEP_RESOLVED_MS = 24 * 60 * 60_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS approvals (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, session_key TEXT NOT NULL, agent_id TEXT NOT NULL, run_id TEXT NOT NULL,
  status TEXT NOT NULL, approval TEXT NOT NULL, request TEXT NOT NULL, results TEXT NOT NULL,
  created_at INTEGER NOT NULL, expires_at INTEGER, decision TEXT, cause TEXT, resolved_by TEXT, reason TEXT,
  resolved_at INTEGER
);
CREATE INDEX IF NOT EXISTS approvals_status ON approvals(status, created_at);
CREATE INDEX IF NOT EXISTS approvals_run ON approvals(run_id);
`;

/** SQLite's row: JSON columns as text, times as numbers. */
type ApprovalRowDb = ApprovalRow<string, number>;
const SQLITE_COLUMNS: ColumnDecoders<string, number> = { json: (v) => JSON.parse(v), time: (v) => v };

/** The single-node store. Its statements are synchronous (one short SQLite transaction); the promises are resolved. */
export class SqliteApprovalStore implements ApprovalStore {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(home: string) {
    const dir = join(home, "sessions");
    mkdirSync(dir, { recursive: true });
    this.db = new Database(join(dir, "approvals.sqlite"));
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO approvals (id, kind, session_key, agent_id, run_id, status, approval, request, results, created_at,
         expires_at) VALUES (@id, @kind, @sessionKey, @agentId, @runId, 'pending', @approval, @request, @results,
         @createdAt, @expiresAt)`,
      ),
      get: db.prepare<[string], ApprovalRowDb>("SELECT * FROM approvals WHERE id = ?"),
      byStatus: db.prepare<[string], ApprovalRowDb>("SELECT * FROM approvals WHERE status = ? ORDER BY created_at"),
      ofRun: db.prepare<[string], ApprovalRowDb>("SELECT * FROM approvals WHERE run_id = ? ORDER BY created_at"),
      results: db.prepare("UPDATE approvals SET results = ? WHERE run_id = ? AND status = 'pending'"),
      end: db.prepare(
        `UPDATE approvals SET status = @status, decision = @decision, cause = @cause, resolved_by = @resolvedBy,
         reason = @reason, resolved_at = @at WHERE id = @id AND status = @from`,
      ),
      consume: db.prepare(
        "UPDATE approvals SET status = 'resolved', resolved_at = ? WHERE run_id = ? AND status = 'decided'",
      ),
      prune: db.prepare("DELETE FROM approvals WHERE status = 'resolved' AND resolved_at < ?"),
    };
    this.stmts.prune.run(Date.now() - KEEP_RESOLVED_MS);
  }

  insert(a: StoredApproval): Promise<void> {
    if (!this.db.open) return Promise.reject(new Error("approvals store is closed"));
    this.stmts.insert.run({
      id: a.id,
      kind: a.kind,
      sessionKey: a.sessionKey,
      agentId: a.agentId,
      runId: a.runId,
      approval: JSON.stringify(a.approval),
      request: JSON.stringify(a.request),
      results: JSON.stringify(a.results),
      createdAt: a.createdAt,
      expiresAt: a.expiresAt ?? null,
    });
    return Promise.resolve();
  }

  get(id: string): Promise<StoredApproval | undefined> {
    const row = this.db.open ? this.stmts.get.get(id) : undefined;
    return Promise.resolve(row ? toApproval(row) : undefined);
  }

  withStatus(status: ApprovalStatus): Promise<StoredApproval[]> {
    return Promise.resolve(this.db.open ? this.stmts.byStatus.all(status).map(toApproval) : []);
  }

  ofRun(runId: string): Promise<StoredApproval[]> {
    return Promise.resolve(this.db.open ? this.stmts.ofRun.all(runId).map(toApproval) : []);
  }

  setResults(runId: string, results: readonly ToolResultMessage[]): Promise<void> {
    if (this.db.open) this.stmts.results.run(JSON.stringify(results), runId);
    return Promise.resolve();
  }

  end(id: string, from: ApprovalStatus, to: ApprovalStatus, e: ApprovalEnd): Promise<boolean> {
    if (!this.db.open) return Promise.resolve(false); // late events of runs aborted by shutdown
    const r = this.stmts.end.run({
      id,
      from,
      status: to,
      decision: e.decision,
      cause: e.cause,
      resolvedBy: e.resolvedBy ?? null,
      reason: e.reason ?? null,
      at: e.at,
    });
    return Promise.resolve(r.changes === 1);
  }

  consume(runId: string, at = Date.now()): Promise<void> {
    if (this.db.open) this.stmts.consume.run(at, runId);
    return Promise.resolve();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function toApproval(r: ApprovalRowDb): StoredApproval {
  return approvalFromRow(r, SQLITE_COLUMNS);
}
