/**
 * The gateway's approvals: every tool call of a run that waits for a person's decision, live or left pending by a
 * gateway process that died. A request is stored before anyone hears of it, then announced on the run's
 * `approval` stream and to the connections holding `operator.approvals` (no other). A decision (RPC or `/approve`)
 * goes to the live run's agent; for a run that died with an earlier process it is recorded, and once every
 * approval of that run's batch is decided a run with the same runId resumes the batch on the session's lane
 * (`resumeToolCalls`: the tool runs or is denied, its result is appended once, the loop goes on). Approvals
 * expiring while nobody can decide resolve as their `timeoutBehavior` says.
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
import { type ApprovalEnd, ApprovalStore } from "./approval-store.js";
import { kindOf, requestedEvent, resolvedEvent, streamData } from "./approval-wire.js";
import type { ApprovalAudience, ApprovalKind, StoredApproval } from "./types.js";

export interface ApprovalHubDeps {
  home: string;
  runs: RunRegistry;
  /** The session queues (built after the hub; read only when a run resumes). */
  queues: () => SessionQueues;
  bus: EventBus;
  log?: (line: string) => void;
}

/** A request of a run this process is executing: decided on its engine. */
interface LiveApproval {
  stored: StoredApproval;
  engine: EmbeddedSession;
  emit: RunContext["emit"];
}

const NOBODY = "no client with operator.approvals is connected to decide";

function notFound(id: string): GatewayError {
  return new GatewayError("APPROVAL_NOT_FOUND", `no pending approval with id ${id}`, { code: "APPROVAL_NOT_FOUND" });
}

export class ApprovalHub {
  readonly store: ApprovalStore;
  private audience: ApprovalAudience = { hasApprover: () => false, broadcast: () => {} };
  private readonly live = new Map<string, LiveApproval>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Set when the gateway stops: aborted waits stay pending for the next process to resume. */
  private suspended = false;

  constructor(private readonly deps: ApprovalHubDeps) {
    this.store = new ApprovalStore(deps.home);
  }

  /** The server plugs in its connections. */
  attach(audience: ApprovalAudience): void {
    this.audience = audience;
  }

  /** Whether anyone can decide now (exec approvals apply `askFallback` at once when not). */
  hasApprover(): boolean {
    return this.audience.hasApprover();
  }

  // ---- Start-up -----------------------------------------------------------------------------------------------

  /**
   * Takes back the approvals an earlier process left: their runs (marked interrupted by the ledger) wait again for
   * their real end, expiries are scheduled, and runs whose batch was fully decided resume.
   */
  recover(): void {
    const left = [...this.store.withStatus("pending"), ...this.store.withStatus("decided")];
    const runs = new Map<string, StoredApproval>();
    for (const a of left) if (!runs.has(a.runId)) runs.set(a.runId, a);
    for (const a of runs.values()) this.deps.runs.reopen(a.request);
    for (const a of left) if (a.status === "pending") this.scheduleExpiry(a);
    if (runs.size > 0) this.deps.log?.(`approvals: ${left.length} pending from before the restart`);
    // After the constructor: the server finishes starting before a resumed run needs the lanes.
    setImmediate(() => {
      for (const runId of runs.keys()) this.maybeResume(runId);
    });
  }

  /** Sends every pending approval to one connection (a client with operator.approvals just connected). */
  announceTo(send: (event: string, payload: unknown) => void): void {
    for (const a of this.store.withStatus("pending")) {
      const { event, payload } = requestedEvent(a);
      send(event, payload);
    }
  }

  // ---- Live runs (from the run extension) ---------------------------------------------------------------------

  /** A run's agent asks: store, then announce. Nobody connected to decide: denied at once. */
  requested(ctx: RunContext, engine: EmbeddedSession, approval: PendingApproval, results: ToolResultMessage[]): void {
    if (!this.audience.hasApprover()) {
      try {
        engine.resolveApproval?.(approval.id, "deny", { by: "gateway", reason: NOBODY });
      } catch {
        // "deny" is not offered: the call waits for its timeout or the run's end.
      }
      return;
    }
    const { images: _images, resume: _resume, ...request } = ctx.request;
    const stored: StoredApproval = {
      id: approval.id,
      kind: kindOf(approval),
      sessionKey: ctx.sessionKey,
      agentId: ctx.agentId,
      runId: ctx.runId,
      status: "pending",
      approval,
      request,
      results: [...results],
      createdAt: approval.createdAt,
      ...(approval.expiresAt !== undefined ? { expiresAt: approval.expiresAt } : {}),
    };
    this.store.insert(stored); // durable before anyone hears of it
    this.live.set(approval.id, { stored, engine, emit: ctx.emit });
    ctx.emit("approval", streamData(stored));
    const { event, payload } = requestedEvent(stored);
    this.audience.broadcast(event, payload);
  }

  /** Results of the waiting batch's other calls, kept for a resume. */
  batchResults(runId: string, results: readonly ToolResultMessage[]): void {
    for (const l of this.live.values()) {
      if (l.stored.runId === runId) {
        this.store.setResults(runId, results);
        return;
      }
    }
  }

  /** The agent's wait ended (decided, timed out, aborted), or a resumed call took its decision. */
  ended(ctx: RunContext, event: AgentEventOf<"tool_approval_end">): void {
    const { approval, resolution, cause } = event;
    const live = this.live.get(approval.id);
    this.live.delete(approval.id);
    if (this.suspended && cause === "aborted") return; // the gateway is stopping: still pending for the next one
    const e: ApprovalEnd = {
      decision: resolution.decision,
      cause,
      ...(resolution.by !== undefined ? { resolvedBy: resolution.by } : {}),
      ...(resolution.reason !== undefined ? { reason: resolution.reason } : {}),
      at: Date.now(),
    };
    if (this.store.end(approval.id, "pending", "resolved", e)) {
      const stored = live?.stored ?? this.store.get(approval.id);
      if (stored) this.announceEnd(stored, e, ctx.emit);
    } else {
      // Decided after a restart and announced then: the resumed run consumes it.
      this.store.end(approval.id, "decided", "resolved", e);
    }
  }

  /** The run is over: approvals it left waiting (its engine stopped without deciding them) end as aborted. */
  runEnded(ctx: RunContext): void {
    for (const [id, l] of this.live) {
      if (l.stored.runId !== ctx.runId) continue;
      this.live.delete(id);
      if (this.suspended) continue;
      const e: ApprovalEnd = { decision: "deny", cause: "aborted", resolvedBy: "abort", at: Date.now() };
      if (this.store.end(id, "pending", "resolved", e)) this.announceEnd(l.stored, e, ctx.emit);
    }
    this.store.consume(ctx.runId);
  }

  // ---- Operators (RPC, /approve) -------------------------------------------------------------------------------

  list(kind: ApprovalKind, sessionKey?: string): StoredApproval[] {
    return this.store
      .withStatus("pending")
      .filter((a) => a.kind === kind && (sessionKey === undefined || a.sessionKey === sessionKey));
  }

  get(kind: ApprovalKind | undefined, id: string): StoredApproval {
    const a = this.store.get(id);
    if (a?.status !== "pending" || (kind !== undefined && a.kind !== kind)) throw notFound(id);
    return a;
  }

  /**
   * Decides a pending approval; first answer wins. `kind` undefined: either kind (`/approve`). Throws
   * APPROVAL_NOT_FOUND for an unknown or already decided id, INVALID_REQUEST for a decision not offered.
   */
  resolve(
    kind: ApprovalKind | undefined,
    id: string,
    decision: ApprovalDecisionWire,
    options: { by?: string; reason?: string } = {},
  ): ApprovalResolveResult {
    const a = this.get(kind, id);
    const offered = a.approval.request.decisions;
    if (offered && !offered.includes(decision)) {
      throw new GatewayError(
        "INVALID_REQUEST",
        `decision "${decision}" is not offered (offered: ${offered.join(", ")})`,
      );
    }
    const live = this.live.get(id);
    if (live) {
      if (!live.engine.resolveApproval?.(id, decision, options)) throw notFound(id);
      return { ok: true, id, decision };
    }
    this.decideDead(a, {
      decision,
      cause: "decided",
      ...(options.by !== undefined ? { resolvedBy: options.by } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      at: Date.now(),
    });
    return { ok: true, id, decision, resumed: true };
  }

  /** The gateway is stopping: waits its runs abort now stay pending, to be resumed after the restart. */
  suspend(): void {
    this.suspended = true;
  }

  close(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.store.close();
  }

  // ---- Runs that died with an earlier process ------------------------------------------------------------------

  private decideDead(a: StoredApproval, e: ApprovalEnd): void {
    if (!this.store.end(a.id, "pending", "decided", e)) throw notFound(a.id);
    const timer = this.timers.get(a.id);
    if (timer) clearTimeout(timer);
    this.timers.delete(a.id);
    this.announceEnd(a, e, (stream, data) => {
      this.deps.bus.emitAgent(a.runId, a.sessionKey, stream, data);
    });
    this.maybeResume(a.runId);
  }

  private scheduleExpiry(a: StoredApproval): void {
    if (a.expiresAt === undefined) return;
    const fire = (): void => {
      this.timers.delete(a.id);
      const expired = expiredApproval(a.approval);
      if (!expired) return;
      try {
        this.decideDead(a, { decision: expired.decision, cause: "timeout", resolvedBy: "timeout", at: Date.now() });
      } catch {
        // Decided meanwhile.
      }
    };
    const timer = setTimeout(fire, Math.max(0, a.expiresAt - Date.now()));
    timer.unref();
    this.timers.set(a.id, timer);
  }

  /** Once no approval of the run waits, a run with the same runId resumes its batch on the session's lane. */
  private maybeResume(runId: string): void {
    const rows = this.store.ofRun(runId);
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
    const { event, payload } = resolvedEvent(a, e);
    this.audience.broadcast(event, payload);
  }
}
