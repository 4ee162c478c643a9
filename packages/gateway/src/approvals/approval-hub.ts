/**
 * The gateway's approvals: every tool call of a run that waits for a person's decision, live or left pending by a
 * gateway process that died. A request is stored before anyone hears of it, then announced on the run's
 * `approval` stream and to the connections holding `operator.approvals` (no other). A decision (RPC or `/approve`)
 * goes to the live run's agent; for a run that died with an earlier process it is recorded, and once every
 * approval of that run's batch is decided a run with the same runId resumes the batch on the session's lane
 * (`resumeToolCalls`: the tool runs or is denied, its result is appended once, the loop goes on). Approvals
 * expiring while nobody can decide resolve as their `timeoutBehavior` says.
 *
 * In a cluster (`shared`: PostgreSQL) every node hears of every approval: the node executing the run stores the
 * request, every node announces it to its own approvers when the shared store reports the change, a decision
 * from any node is committed there once (first wins) and the executing node hands it to its agent. A timeout is
 * committed the same way by the executing node (the agent waits without its own timer: shared-timeout.ts), so
 * the run, the record, the events and the decider all see the one outcome the database committed. A node
 * announces a request to its approvers before its end, even when it reads both at once. Whether
 * anyone can be asked is cluster-wide. Runs whose node died are not resumed: their approvals are ended by the
 * shared store when the cluster marks the run interrupted (cluster/cluster-approvals.ts).
 *
 * Store writes of one run are serialized (`serial`), so a request is stored before its end is, whichever store.
 */
import { type AgentEventOf, expiredApproval, type PendingApproval } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import { GatewayError } from "../protocol/frames.js";
import type { ApprovalDecisionWire, ApprovalResolveResult } from "../protocol/schema/approvals.js";
import type { SessionQueues } from "../queue/session-queue.js";
import type { EmbeddedSession } from "../run/embedded-session.js";
import type { EventBus } from "../run/event-bus.js";
import type { RunRegistry } from "../run/run-registry.js";
import type { RunContext, RunRequest } from "../run/run-types.js";
import { notFound, refused } from "./approval-errors.js";
import { SqliteApprovalStore } from "./approval-store.js";
import { endOf, kindOf, requestedEvent, resolvedEvent, streamData } from "./approval-wire.js";
import { commitTimeoutWhenDue, restoreTimeout } from "./shared-timeout.js";
import type {
  ApprovalAudience,
  ApprovalEnd,
  ApprovalKind,
  ApprovalStore,
  SharedApprovals,
  StoredApproval,
} from "./types.js";

export interface ApprovalHubDeps {
  home: string;
  runs: RunRegistry;
  /** The session queues (built after the hub; read only when a run resumes). */
  queues: () => SessionQueues;
  bus: EventBus;
  /** A cluster's shared approvals (PostgreSQL); absent: the single-node SQLite store in `home`. */
  shared?: SharedApprovals;
  log?: (line: string) => void;
}

/** A request of a run this process is executing: decided on its engine. */
interface LiveApproval {
  stored: StoredApproval;
  engine: EmbeddedSession;
  emit: RunContext["emit"];
}

const NOBODY = "no client with operator.approvals is connected to decide";

export class ApprovalHub {
  readonly store: ApprovalStore;
  private readonly shared: SharedApprovals | undefined;
  private audience: ApprovalAudience = { hasApprover: () => false, broadcast: () => {} };
  private readonly live = new Map<string, LiveApproval>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Set when the gateway stops: aborted waits stay pending for the next process to resume. */
  private suspended = false;
  private closed = false;
  /**
   * Cluster: the ids this node's approvers were told were requested and not yet told resolved, so a request
   * decided before this node read it is still announced before its end (never an end for an unknown id).
   */
  private readonly announced = new Set<string>();
  /** The store work of each run in flight, in order (see `serial`). */
  private readonly ops = new Map<string, Promise<void>>();

  constructor(private readonly deps: ApprovalHubDeps) {
    this.shared = deps.shared;
    this.store = deps.shared ?? new SqliteApprovalStore(deps.home);
    this.shared?.onChange((a) => this.changed(a));
  }

  /** True in a cluster: timeouts are the hub's, committed by the database (shared-timeout.ts). */
  get clustered(): boolean {
    return this.shared !== undefined;
  }

  /** The server plugs in its connections. */
  attach(audience: ApprovalAudience): void {
    this.audience = audience;
  }

  /** Whether anyone can decide now (exec approvals apply `askFallback` at once when not); cluster-wide in a cluster. */
  hasApprover(): boolean {
    return this.audience.hasApprover() || (this.shared?.anyApprover() ?? false);
  }

  /** A connection came or went: a cluster learns whether this node still has an approver. */
  audienceChanged(): void {
    this.shared?.setLocalApprover(this.audience.hasApprover());
  }

  /** Runs `fn` after the run's earlier store work (a request is stored before its end, whatever the store). */
  private serial(runId: string, fn: () => Promise<void>): Promise<void> {
    const next = (this.ops.get(runId) ?? Promise.resolve()).then(fn).catch((err: unknown) => {
      this.deps.log?.(`approvals: run ${runId}: ${err instanceof Error ? err.message : String(err)}`);
    });
    this.ops.set(runId, next);
    void next.finally(() => {
      if (this.ops.get(runId) === next) this.ops.delete(runId);
    });
    return next;
  }

  // ---- Start-up -----------------------------------------------------------------------------------------------

  /**
   * Takes back the approvals an earlier process left: their runs (marked interrupted by the ledger) wait again for
   * their real end, expiries are scheduled, and runs whose batch was fully decided resume.
   */
  recover(): void {
    // A cluster does not resume runs of dead nodes: the shared store ends their approvals (see the file comment).
    if (this.shared) return;
    void this.recoverLocal().catch((err: unknown) => {
      this.deps.log?.(`approvals: recovery failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  }

  private async recoverLocal(): Promise<void> {
    const left = [...(await this.store.withStatus("pending")), ...(await this.store.withStatus("decided"))];
    const runs = new Map<string, StoredApproval>();
    for (const a of left) if (!runs.has(a.runId)) runs.set(a.runId, a);
    for (const a of runs.values()) this.deps.runs.reopen(a.request);
    for (const a of left) if (a.status === "pending") this.scheduleExpiry(a);
    if (runs.size > 0) this.deps.log?.(`approvals: ${left.length} pending from before the restart`);
    // After the constructor: the server finishes starting before a resumed run needs the lanes.
    setImmediate(() => {
      for (const runId of runs.keys()) void this.maybeResume(runId);
    });
  }

  /** Sends every pending approval to one connection (a client with operator.approvals just connected). */
  announceTo(send: (event: string, payload: unknown) => void): void {
    this.audienceChanged();
    // A cluster's `decided` ones are not over yet for an approver: announced now, their end follows.
    const open = this.shared
      ? Promise.all([this.store.withStatus("pending"), this.store.withStatus("decided")]).then((l) => l.flat())
      : this.store.withStatus("pending");
    void open.then(
      (pending) => {
        for (const a of pending) {
          if (this.shared) this.announced.add(a.id);
          const { event, payload } = requestedEvent(a);
          send(event, payload);
        }
      },
      (err: unknown) => this.deps.log?.(`approvals: cannot list pending ones: ${(err as Error).message}`),
    );
  }

  // ---- Live runs (from the run extension) ---------------------------------------------------------------------

  /** A run's agent asks: store, then announce. Nobody connected to decide: denied at once. */
  requested(ctx: RunContext, engine: EmbeddedSession, approval: PendingApproval, results: ToolResultMessage[]): void {
    const batch = [...results];
    void this.serial(ctx.runId, () => this.ask(ctx, engine, approval, batch));
  }

  private async ask(
    ctx: RunContext,
    engine: EmbeddedSession,
    approval: PendingApproval,
    results: ToolResultMessage[],
  ): Promise<void> {
    const deny = (reason: string): void => {
      try {
        engine.resolveApproval?.(approval.id, "deny", { by: "gateway", reason });
      } catch {
        // "deny" is not offered: the call waits for its timeout or the run's end.
      }
    };
    // In a cluster the cached presence may lag a just-connected approver on another node: asked once more
    // (a database that cannot answer counts as nobody: the call is denied, not left waiting unannounced).
    if (!this.hasApprover() && !(await this.shared?.refreshPresence().catch(() => false))) {
      deny(this.shared ? "no client with operator.approvals is connected to any gateway of the cluster" : NOBODY);
      return;
    }
    const { images: _images, resume: _resume, ...request } = ctx.request;
    // In a cluster the agent was asked without its timeout; the record has it, and the hub applies it.
    const asked = this.shared ? restoreTimeout(approval) : approval;
    const stored: StoredApproval = {
      id: approval.id,
      kind: kindOf(asked),
      sessionKey: ctx.sessionKey,
      agentId: ctx.agentId,
      runId: ctx.runId,
      status: "pending",
      approval: asked,
      request,
      results,
      createdAt: asked.createdAt,
      ...(asked.expiresAt !== undefined ? { expiresAt: asked.expiresAt } : {}),
    };
    try {
      await this.store.insert(stored); // durable before anyone hears of it
    } catch (err) {
      deny(`the approval request could not be stored: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.live.set(approval.id, { stored, engine, emit: ctx.emit });
    ctx.emit("approval", streamData(stored));
    // A cluster announces it on every node (this one included) when the shared store reports the change.
    if (this.shared) {
      this.scheduleSharedExpiry(stored);
      return;
    }
    const { event, payload } = requestedEvent(stored);
    this.audience.broadcast(event, payload);
  }

  /** Results of the waiting batch's other calls, kept for a resume. */
  batchResults(runId: string, results: readonly ToolResultMessage[]): void {
    // Only a run with an approval waiting (or being stored) writes: other tool calls cost nothing here.
    if (!this.ops.has(runId) && ![...this.live.values()].some((l) => l.stored.runId === runId)) return;
    const batch = [...results];
    void this.serial(runId, async () => {
      for (const l of this.live.values()) {
        if (l.stored.runId === runId) {
          await this.store.setResults(runId, batch);
          return;
        }
      }
    });
  }

  /** The agent's wait ended (decided, timed out, aborted), or a resumed call took its decision. */
  ended(ctx: RunContext, event: AgentEventOf<"tool_approval_end">): void {
    void this.serial(ctx.runId, () => this.endLive(ctx, event));
  }

  private async endLive(ctx: RunContext, event: AgentEventOf<"tool_approval_end">): Promise<void> {
    const { approval, resolution, cause } = event;
    const live = this.live.get(approval.id);
    this.live.delete(approval.id);
    this.clearTimer(approval.id);
    if (this.suspended && cause === "aborted") return; // the gateway is stopping: still pending for the next one
    const e: ApprovalEnd = {
      decision: resolution.decision,
      cause,
      ...(resolution.by !== undefined ? { resolvedBy: resolution.by } : {}),
      ...(resolution.reason !== undefined ? { reason: resolution.reason } : {}),
      at: Date.now(),
    };
    if (await this.store.end(approval.id, "pending", "resolved", e)) {
      const stored = live?.stored ?? (await this.store.get(approval.id));
      if (stored) this.announceEnd(stored, e, ctx.emit);
    } else {
      // Cluster: the agent took what the database committed (a decision or the timeout), which the record keeps.
      const committed = this.shared && cause === "decided" ? await this.store.get(approval.id) : undefined;
      const end = (committed?.status === "decided" ? endOf(committed) : undefined) ?? e;
      if (await this.store.end(approval.id, "decided", "resolved", end)) {
        // Single node: decided after a restart and announced then; the resumed run consumes it. Cluster: decided
        // on some node and taken by this run's agent now; every node announces the end from the shared store.
        const stored = live?.stored ?? committed ?? (await this.store.get(approval.id));
        if (stored && this.shared) ctx.emit("approval", streamData(stored, end));
      }
    }
  }

  /** The run is over: approvals it left waiting (its engine stopped without deciding them) end as aborted. */
  runEnded(ctx: RunContext): Promise<void> {
    return this.serial(ctx.runId, async () => {
      for (const [id, l] of this.live) {
        if (l.stored.runId !== ctx.runId) continue;
        this.live.delete(id);
        this.clearTimer(id);
        if (this.suspended) continue;
        const e: ApprovalEnd = { decision: "deny", cause: "aborted", resolvedBy: "abort", at: Date.now() };
        if (await this.store.end(id, "pending", "resolved", e)) this.announceEnd(l.stored, e, ctx.emit);
      }
      await this.store.consume(ctx.runId);
    });
  }

  // ---- Operators (RPC, /approve) -------------------------------------------------------------------------------

  async list(kind: ApprovalKind, sessionKey?: string): Promise<StoredApproval[]> {
    return (await this.store.withStatus("pending")).filter(
      (a) => a.kind === kind && (sessionKey === undefined || a.sessionKey === sessionKey),
    );
  }

  async get(kind: ApprovalKind | undefined, id: string): Promise<StoredApproval> {
    const a = await this.store.get(id);
    if (a?.status !== "pending" || (kind !== undefined && a.kind !== kind)) {
      // In a cluster the loser of a race learns who won.
      if (this.shared && a && a.status !== "pending" && (kind === undefined || a.kind === kind)) {
        throw refused(id, { ok: false, reason: "decided", approval: a });
      }
      throw notFound(id);
    }
    return a;
  }

  /**
   * Decides a pending approval; first answer wins. `kind` undefined: either kind (`/approve`). Throws
   * APPROVAL_NOT_FOUND for an unknown or already decided id, INVALID_REQUEST for a decision not offered.
   */
  async resolve(
    kind: ApprovalKind | undefined,
    id: string,
    decision: ApprovalDecisionWire,
    options: { by?: string; reason?: string } = {},
  ): Promise<ApprovalResolveResult> {
    const a = await this.get(kind, id);
    const offered = a.approval.request.decisions;
    if (offered && !offered.includes(decision)) {
      throw new GatewayError(
        "INVALID_REQUEST",
        `decision "${decision}" is not offered (offered: ${offered.join(", ")})`,
      );
    }
    const e: ApprovalEnd = {
      decision,
      cause: "decided",
      ...(options.by !== undefined ? { resolvedBy: options.by } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      at: Date.now(),
    };
    if (this.shared) {
      // Committed once across the cluster; the executing node's agent takes it (here at once when it is this one).
      const r = await this.shared.decide(id, e);
      if (!r.ok) throw refused(id, r);
      this.applyDecision(r.approval);
      return { ok: true, id, decision };
    }
    const live = this.live.get(id);
    if (live) {
      if (!live.engine.resolveApproval?.(id, decision, options)) throw notFound(id);
      return { ok: true, id, decision };
    }
    await this.decideDead(a, e);
    return { ok: true, id, decision, resumed: true };
  }

  /** The gateway is stopping: waits its runs abort now stay pending, to be resumed after the restart. */
  suspend(): void {
    // A cluster does not resume a stopped node's runs: their waits end as aborted, on the record, like any abort.
    if (!this.shared) this.suspended = true;
  }

  /** Stops the expiry timers and closes the store after the store work in flight (the shared one is the cluster's). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.ops.values());
    if (!this.shared) this.store.close();
  }

  // ---- The cluster: changes made on any node ------------------------------------------------------------------

  /** A change of an approval on any node, reported once to this node by the shared store. */
  private changed(a: StoredApproval): void {
    if (this.closed) return;
    // Read late, a request may come already decided or resolved: its request is announced first all the same.
    if (!this.announced.has(a.id)) {
      this.announced.add(a.id);
      const { event, payload } = requestedEvent(a);
      this.audience.broadcast(event, payload);
    }
    if (a.status === "decided") {
      this.applyDecision(a);
    } else if (a.status === "resolved") {
      this.announced.delete(a.id);
      const e = endOf(a);
      if (!e) return;
      const { event, payload } = resolvedEvent(a, e);
      this.audience.broadcast(event, payload);
    }
  }

  /** The executing node's timeout of a cluster approval (see `commitTimeoutWhenDue`). */
  private scheduleSharedExpiry(a: StoredApproval): void {
    if (!this.shared || this.closed) return;
    commitTimeoutWhenDue(this.shared, a, {
      live: () => !this.closed && this.live.has(a.id),
      apply: (committed) => this.applyDecision(committed),
      timer: (t) => (t ? this.timers.set(a.id, t) : this.timers.delete(a.id)),
      ...(this.deps.log ? { log: this.deps.log } : {}),
    });
  }

  private clearTimer(id: string): void {
    const timer = this.timers.get(id);
    if (timer) clearTimeout(timer);
    this.timers.delete(id);
  }

  /** A decision committed in the cluster reaches the agent waiting for it, when that agent runs here. */
  private applyDecision(a: StoredApproval): void {
    const live = this.live.get(a.id);
    if (!live || !a.decision) return;
    try {
      live.engine.resolveApproval?.(a.id, a.decision, {
        ...(a.resolvedBy !== undefined ? { by: a.resolvedBy } : {}),
        ...(a.reason !== undefined ? { reason: a.reason } : {}),
      });
    } catch (err) {
      this.deps.log?.(`approvals: decision on ${a.id} not applied: ${(err as Error).message}`);
    }
  }

  // ---- Runs that died with an earlier process ------------------------------------------------------------------

  private async decideDead(a: StoredApproval, e: ApprovalEnd): Promise<void> {
    if (!(await this.store.end(a.id, "pending", "decided", e))) throw notFound(a.id);
    this.clearTimer(a.id);
    this.announceEnd(a, e, (stream, data) => {
      this.deps.bus.emitAgent(a.runId, a.sessionKey, stream, data);
    });
    await this.maybeResume(a.runId);
  }

  private scheduleExpiry(a: StoredApproval): void {
    if (a.expiresAt === undefined) return;
    const fire = (): void => {
      this.timers.delete(a.id);
      const expired = expiredApproval(a.approval);
      if (!expired) return;
      this.decideDead(a, {
        decision: expired.decision,
        cause: "timeout",
        resolvedBy: "timeout",
        at: Date.now(),
      }).catch(() => {}); // decided meanwhile
    };
    const timer = setTimeout(fire, Math.max(0, a.expiresAt - Date.now()));
    timer.unref();
    this.timers.set(a.id, timer);
  }

  /** Once no approval of the run waits, a run with the same runId resumes its batch on the session's lane. */
  private async maybeResume(runId: string): Promise<void> {
    if (this.closed) return;
    const rows = await this.store.ofRun(runId);
    if (rows.some((r) => r.status === "pending")) return;
    const decided = rows.filter((r) => r.status === "decided");
    const first = decided[0];
    if (!first) return;
    const results = decided.reduce<ToolResultMessage[]>(
      (best, r) => (r.results.length > best.length ? r.results : best),
      [],
    );
    const request: RunRequest = {
      ...first.request,
      acceptedAt: Date.now(),
      resume: {
        approvals: decided.map((r) => ({
          approval: r.approval,
          decision: r.decision ?? "deny",
          cause: r.cause === "timeout" ? ("timeout" as const) : ("decided" as const),
          ...(r.resolvedBy !== undefined ? { by: r.resolvedBy } : {}),
          ...(r.reason !== undefined ? { reason: r.reason } : {}),
        })),
        results,
      },
    };
    this.deps.runs.reopen(request);
    this.submitWhenIdle(request);
  }

  /** The resume must not be steered into (or merged with) another turn: it waits for the session's active one. */
  private submitWhenIdle(request: RunRequest): void {
    if (this.closed || this.suspended) return; // the next process resumes it
    const queues = this.deps.queues();
    const active = queues.active(request.sessionKey);
    if (active && !active.finished) {
      void this.deps.runs.whenDone(active.runId).then(() => this.submitWhenIdle(request));
      return;
    }
    queues.submit(request);
  }

  private announceEnd(a: StoredApproval, e: ApprovalEnd, emit: RunContext["emit"]): void {
    emit("approval", streamData(a, e));
    if (this.shared) return; // every node announces it from the shared store
    const { event, payload } = resolvedEvent(a, e);
    this.audience.broadcast(event, payload);
  }
}
