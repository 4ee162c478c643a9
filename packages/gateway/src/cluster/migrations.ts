/**
 * Versioned schema migrations, applied at start-up under an advisory lock so that several nodes starting at
 * once apply each migration exactly once (the others wait, then find nothing to do). Each migration runs in its
 * own transaction together with its row in cluster_schema_migrations. Migrations are append-only: a shipped one
 * is never edited, a change is a new version.
 */
import { LOCK_MIGRATIONS, LOCK_NAMESPACE } from "./advisory-locks.js";
import type { ClusterPool } from "./pool.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "nodes, sessions, runs, events",
    sql: `
CREATE SEQUENCE cluster_node_epoch;
CREATE TABLE cluster_nodes (
  node_id text PRIMARY KEY,
  epoch bigint NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz NOT NULL
);
CREATE TABLE cluster_sessions (
  key text PRIMARY KEY,
  agent_id text NOT NULL,
  session_id text NOT NULL,
  session_file text NOT NULL DEFAULT '',
  label text, model text, thinking text, verbose_mode boolean,
  queue_mode text, queue_debounce_ms integer, queue_cap integer, queue_drop text,
  input_tokens bigint NOT NULL DEFAULT 0, output_tokens bigint NOT NULL DEFAULT 0,
  total_tokens bigint NOT NULL DEFAULT 0, context_tokens bigint NOT NULL DEFAULT 0,
  compaction_count integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL, updated_at bigint NOT NULL,
  last_run_id text, last_run_status text,
  next_run_pos bigint NOT NULL DEFAULT 0
);
CREATE INDEX cluster_sessions_updated ON cluster_sessions (updated_at DESC);
CREATE INDEX cluster_sessions_session_id ON cluster_sessions (session_id);
CREATE TABLE cluster_runs (
  run_id text PRIMARY KEY,
  session_key text NOT NULL,
  session_pos bigint NOT NULL,
  seq bigserial NOT NULL,
  lane text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued','running','ok','error','timeout','aborted','interrupted')),
  request jsonb NOT NULL,
  accepted_at bigint NOT NULL,
  accepted_by text NOT NULL,
  node_id text, node_epoch bigint,
  started_at bigint, ended_at bigint,
  error text, summary text, result jsonb,
  abort_requested boolean NOT NULL DEFAULT false,
  UNIQUE (session_key, session_pos)
);
-- The database itself guarantees one running run per session, whatever a node's bug or a partition does.
CREATE UNIQUE INDEX cluster_runs_one_running ON cluster_runs (session_key) WHERE status = 'running';
CREATE INDEX cluster_runs_queued ON cluster_runs (seq) WHERE status = 'queued';
CREATE INDEX cluster_runs_queued_session ON cluster_runs (session_key, session_pos) WHERE status = 'queued';
CREATE INDEX cluster_runs_running_node ON cluster_runs (node_id, node_epoch) WHERE status = 'running';
CREATE INDEX cluster_runs_session ON cluster_runs (session_key, accepted_at DESC);
CREATE TABLE cluster_run_events (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL,
  session_key text NOT NULL,
  seq integer NOT NULL,
  stream text NOT NULL,
  ts bigint NOT NULL,
  data jsonb NOT NULL,
  UNIQUE (run_id, seq)
);
CREATE INDEX cluster_run_events_session ON cluster_run_events (session_key, id);
`,
  },
  {
    version: 2,
    name: "transcripts, auth-profile usage, pending approvals",
    sql: `
CREATE TABLE cluster_transcripts (
  session_id text PRIMARY KEY,
  session_key text,
  header jsonb NOT NULL,
  next_pos bigint NOT NULL DEFAULT 0,
  leaf_id text
);
CREATE TABLE cluster_transcript_entries (
  session_id text NOT NULL REFERENCES cluster_transcripts (session_id) ON DELETE CASCADE,
  pos bigint NOT NULL,
  entry_id text NOT NULL,
  entry jsonb NOT NULL,
  PRIMARY KEY (session_id, pos),
  UNIQUE (session_id, entry_id)
);
CREATE TABLE cluster_auth_usage (
  profile_id text PRIMARY KEY,
  usage jsonb NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE cluster_session_profiles (
  session_key text PRIMARY KEY,
  profile_id text NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE cluster_pending_approvals (
  id text PRIMARY KEY,
  session_key text NOT NULL,
  run_id text,
  kind text NOT NULL,
  request jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','denied','expired')),
  created_at bigint NOT NULL,
  decided_at bigint,
  decision jsonb,
  node_id text
);
CREATE INDEX cluster_pending_approvals_session ON cluster_pending_approvals (session_key) WHERE status = 'pending';
`,
  },
  {
    version: 3,
    name: "steering inputs for running runs",
    sql: `
CREATE TABLE cluster_run_inputs (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL REFERENCES cluster_runs (run_id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('steer')),
  message text NOT NULL,
  created_at bigint NOT NULL,
  by_node text NOT NULL
);
CREATE INDEX cluster_run_inputs_run ON cluster_run_inputs (run_id, id);
`,
  },
  {
    version: 4,
    name: "idempotency keys of steering inputs",
    sql: `
-- A message steered into a running run keeps its request's idempotency key: a retry on any node finds it.
ALTER TABLE cluster_run_inputs ADD COLUMN request_id text;
CREATE UNIQUE INDEX cluster_run_inputs_request ON cluster_run_inputs (request_id) WHERE request_id IS NOT NULL;
`,
  },
  {
    version: 5,
    name: "collect: queued runs merged into one turn",
    sql: `
-- A queued run taken into another run's turn (collect mode) names that run; it ends with it.
ALTER TABLE cluster_runs ADD COLUMN merged_into text;
CREATE INDEX cluster_runs_merged ON cluster_runs (merged_into) WHERE merged_into IS NOT NULL;
`,
  },
  {
    version: 6,
    name: "approvals shared by the cluster's gateways, approver presence per node",
    sql: `
-- Version 2's table was never written (its shape cannot hold what a run needs to take a decision); replaced.
DROP TABLE IF EXISTS cluster_pending_approvals;
-- Every change of state takes the next change id under an advisory lock: nodes tail the table by it, in order.
CREATE SEQUENCE cluster_approval_change;
CREATE TABLE cluster_approvals (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('exec','plugin')),
  session_key text NOT NULL,
  agent_id text NOT NULL,
  run_id text NOT NULL,
  node_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending','decided','resolved')),
  approval jsonb NOT NULL,
  request jsonb NOT NULL,
  results jsonb NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  -- The expiry by the database clock: a decision after it is refused, whatever the nodes' clocks say.
  expires_db timestamptz,
  decision text, cause text, resolved_by text, reason text, resolved_at bigint,
  change_id bigint NOT NULL
);
CREATE INDEX cluster_approvals_change ON cluster_approvals (change_id);
CREATE INDEX cluster_approvals_open ON cluster_approvals (status, created_at) WHERE status <> 'resolved';
CREATE INDEX cluster_approvals_run ON cluster_approvals (run_id);
-- Whether a node has an operator.approvals connection; counted only while that node's lease (epoch) is valid.
CREATE TABLE cluster_approvers (
  node_id text PRIMARY KEY,
  epoch bigint NOT NULL,
  present boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 7,
    name: "queue policy: busy at accept, summarized over the cap",
    sql: `
-- Whether the session had a run queued or running when this one was accepted (decided under the session row
-- lock): collect waits only for such runs, and no node's clock is compared with another's to find out.
ALTER TABLE cluster_runs ADD COLUMN behind boolean NOT NULL DEFAULT false;
-- Dropped over the session's cap under drop:summarize: still queued, carried as a one-line summary into the
-- session's next turn, and ended with that turn.
ALTER TABLE cluster_runs ADD COLUMN summarized boolean NOT NULL DEFAULT false;
`,
  },
];

export interface MigrationReport {
  /** Versions this call applied (empty when another node had applied them). */
  applied: number[];
  /** The schema version now in the database. */
  version: number;
}

/**
 * Applies every missing migration. Safe to call from many nodes at once: the advisory lock makes them take
 * turns. A database whose schema is newer than this gateway knows is refused (an older gateway must not write
 * to it).
 */
export async function migrate(
  pool: ClusterPool,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationReport> {
  const { client, release } = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query("SELECT pg_advisory_lock($1, $2)", [LOCK_NAMESPACE, LOCK_MIGRATIONS]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS cluster_schema_migrations (
           version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const done = await client.query<{ version: number }>("SELECT version FROM cluster_schema_migrations");
      const have = new Set(done.rows.map((r) => r.version));
      const known = Math.max(0, ...migrations.map((m) => m.version));
      const newest = Math.max(0, ...have);
      if (newest > known) {
        throw new Error(
          `cluster database schema is version ${newest}, newer than this gateway knows (${known}): upgrade the gateway`,
        );
      }
      const applied: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (have.has(m.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(m.sql);
          await client.query("INSERT INTO cluster_schema_migrations (version, name) VALUES ($1, $2)", [
            m.version,
            m.name,
          ]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw new Error(`cluster migration ${m.version} (${m.name}) failed: ${(err as Error).message}`);
        }
        applied.push(m.version);
      }
      return { applied, version: Math.max(newest, ...applied) };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", [LOCK_NAMESPACE, LOCK_MIGRATIONS]).catch(() => {});
    }
  } catch (err) {
    failed = err as Error;
    throw err;
  } finally {
    release(failed);
  }
}
