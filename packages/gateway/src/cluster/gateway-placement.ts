/**
 * The product gateway on a cluster: the RunPlacement GatewayCore submits to when `gateway.cluster.postgres`
 * (or TILLER_CLUSTER_URL) is set. A request is committed to PostgreSQL before its ack, whichever node got it;
 * the node that claims the run executes it through its own session queue and engine (so a run here is the
 * same run as on a single node), with the session's transcript brought in from and written back to the
 * cluster's entries table; its bus events are written to the event log and replayed by every node whose
 * clients follow the session. The accepting node mirrors the run in its registry and answers its waiters when
 * the cluster records the end. Aborts and steering go through the run's row, to whichever node executes it.
 */
import { join } from "node:path";
import type { TillerConfig } from "../config/config-types.js";
import { turnPrompt } from "../queue/session-queue.js";
import { AUTH_PROFILES_FILE } from "../resilience/failover-extension.js";
import type { WaitResult } from "../run/run-registry.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import type { RunPlacement, SessionQueueState, SharedSessionPatch } from "../server/run-placement.js";
import type { SessionEntry, SessionStore } from "../store/session-store.js";
import { BUS_STREAM, BusReplayer, encodeBusEvent, ForwardingBus } from "./bus-replication.js";
import { ClusterApprovals } from "./cluster-approvals.js";
import { ClusterAuthProfileStore } from "./cluster-auth-profiles.js";
import { ClusterNode } from "./cluster-node.js";
import { TERMINAL } from "./run-queue.js";
import { TranscriptSync } from "./transcript-sync.js";
import { sleep } from "./transient-errors.js";
import type { ClusterRunContext, ClusterRunOutcome, ClusterRunRecord, SubmitResult } from "./types.js";

export interface ClusterPlacementOptions {
  url: string;
  config: TillerConfig;
  /** Stable node name (default host:pid:random). */
  nodeId?: string;
  log?: (line: string) => void;
}

interface Watch {
  /** Connections following the session plus runs accepted here and not ended. */
  count: number;
  sub: Promise<(() => void) | undefined>;
}

const EMPTY_RESULT: RunOutcome["result"] = {
  payloads: [],
  meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } },
};

export class ClusterPlacement implements RunPlacement {
  /** The bus the core must use: it also delivers the events of runs executing on other nodes. */
  readonly bus = new ForwardingBus();
  private node!: ClusterNode;
  private core: GatewayCore | undefined;
  private readonly attached: Promise<GatewayCore>;
  private resolveAttached: (core: GatewayCore) => void = () => {};
  private sync: TranscriptSync | undefined;
  private replayer: BusReplayer | undefined;
  /** Runs this node executes now, by cluster runId. */
  private readonly executing = new Map<string, ClusterRunContext>();
  private readonly watches = new Map<string, Watch>();
  /** Requests steered into a run (request runId → the run it joined), for abort by the request's id. */
  private readonly steeredInto = new Map<string, string>();
  /** Requests whose end this node takes from the ledger (accepted or executed here). */
  private readonly mirrored = new Set<string>();
  private readonly log: (line: string) => void;
  private closing = false;
  private profiles: ClusterAuthProfileStore | undefined;
  /** Pending approvals shared by every node (the core's approvals hub uses them instead of SQLite). */
  approvals!: ClusterApprovals;

  private constructor(options: ClusterPlacementOptions) {
    this.log = options.log ?? (() => {});
    this.attached = new Promise((resolve) => {
      this.resolveAttached = resolve;
    });
  }

  /** Connects, migrates and joins the cluster; runs claimed before `attach` wait for the core. */
  static async start(options: ClusterPlacementOptions): Promise<ClusterPlacement> {
    const p = new ClusterPlacement(options);
    const d = options.config.agents.defaults;
    p.node = await ClusterNode.start({
      url: options.url,
      nodeId: options.nodeId,
      laneCaps: { main: d.maxConcurrent, subagent: d.subagentMaxConcurrent, cron: d.cronMaxConcurrent },
      queueDefaults: options.config.messages.queue,
      maxLocalRuns: d.maxConcurrent + d.subagentMaxConcurrent + d.cronMaxConcurrent,
      executor: (run, ctx) => p.execute(run, ctx),
      log: p.log,
    });
    p.replayer = new BusReplayer(p.node.nodeId, p.bus);
    p.approvals = await ClusterApprovals.start(p.node, { log: p.log }).catch(async (err: unknown) => {
      await p.node.close({ abortRuns: true }).catch(() => {});
      throw err;
    });
    return p;
  }

  get nodeId(): string {
    return this.node.nodeId;
  }

  /** The cluster node (ledger, sessions, transcripts, auth usage) for the gateway's other parts. */
  get cluster(): ClusterNode {
    return this.node;
  }

  /** The node's auth profiles (keys from its own file) with cooldowns shared through the cluster. */
  authProfiles(home: string): ClusterAuthProfileStore {
    this.profiles ??= new ClusterAuthProfileStore(join(home, AUTH_PROFILES_FILE), this.node, this.log);
    return this.profiles;
  }

  /** The placement factory for GatewayCore. */
  attach(core: GatewayCore): RunPlacement {
    this.core = core;
    this.sync = new TranscriptSync(core.store, this.node.transcripts);
    core.bus.subscribe((ev) => {
      const ctx = this.executing.get(ev.payload.runId);
      if (ctx) ctx.emit(BUS_STREAM, encodeBusEvent(this.node.nodeId, ev));
    });
    this.resolveAttached(core);
    return this;
  }

  private get theCore(): GatewayCore {
    if (!this.core) throw new Error("cluster placement used before the gateway core attached");
    return this.core;
  }

  async submit(req: RunRequest, ack?: () => void): Promise<boolean> {
    const core = this.theCore;
    // The shared row decides (sessions.patch on any node), the node's own copy follows it.
    const shared = await this.node.sessions.get(req.sessionKey);
    if (shared) mirrorSession(core.store, shared);
    // The tail starts before the commit, so a client of this node misses no event of the run.
    this.watch(req.sessionKey);
    const sub = this.watches.get(req.sessionKey)?.sub;
    await sub;
    // The queue policy (mode, this message's own mode, cap, drop) is applied in the accept's transaction.
    let accepted: SubmitResult;
    try {
      accepted = await this.node.submit({
        runId: req.runId,
        sessionKey: req.sessionKey,
        agentId: req.agentId,
        message: req.message,
        ...(req.lane ? { lane: req.lane } : {}),
        ...(req.queueMode ? { queueMode: req.queueMode } : {}),
        params: { request: req },
      });
    } catch (err) {
      this.unwatch(req.sessionKey);
      throw err;
    }
    ack?.();
    if (!shared) {
      const fresh = await this.node.sessions.get(req.sessionKey).catch(() => undefined);
      if (fresh) mirrorSession(core.store, fresh);
    }
    // Steered: a steering input of the session's active run, answered with that run's end.
    const answeredBy = accepted.disposition === "steered" ? accepted.run.runId : req.runId;
    if (answeredBy !== req.runId) this.steeredInto.set(req.runId, answeredBy);
    this.mirror(req, answeredBy, () => this.unwatch(req.sessionKey));
    return accepted.created;
  }

  /** Registers `req` here and finishes it with the end of cluster run `runId`, wherever that executes. */
  private mirror(req: RunRequest, runId: string, after?: () => void): void {
    const core = this.theCore;
    if (!core.runs.get(req.runId)) core.runs.accept(req);
    if (this.mirrored.has(req.runId)) {
      after?.();
      return;
    }
    this.mirrored.add(req.runId);
    void (async () => {
      try {
        while (!this.closing) {
          let rec: ClusterRunRecord | undefined;
          try {
            rec = await this.node.wait(runId, 60_000);
          } catch {
            await sleep(500); // the database is away; the wait resumes
            continue;
          }
          if (!rec) return;
          if (TERMINAL.has(rec.status)) {
            core.runs.finish(req.runId, outcomeOf(rec));
            return;
          }
        }
      } finally {
        this.mirrored.delete(req.runId);
        after?.();
      }
    })();
  }

  async wait(runId: string, timeoutMs: number): Promise<WaitResult> {
    const core = this.theCore;
    const local = core.runs.get(runId);
    if (local?.outcome || this.steeredInto.has(runId)) return core.runs.wait(runId, timeoutMs);
    let rec: ClusterRunRecord | undefined;
    try {
      rec = await this.node.wait(runId, timeoutMs);
    } catch {
      return core.runs.wait(runId, timeoutMs);
    }
    if (!rec) return core.runs.wait(runId, timeoutMs);
    if (!TERMINAL.has(rec.status))
      return { runId, status: "timeout", ...(rec.startedAt ? { startedAt: rec.startedAt } : {}) };
    return {
      runId,
      status: rec.status === "ok" ? "ok" : rec.status === "timeout" ? "timeout" : "error",
      ...(rec.startedAt ? { startedAt: rec.startedAt } : {}),
      ...(rec.endedAt ? { endedAt: rec.endedAt } : {}),
      ...(rec.status !== "ok" && (rec.error || rec.summary) ? { error: rec.error ?? rec.summary } : {}),
      ...(rec.status === "interrupted" ? { interrupted: true } : {}),
    };
  }

  async abort(sessionKey: string, runId?: string): Promise<string[]> {
    const target = runId ? (this.steeredInto.get(runId) ?? runId) : undefined;
    // Without a runId: the session's active turn, running or still waiting for a lane slot (as a single node).
    const chosen = target
      ? (await this.node.queue.activeForSession(sessionKey)).filter((r) => r.runId === target).map((r) => r.runId)
      : [await this.node.queue.activeRun(sessionKey, this.theCore.config.messages.queue)].filter(
          (id): id is string => id !== undefined,
        );
    const ids: string[] = [];
    for (const id of chosen) if (await this.node.abort(id)) ids.push(id);
    return ids;
  }

  queueState(sessionKeys: string[]): Promise<Map<string, SessionQueueState>> {
    return this.node.queue.queueStates(sessionKeys, this.theCore.config.messages.queue);
  }

  async listSessions(limit: number, offset: number): Promise<{ sessions: SessionEntry[]; count: number }> {
    const [sessions, count] = await Promise.all([this.node.sessions.list(limit, offset), this.node.sessions.count()]);
    return { sessions, count };
  }

  async sessionPatched(sessionKey: string, agentId: string, patch: SharedSessionPatch): Promise<void> {
    await this.node.sessions.ensure(sessionKey, agentId);
    await this.node.sessions.patch(sessionKey, patch);
  }

  async sessionReset(sessionKey: string, sessionId: string): Promise<void> {
    await this.node.sessions.reset(sessionKey, sessionId);
  }

  watchSession(sessionKey: string, watching: boolean): void {
    if (watching) this.watch(sessionKey);
    else this.unwatch(sessionKey);
  }

  private watch(sessionKey: string): void {
    const w = this.watches.get(sessionKey);
    if (w) {
      w.count++;
      return;
    }
    const sub = this.node
      .subscribe(sessionKey, (e) => this.replayer?.handle(e))
      .catch((err: unknown) => {
        this.log(`[cluster] cannot follow ${sessionKey}: ${(err as Error).message}`);
        return undefined;
      });
    this.watches.set(sessionKey, { count: 1, sub });
  }

  private unwatch(sessionKey: string): void {
    const w = this.watches.get(sessionKey);
    if (!w || --w.count > 0) return;
    this.watches.delete(sessionKey);
    void w.sub.then((off) => off?.());
  }

  /** Executes a claimed run through this node's session queue and engine. */
  private async execute(run: ClusterRunRecord, ctx: ClusterRunContext): Promise<ClusterRunOutcome> {
    const core = await this.attached;
    const sync = this.sync as TranscriptSync;
    const first = requestOf(run);
    // collect and summarize: the queued runs claimed with this one are one turn, its prompt built as on a single
    // node (summaries of the dropped, then the merged messages); they end with this run's end (RunQueue.finish),
    // which answers their waiters on every node.
    const all = [run, ...(run.merged ?? [])];
    const req: RunRequest =
      all.length > 1 || run.summarized
        ? {
            ...first,
            message: turnPrompt(
              all.filter((r) => !r.summarized).map(requestOf),
              all.filter((r) => r.summarized).map(requestOf),
            ),
          }
        : first;
    const session = await this.node.sessions.ensure(req.sessionKey, req.agentId);
    await sync.hydrate(req.sessionKey, req.agentId, session.sessionId);
    mirrorSession(core.store, session); // the session's model, thinking, verbose overrides apply to this run
    this.executing.set(run.runId, ctx);
    try {
      // The run's answer is what the ledger records (a node fenced before recording its end: interrupted).
      this.mirror(req, req.runId);
      const done = new Promise<RunOutcome>((resolve) => core.runs.hold(req.runId, resolve));
      core.queues.submit(req);
      const turn = core.queues.active(req.sessionKey);
      let steers = 0;
      // A steer the run cannot take becomes the session's next run in the cluster's queue (never lost, and never
      // a run of this node's own queue, which would run outside the cluster's order and locks).
      const requeue = (steer: RunRequest): void => {
        this.node
          .submit(
            {
              ...run.request,
              runId: steer.runId,
              message: steer.message,
              queueMode: "followup",
              params: { request: steer },
            },
            { followupUncapped: true },
          )
          .catch((err: unknown) => this.log(`[cluster] steer of ${run.runId} not queued: ${(err as Error).message}`));
      };
      ctx.onSteer((message) => {
        const steer: RunRequest = { ...req, runId: `${req.runId}:steer:${++steers}`, message, acceptedAt: Date.now() };
        if (!turn?.steer(steer)) requeue(steer); // past the point of taking input
      });
      const onAbort = (): void => void core.queues.abort(req.sessionKey, req.runId);
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener("abort", onAbort, { once: true });
      const outcome = await done;
      // Steered in, but the loop ended before it took them: this node's queue has just queued them as its next
      // turn (a single node runs them next); taken out there, they go to the cluster's queue instead.
      for (const late of turn?.unreached ?? []) {
        core.queues.abort(req.sessionKey, late.runId);
        requeue(late);
      }
      const usage = outcome.result.meta.agentMeta.usage;
      if (usage) {
        // The shared index counts what the run used, as the node's own store did.
        await this.node.sessions
          .addUsage(req.sessionKey, {
            input: usage.input,
            output: usage.output,
            total: usage.total,
            context: core.store.get(req.sessionKey)?.contextTokens ?? 0,
          })
          .catch(() => {}); // counters only: the run's end matters more
      }
      try {
        await sync.writeBack(req.sessionKey);
      } catch (err) {
        this.log(`[cluster] run ${run.runId}: transcript not written back: ${(err as Error).message}`);
      }
      return { status: outcome.status, summary: outcome.summary, error: outcome.error, result: { outcome } };
    } finally {
      this.executing.delete(run.runId);
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.profiles?.close();
    this.approvals.close();
    await this.node.close({ abortRuns: true });
  }
}

/** The request a cluster run carries (the accepting node's whole RunRequest, or one made from the row). */
function requestOf(run: ClusterRunRecord): RunRequest {
  const stored = run.request.params?.request as RunRequest | undefined;
  return (
    stored ?? {
      runId: run.runId,
      sessionKey: run.sessionKey,
      agentId: run.request.agentId,
      message: run.request.message,
      acceptedAt: run.acceptedAt,
      source: "agent",
    }
  );
}

/** This node's copy of a session takes the shared row's id and overrides (cleared ones included). */
function mirrorSession(store: SessionStore, s: SessionEntry): void {
  store.adopt(s.key, s.agentId, s.sessionId);
  store.patch(s.key, {
    label: s.label ?? null,
    model: s.model ?? null,
    thinking: s.thinking ?? null,
    verbose: s.verbose ?? null,
    queueMode: s.queueMode ?? null,
    queueDebounceMs: s.queueDebounceMs ?? null,
    queueCap: s.queueCap ?? null,
    queueDrop: s.queueDrop ?? null,
  });
}

/** The outcome recorded by the executing node, or one made from the ledger row (interrupted, aborted queued). */
function outcomeOf(rec: ClusterRunRecord): RunOutcome {
  const recorded = (rec.result as { outcome?: RunOutcome } | undefined)?.outcome;
  if (recorded) return recorded;
  const now = Date.now();
  const status =
    rec.status === "interrupted" || rec.status === "queued" || rec.status === "running" ? "error" : rec.status;
  return {
    status,
    summary: rec.summary ?? rec.status,
    ...(rec.error || status !== "ok" ? { error: rec.error ?? rec.summary ?? rec.status } : {}),
    startedAt: rec.startedAt ?? rec.acceptedAt,
    endedAt: rec.endedAt ?? now,
    result: EMPTY_RESULT,
  };
}
