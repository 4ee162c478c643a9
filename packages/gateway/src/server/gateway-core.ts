/**
 * The gateway's in-process core, independent of the transport: configuration, model registry, session
 * store, lanes, event bus, run registry, session queues and the runner, wired together. Methods act on it;
 * the WebSocket server only moves frames.
 */

import { randomUUID } from "node:crypto";
import { createApprovalExtension } from "../approvals/approval-extension.js";
import { ApprovalHub } from "../approvals/approval-hub.js";
import type { SharedApprovals } from "../approvals/types.js";
import type { QueueSettings, TillerConfig } from "../config/config-types.js";
import { ModelRegistry } from "../config/models-config.js";
import { CommandLanes, sessionLane } from "../lanes/command-lanes.js";
import type { GatewayMcp } from "../mcp/gateway-mcp.js";
import type { GatewayShaping } from "../plugins/gateway-extensions.js";
import type { SessionsCompactResult } from "../protocol/schema/sessions.js";
import { SessionQueues } from "../queue/session-queue.js";
import type { AuthProfileStore } from "../resilience/auth-profile-store.js";
import { createFailoverExtension } from "../resilience/failover-extension.js";
import { AgentRunner, type RunnerDeps } from "../run/agent-runner.js";
import { EventBridge } from "../run/event-bridge.js";
import { EventBus } from "../run/event-bus.js";
import { RunRegistry } from "../run/run-registry.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import { type SessionEntry, SessionStore } from "../store/session-store.js";
import { logSessionWriters } from "../store/session-writers.js";
import { LocalPlacement, type RunPlacement, type RunPlacementFactory } from "./run-placement.js";

/** Compacts a session's transcript (summarize older history). Plugged in by the engine that supports it. */
export type SessionCompactor = (
  entry: SessionEntry,
  core: GatewayCore,
) => Promise<{ compacted: boolean; tokensBefore?: number; reason?: string }>;

export interface GatewayCoreOptions {
  config: TillerConfig;
  /** Defaults to ModelRegistry.load(config.home, agents.defaults.model). */
  models?: ModelRegistry;
  /** Replaces the engine or the model call (tests, embedding). */
  runner?: Pick<RunnerDeps, "sessionFactory" | "modelCall" | "extensions">;
  /** Diagnostics (provisional model failures); the server passes its log. */
  log?: (line: string) => void;
  /**
   * Plugins, hooks, prompt assembly, tools and reply shaping (loadGatewayShaping): its run extension and engine
   * are installed and it is given access to this core. Without it runs have no tools, prompt or plugins.
   */
  shaping?: GatewayShaping;
  /** Keys and their routing state (default: `<home>/auth-profiles.json`; a cluster shares the cooldowns). */
  authProfiles?: AuthProfileStore;
  /** The run event bus (default a plain one; a cluster passes one that also delivers other nodes' events). */
  bus?: EventBus;
  /** Where runs execute (default: this process's queues and lanes); the cluster plugs in here. */
  placement?: RunPlacementFactory;
  /** Pending approvals shared by a cluster's gateways (default: this home's SQLite store). */
  approvals?: SharedApprovals;
}

export class GatewayCore {
  readonly config: TillerConfig;
  readonly models: ModelRegistry;
  readonly store: SessionStore;
  readonly lanes = new CommandLanes();
  readonly bus: EventBus;
  readonly runs: RunRegistry;
  readonly runner: AgentRunner;
  readonly queues: SessionQueues;
  /** Tool calls waiting for a person's decision (approvals/), durable across restarts. */
  readonly approvals: ApprovalHub;
  readonly startedAt = Date.now();
  /** Replaces the default compaction (the engine's own `compact`, run in the session lane). */
  compactor: SessionCompactor | undefined;
  /** Runs marked interrupted at start-up (the previous process died while they ran). */
  readonly recovered: string[];
  private readonly log: ((line: string) => void) | undefined;
  /** MCP servers (set when the gateway's extensions attach); stopped by `shutdown`. */
  mcp: GatewayMcp | undefined;
  /** Plugins and hooks of this gateway (command hooks, gateway_stop), when it was built with them. */
  readonly shaping: GatewayShaping | undefined;
  /** Where runs execute: `submit`, `waitRun` and `abortRuns` forward to it. */
  readonly placement: RunPlacement;

  constructor(opts: GatewayCoreOptions) {
    this.config = opts.config;
    this.bus = opts.bus ?? new EventBus();
    this.models = opts.models ?? ModelRegistry.load(opts.config.home, opts.config.agents.defaults.model);
    this.store = new SessionStore(opts.config.home);
    this.recovered = this.store.markInterrupted().map((r) => r.runId);
    this.log = opts.log;
    logSessionWriters(opts.log, `start-up (${this.recovered.length} interrupted runs marked)`);
    this.runs = new RunRegistry(this.store);
    const d = opts.config.agents.defaults;
    this.lanes.setConcurrency("main", d.maxConcurrent);
    this.lanes.setConcurrency("subagent", d.subagentMaxConcurrent);
    this.lanes.setConcurrency("cron", d.cronMaxConcurrent);
    this.lanes.setConcurrency("nested", d.cronMaxConcurrent);
    // Failover wraps the raw model call first, so every other extension sees only the final answer.
    const failover = createFailoverExtension({
      config: opts.config,
      models: this.models,
      log: opts.log,
      ...(opts.authProfiles ? { store: opts.authProfiles } : {}),
    });
    this.shaping = opts.shaping;
    const shaped = opts.shaping?.runner;
    // The hub reaches the queues (built below) only when a decided approval resumes a run.
    this.approvals = new ApprovalHub({
      home: opts.config.home,
      runs: this.runs,
      bus: this.bus,
      queues: () => this.queues,
      ...(opts.approvals ? { shared: opts.approvals } : {}),
      log: opts.log,
    });
    this.runner = new AgentRunner({
      config: opts.config,
      models: this.models,
      store: this.store,
      bus: this.bus,
      ...(shaped?.sessionFactory ? { sessionFactory: shaped.sessionFactory } : {}),
      ...(shaped?.pipeline ? { pipeline: shaped.pipeline } : {}),
      ...opts.runner,
      // Approvals after the shaping extension: its tools stage has built the run's tools.
      extensions: [
        failover,
        ...(shaped?.extensions ?? []),
        createApprovalExtension(this.approvals, opts.log),
        ...(opts.runner?.extensions ?? []),
      ],
    });
    this.queues = new SessionQueues({
      lanes: this.lanes,
      execute: (turn) => this.runner.execute(turn),
      onStart: (turn) => {
        const now = Date.now();
        for (const m of turn.members) this.runs.started(m.runId, turn, now);
      },
      finish: (req, outcome) => {
        this.runs.finish(req.runId, outcome);
        logSessionWriters(opts.log, `run ${req.runId} ${outcome.status}`);
      },
      settings: (key) => this.queueSettings(key),
    });
    this.placement = opts.placement?.(this) ?? new LocalPlacement(this);
    opts.shaping?.attach(this);
    this.approvals.recover();
  }

  /** The queue settings of a session: its overrides over messages.queue. */
  queueSettings(sessionKey: string): QueueSettings {
    const base = this.config.messages.queue;
    const s = this.store.get(sessionKey);
    return {
      mode: s?.queueMode ?? base.mode,
      debounceMs: s?.queueDebounceMs ?? base.debounceMs,
      cap: s?.queueCap ?? base.cap,
      drop: s?.queueDrop ?? base.drop,
    };
  }

  /**
   * Accepts a request through the placement (see RunPlacement.submit: `ack` before any of its events; false:
   * a duplicate runId). Never rejects: a request that cannot be accepted is finished as an error run.
   */
  async submit(req: RunRequest, ack?: () => void): Promise<boolean> {
    try {
      return await this.placement.submit(req, ack);
    } catch (err) {
      const message = `not accepted: ${err instanceof Error ? err.message : String(err)}`;
      const now = Date.now();
      ack?.();
      this.runs.accept(req);
      this.runs.finish(req.runId, {
        status: "error",
        summary: message,
        error: message,
        startedAt: now,
        endedAt: now,
        result: { payloads: [], meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } } },
      });
      return false;
    }
  }

  /** agent.wait through the placement: the run's end wherever it executes. */
  waitRun(runId: string, timeoutMs: number) {
    return this.placement.wait(runId, timeoutMs);
  }

  /** chat.abort through the placement: the active run of a session (or `runId`) wherever it executes. */
  abortRuns(sessionKey: string, runId?: string): Promise<string[]> {
    return this.placement.abort(sessionKey, runId);
  }

  /** sessions.reset and /new: aborts the session's run (wherever it executes) and starts a new session id. */
  async resetSession(key: string): Promise<SessionEntry | undefined> {
    await this.abortRuns(key);
    const entry = this.store.reset(key);
    if (entry) await this.placement.sessionReset?.(key, entry.sessionId);
    return entry;
  }

  /** sessions.delete: aborts the session's run and forgets it; a later message starts a new session id. */
  async deleteSession(key: string): Promise<void> {
    await this.abortRuns(key);
    this.store.delete(key);
    await this.placement.sessionReset?.(key, randomUUID());
  }

  /** Accepts a request into this process's session queue (dedupe by runId). False: a duplicate. */
  submitLocal(req: RunRequest): boolean {
    if (!this.runs.accept(req)) return false;
    this.store.ensure(req.sessionKey, req.agentId);
    this.queues.submit(req);
    return true;
  }

  /** Records a gateway command's answer as a finished run and sends it on the run's streams. */
  finishCommand(req: RunRequest, outcome: RunOutcome): void {
    this.runs.accept(req);
    this.store.ensure(req.sessionKey, req.agentId);
    this.runner.announceCommand(req, outcome);
    this.runs.finish(req.runId, outcome);
  }

  /** sessions.compact: emits the compaction stream around the compactor and counts the compaction. */
  async compactSession(entry: SessionEntry): Promise<SessionsCompactResult> {
    if (!this.compactor) {
      // Through the session lane, so it never overlaps a run of the same session (its write lock).
      try {
        const r = await this.lanes.run(sessionLane(entry.key), () => this.runner.compact(entry));
        return { ok: true, key: entry.key, ...r };
      } finally {
        logSessionWriters(this.log, `compaction of ${entry.key}`);
      }
    }
    const runId = `compact:${entry.key}:${Date.now()}`;
    const events = new EventBridge({ runId, sessionKey: entry.key }, this.bus);
    events.compactionStart("manual");
    try {
      const r = await this.compactor(entry, this);
      if (r.compacted) this.store.markCompacted(entry.key);
      events.compactionEnd({ willRetry: false, completed: r.compacted });
      return { ok: true, key: entry.key, ...r };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      events.compactionEnd({ willRetry: false, completed: false, error: message });
      return { ok: false, key: entry.key, compacted: false, reason: message };
    } finally {
      this.bus.endRun(runId);
    }
  }

  /** Stops taking work, aborts every run, waits up to `graceMs` for them to end, closes the store. */
  async shutdown(graceMs = 3000): Promise<void> {
    // Approvals waiting now stay pending across the restart (the aborts below do not decide them).
    this.approvals.suspend();
    // Then the placement stops taking work (a cluster node stops claiming and aborts what it executes).
    await this.placement.close();
    this.queues.abortAll("shutdown");
    this.lanes.drain();
    const pending = this.runs.active().map((r) => this.runs.whenDone(r.request.runId));
    await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, graceMs).unref())]);
    await this.mcp?.stop();
    await this.approvals.close();
    this.store.close();
  }
}
