/**
 * Executes one turn: resolve model/thinking/verbose defaults, skills, system prompt, open the session
 * (taking its write lock), bridge its events, enforce the timeout by aborting, and build the outcome.
 * `execute` never throws: every failure becomes an `error` outcome, and it always returns within a short
 * grace after an abort even if the engine ignores it, so the lanes it holds are released.
 */
import { randomUUID } from "node:crypto";
import { createEmptyUsage, streamSimple } from "@tiller/ai";
import type { TillerConfig } from "../config/config-types.js";
import type { ModelRegistry } from "../config/models-config.js";
import type { SessionEntry, SessionStore } from "../store/session-store.js";
import { createToolSessionFactory } from "../tools/tool-engine.js";
import type { EmbeddedSession, SessionFactory } from "./embedded-session.js";
import { EventBridge } from "./event-bridge.js";
import type { EventBus } from "./event-bus.js";
import { buildPayloads } from "./reply-payloads.js";
import type { ModelCall, ReplyPayload, RunContext, RunExtension, RunOutcome, RunRequest } from "./run-types.js";
import { runEngine } from "./stages/engine-stage.js";
import { runOutcome } from "./stages/outcome-stage.js";
import { persistRunUsage } from "./stages/persist-stage.js";
import { Turn } from "./turn.js";

export { ABORT_GRACE_MS } from "./stages/engine-stage.js";

export interface RunnerDeps {
  config: TillerConfig;
  models: ModelRegistry;
  store: SessionStore;
  bus: EventBus;
  /** Opens the engine session; default: the coding agent's AgentSession (see tools/tool-engine). */
  sessionFactory?: SessionFactory;
  /** The raw model call; default `streamSimple` from @tiller/ai. */
  modelCall?: ModelCall;
  extensions?: RunExtension[];
}

export class AgentRunner {
  readonly extensions: RunExtension[];
  private readonly factory: SessionFactory;
  private readonly modelCall: ModelCall;

  constructor(private readonly deps: RunnerDeps) {
    this.extensions = deps.extensions ?? [];
    this.modelCall = deps.modelCall ?? streamSimple;
    // Default engine: the coding agent's AgentSession (agent loop, retries, compaction) over the session's
    // transcript, with the tools a prompt extension put in the run's state (none without one).
    this.factory =
      deps.sessionFactory ??
      createToolSessionFactory({
        transcriptDir: (agentId) => deps.store.transcriptDir(agentId),
        models: () => deps.models.catalog,
      });
  }

  /** Adds an extension to every later run. */
  use(extension: RunExtension): void {
    this.extensions.push(extension);
  }

  async execute(turn: Turn): Promise<RunOutcome> {
    const { store } = this.deps;
    const req = turn.primary;
    const startedAt = Date.now();
    turn.started = true;
    for (const m of turn.members) store.runStarted(m.runId, m.sessionKey, startedAt);
    const session = store.ensure(req.sessionKey, req.agentId);
    const { ctx, resolved, agent, bridge } = this.context(turn, session, startedAt);
    bridge.lifecycle({ phase: "start", startedAt });

    let engine: EmbeddedSession | undefined;
    let timer: NodeJS.Timeout | undefined;
    let failure: string | undefined;
    let payloads: ReplyPayload[] = [];
    try {
      const wanted = req.model ?? session.model ?? agent?.model;
      if (wanted && !this.deps.models.resolve(wanted, req.provider)) {
        throw new Error(`unknown model "${wanted}" (see models.list)`);
      }
      if (!resolved) throw new Error("no model configured");
      for (const ext of this.extensions) await ext.resolveModel?.(ctx);
      bridge.lifecycle({
        phase: "model",
        provider: ctx.model.model.provider,
        model: ctx.model.model.id,
        thinking: ctx.thinking,
      });
      ctx.systemPrompt = defaultSystemPrompt(ctx);
      for (const ext of this.extensions) await ext.buildPrompt?.(ctx);
      for (const ext of this.extensions) if (ext.wrapModelCall) ctx.callModel = ext.wrapModelCall(ctx.callModel, ctx);

      timer = setTimeout(() => turn.abort("timeout"), Math.min(ctx.timeoutMs, 2 ** 31 - 1));
      timer.unref();
      if (turn.controller.signal.aborted) throw new Error("aborted before start");
      engine = await this.factory(ctx);
      if (engine.sessionFile && engine.sessionFile !== session.sessionFile) {
        store.setSessionFile(req.sessionKey, engine.sessionFile);
      }
      await runEngine(ctx, turn, engine, this.extensions, bridge);
      // The loop is over: what follows (reply shaping, persisting) is the run finishing.
      if (!turn.controller.signal.aborted) bridge.lifecycle({ phase: "finishing" });
      payloads = buildPayloads(ctx.newMessages);
      for (const ext of this.extensions) if (ext.shapeReply) payloads = await ext.shapeReply(ctx, payloads);
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    } finally {
      if (timer) clearTimeout(timer);
      try {
        engine?.dispose();
      } catch {
        // Releasing the lock must not turn a finished run into a failure.
      }
    }
    const outcome = runOutcome(ctx, turn, startedAt, payloads, failure);
    for (const ext of this.extensions) {
      try {
        await ext.onRunEnd?.(ctx, outcome);
      } catch {
        // Observers cannot change how the run ended.
      }
    }
    // Persisted before the end is announced: a client that reads the session on the final sees this run's tokens.
    persistRunUsage(store, ctx, session, outcome);
    bridge.end(outcome);
    return outcome;
  }

  /** The run's context with every default resolved (model, thinking, verbose, timeout, workspace). */
  private context(turn: Turn, session: SessionEntry, startedAt: number) {
    const { config, bus } = this.deps;
    const req = turn.primary;
    const bridge = new EventBridge({ runId: turn.runId, sessionKey: req.sessionKey }, bus);
    const agent = config.agents.list.find((a) => a.id === req.agentId);
    const resolved =
      this.deps.models.resolve(req.model ?? session.model ?? agent?.model, req.provider) ??
      this.deps.models.resolve(undefined);
    const timeoutMs = req.timeoutMs && req.timeoutMs > 0 ? req.timeoutMs : config.agents.defaults.timeoutSeconds * 1000;
    const ctx: RunContext = {
      runId: turn.runId,
      memberRunIds: turn.members.map((m) => m.runId),
      sessionKey: req.sessionKey,
      agentId: req.agentId,
      request: req,
      config,
      session,
      prompt: turn.prompt,
      model: resolved as NonNullable<typeof resolved>,
      thinking: req.thinking ?? session.thinking ?? config.agents.defaults.thinking,
      verbose: session.verbose ?? config.agents.defaults.verbose,
      timeoutMs,
      workspaceDir: agent?.workspace ?? config.agents.defaults.workspace,
      tools: [],
      skills: [],
      systemPrompt: "",
      callModel: this.modelCall,
      signal: turn.controller.signal,
      emit: (stream, data) => {
        bridge.emit(stream, data);
      },
      newMessages: [],
      usage: createEmptyUsage(),
      state: {},
      startedAt,
    };
    return { ctx, resolved, agent, bridge };
  }

  /**
   * sessions.compact: opens the session's engine through the same stages as a run and asks it to compact.
   * The caller holds the session lane. The engine's compaction events go out on the `compaction` stream.
   */
  async compact(entry: SessionEntry): Promise<{ compacted: boolean; tokensBefore?: number; reason?: string }> {
    const req: RunRequest = {
      runId: `compact:${randomUUID()}`,
      sessionKey: entry.key,
      agentId: entry.agentId,
      message: "",
      acceptedAt: Date.now(),
      source: "agent",
    };
    const turn = new Turn(req, [req], "");
    const { ctx, resolved, bridge } = this.context(turn, entry, Date.now());
    if (!resolved) return { compacted: false, reason: "no model configured" };
    for (const ext of this.extensions) await ext.resolveModel?.(ctx);
    ctx.systemPrompt = defaultSystemPrompt(ctx);
    for (const ext of this.extensions) await ext.buildPrompt?.(ctx);
    for (const ext of this.extensions) if (ext.wrapModelCall) ctx.callModel = ext.wrapModelCall(ctx.callModel, ctx);
    const engine = await this.factory(ctx);
    const unsubscribe = engine.subscribe((event) => bridge.handle(event));
    try {
      if (!engine.compact) return { compacted: false, reason: "the session engine has no compaction" };
      let r: { compacted: boolean; tokensBefore?: number; reason?: string };
      try {
        r = await engine.compact();
      } catch (err) {
        // "Nothing to compact" and summarizer failures are answers, not gateway errors.
        return { compacted: false, reason: err instanceof Error ? err.message : String(err) };
      }
      if (r.compacted) this.deps.store.markCompacted(entry.key);
      return r;
    } finally {
      unsubscribe();
      engine.dispose();
      this.deps.bus.endRun(req.runId);
    }
  }

  /** A gateway command's answer (/status, /queue, /new…) on the run's streams, as a run would send it. */
  announceCommand(req: RunRequest, outcome: RunOutcome): void {
    new EventBridge({ runId: req.runId, sessionKey: req.sessionKey }, this.deps.bus).command(outcome);
  }
}

/** The base system prompt; prompt assembly (workspace files, skills, tools) replaces or extends it. */
export function defaultSystemPrompt(ctx: RunContext): string {
  const lines = [
    "You are a helpful assistant running inside the Tiller gateway.",
    `Current date: ${new Date(ctx.startedAt).toISOString().slice(0, 10)}.`,
    `Working directory: ${ctx.workspaceDir}`,
  ];
  if (ctx.request.extraSystemPrompt) lines.push("", ctx.request.extraSystemPrompt);
  return lines.join("\n");
}
