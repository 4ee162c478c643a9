/**
 * Public types of the PostgreSQL cluster (preview): several gateway processes sharing one database. Times the
 * gateway records (acceptedAt, startedAt, endedAt) are epoch milliseconds like the SQLite ledger; leases use the
 * database's clock only, so the nodes' clocks never have to agree.
 */

/** Terminal states of a run, the same words as the single-node ledger. */
export type ClusterRunEnd = "ok" | "error" | "timeout" | "aborted" | "interrupted";

/** A run's state: `queued` until a node claims it, `running` on exactly one node, then one terminal state. */
export type ClusterRunStatus = "queued" | "running" | ClusterRunEnd;

/** What a client asked for; stored as JSON and handed to the executing node unchanged. */
export interface ClusterRunRequest {
  /** The idempotency key: a second submit with the same id, on any node, never starts a second run. */
  runId: string;
  sessionKey: string;
  agentId: string;
  message: string;
  /** Global lane: `main` (default), `subagent` or `cron`, each with its own cluster-wide cap. */
  lane?: string;
  /** This message's own queue mode (steer, followup, collect, interrupt); absent: the session's, else the default. */
  queueMode?: string;
  /** Anything else the run pipeline needs (model, thinking, timeout, …), passed through as JSON. */
  params?: Record<string, unknown>;
}

/** One row of the cluster's run ledger. */
export interface ClusterRunRecord {
  runId: string;
  sessionKey: string;
  /** Position of the run in its session: runs of one session execute in this order. */
  sessionPos: number;
  lane: string;
  status: ClusterRunStatus;
  request: ClusterRunRequest;
  acceptedAt: number;
  /** The node that accepted (committed) the run. */
  acceptedBy: string;
  /** The node that executes or executed it, and that node's lease epoch at the time. */
  nodeId?: string;
  nodeEpoch?: number;
  startedAt?: number;
  endedAt?: number;
  error?: string;
  summary?: string;
  result?: unknown;
  abortRequested: boolean;
  /**
   * `collect` queue mode: the session's other queued runs taken together with this one when it was claimed (in
   * session order). They stay `queued` (marked merged into this run) and end with this run's end, in the same
   * commit; the executing node runs one turn with all their messages. Absent or empty: a run of its own.
   */
  merged?: ClusterRunRecord[];
  /**
   * Dropped over its session's cap under drop:summarize: it runs as a one-line summary in front of the prompt of
   * the turn it is merged into, and ends with that turn.
   */
  summarized: boolean;
  /** Steering messages were committed for it before it was claimed: its node reads them as soon as it starts. */
  steered?: boolean;
}

/**
 * The queue settings a node falls back on for sessions without their own (`messages.queue` of its config):
 * what the claim needs to know which sessions collect, and how long their quiet period is.
 */
export interface ClusterQueueDefaults {
  mode: string;
  debounceMs: number;
  /** Most requests waiting per session (absent: no cap). */
  cap?: number;
  /** Over the cap: old, new or summarize (default summarize). */
  drop?: string;
}

/**
 * What the accept did with a request, decided in its transaction under the session row lock, as a single node's
 * session queue decides: `started` (the session was idle), `queued` (behind the session's runs), `steered` (a
 * steering input of the session's active run, no run of its own), `dropped` (refused over the cap, drop:new: it
 * is recorded as ended `error`), `known` (the key was known: nothing was created).
 */
export type SubmitDisposition = "started" | "queued" | "steered" | "dropped" | "known";

/**
 * submit's answer: the run, and whether this call created it (false: the key was known). For `steered`, `run`
 * is the active run the message joined (its end answers the request).
 */
export interface SubmitResult {
  run: ClusterRunRecord;
  created: boolean;
  disposition: SubmitDisposition;
}

/** How a request is accepted. */
export interface SubmitOptions {
  /** The accepting node's queue settings, for sessions without their own (absent: followup, no cap). */
  defaults?: ClusterQueueDefaults;
  /**
   * Queued after the session's runs as a follow-up, outside the cap: a steering message that came too late for
   * its run (it was accepted once already and must not be dropped now).
   */
  followupUncapped?: boolean;
}

/** What an executor returns; the node records it in the same transaction as the run's last events. */
export interface ClusterRunOutcome {
  status: Exclude<ClusterRunEnd, "interrupted">;
  summary?: string;
  error?: string;
  result?: unknown;
}

/** Handed to the executor of one claimed run. */
export interface ClusterRunContext {
  /** Aborted when any node asks to abort the run (`abort`), or when this node loses its lease. */
  readonly signal: AbortSignal;
  /** Queues one event of the run (seq is assigned here, gap-free); written in batches, in order. */
  emit(stream: string, data: unknown): void;
  /**
   * Registers the receiver of steering messages sent to this run from any node (`steer`), in the order they
   * were committed; messages that arrived before registration are delivered at once.
   */
  onSteer(listener: (message: string) => void): void;
  readonly nodeId: string;
}

/** Executes one claimed run on this node. Throwing ends the run with status `error`. */
export type ClusterRunExecutor = (run: ClusterRunRecord, ctx: ClusterRunContext) => Promise<ClusterRunOutcome>;

/** One event of a run as every node's subscribers see it. `seq` rises by one per run from 1, no gaps. */
export interface ClusterRunEvent {
  /** Global position in the events table (cursor for a session's subscribers). */
  id: number;
  runId: string;
  sessionKey: string;
  seq: number;
  stream: string;
  ts: number;
  data: unknown;
}

/** Membership row of a node. */
export interface ClusterNodeInfo {
  nodeId: string;
  /** Rises each time a node (re)joins: work claimed under an older epoch can no longer be written. */
  epoch: number;
  host: string;
  pid: number;
  /** Milliseconds until the lease expires, by the database clock (negative: expired). */
  leaseRemainingMs: number;
}

/** Timing of leases. Detection of a dead node takes at most leaseMs + reapGraceMs + reapIntervalMs. */
export interface LeaseTiming {
  /** How long one heartbeat keeps a node alive (default 5000). */
  leaseMs: number;
  /** Heartbeat period (default 1000). */
  heartbeatMs: number;
  /** Extra wait past expiry before a node's runs are taken away, so a cut-off node has aborted its own (1000). */
  reapGraceMs: number;
  /** How often each node looks for expired peers (default 1000). */
  reapIntervalMs: number;
}

/** Options of a cluster node. */
export interface ClusterNodeOptions {
  /** PostgreSQL URL (`gateway.cluster.postgres` or `TILLER_CLUSTER_URL`). */
  url: string;
  /** Stable name of the node (default: host:pid:random). */
  nodeId?: string;
  /** Runs this process executes at once (default 8). */
  maxLocalRuns?: number;
  /** Cluster-wide cap per global lane (default main 4, subagent 8, cron 1). */
  laneCaps?: Record<string, number>;
  /** Defaults for sessions without a queue mode of their own (default: followup, no collect merging). */
  queueDefaults?: ClusterQueueDefaults;
  lease?: Partial<LeaseTiming>;
  /** Fallback poll of the queue and of waits, for notifications lost while reconnecting (default 500 ms). */
  pollMs?: number;
  /** How long a database call keeps retrying transient errors before it fails (default 30 s). */
  retryForMs?: number;
  /**
   * Events of runs that ended more than `keepMs` ago (default 1 h) are deleted, checked every `everyMs`
   * (default 60 s), so the events table holds recent and live runs only; the ledger and transcripts stay.
   */
  eventRetention?: { keepMs?: number; everyMs?: number };
  /** Executes claimed runs; a node without one only accepts, serves reads and relays events. */
  executor?: ClusterRunExecutor;
  log?: (line: string) => void;
}
