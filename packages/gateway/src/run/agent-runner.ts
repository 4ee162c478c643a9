/**
 * Executes one turn through the run's stages, listed here in order:
 *   model (defaults, extensions, plugin model hooks) → workspace and sandbox → tools → prompt → claim →
 *   model call (failover, key rotation) → run (the AgentSession's loop; its events go through reply shaping and
 *   the extensions to the event bridge as they are) → reply payloads → outcome → persist (usage) → end.
 * `execute` never throws: every failure becomes an `error` outcome, and it always returns within a short grace
 * after an abort even if the engine ignores it, so the lanes it holds are released.
 */
import { randomUUID } from "node:crypto";
import { createEmptyUsage, streamSimple } from "@tiller/ai";
import type { TillerConfig } from "../config/config-types.js";
import type { ModelRegistry } from "../config/models-config.js";
import type { PreparedRunPrompt } from "../prompt/prepare-run-prompt.js";
import type { SessionEntry, SessionStore } from "../store/session-store.js";
import { createToolSessionFactory } from "../tools/tool-engine.js";
import type { AgentSessionEvent, EmbeddedSession, SessionFactory } from "./embedded-session.js";
import { EventBridge } from "./event-bridge.js";
import type { EventBus } from "./event-bus.js";
import { buildPayloads } from "./reply-payloads.js";
import type { ModelCall, RunContext, RunExtension, RunOutcome, RunRequest } from "./run-types.js";
import { claimedModelCall } from "./stages/claim-stage.js";
import { runEngine } from "./stages/engine-stage.js";
import { resolveRunModel } from "./stages/model-stage.js";
import { runOutcome } from "./stages/outcome-stage.js";
import { persistRunUsage } from "./stages/persist-stage.js";
import { hookContextOf, type RunPipeline, SkillsSnapshots } from "./stages/pipeline.js";
import { buildRunPrompt } from "./stages/prompt-stage.js";
import { RunReplyShaping } from "./stages/reply-stage.js";
import { buildRunTools } from "./stages/tools-stage.js";
import { resolveRunWorkspace } from "./stages/workspace-stage.js";
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
  /** The product stages' dependencies (plugins' hooks, tools, reply shaping); without: a bare run. */
  pipeline?: RunPipeline;
}

/** Whether the stages prepare a turn or a manual compaction (no inbound message: no model hooks, no claim). */
type Purpose = "turn" | "maintenance";

export class AgentRunner {
  readonly extensions: RunExtension[];
  private readonly factory: SessionFactory;
  private readonly modelCall: ModelCall;
  private readonly skills = new SkillsSnapshots();

  constructor(private readonly deps: RunnerDeps) {
    this.extensions = deps.extensions ?? [];
    this.modelCall = deps.modelCall ?? streamSimple;
    // Default engine: the coding agent's AgentSession (agent loop, retries, compaction) over the session's
    // transcript, with the tools of the tools stage (none without a pipeline).
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
    try {
      const wanted = req.model ?? session.model ?? agent?.model;
      if (wanted && !this.deps.models.resolve(wanted, req.provider)) {
        throw new Error(`unknown model "${wanted}" (see models.list)`);
      }
      if (!resolved) throw new Error("no model configured");
      await this.prepare(ctx, "turn", (c) =>
        bridge.lifecycle({
          phase: "model",
          provider: c.model.model.provider,
          model: c.model.model.id,
          thinking: c.thinking,
        }),
      );

      timer = setTimeout(() => turn.abort("timeout"), Math.min(ctx.timeoutMs, 2 ** 31 - 1));
      timer.unref();
      if (turn.controller.signal.aborted) throw new Error("aborted before start");
      engine = await this.factory(ctx);
      if (engine.sessionFile && engine.sessionFile !== session.sessionFile) {
        store.setSessionFile(req.sessionKey, engine.sessionFile);
      }
      if (turn.controller.signal.aborted) throw new Error("aborted before start");
      // Stage "run", with reply shaping on each event.
      const reply = this.deps.pipeline ? new RunReplyShaping(ctx, this.deps.pipeline.reply) : undefined;
      const opened = engine;
      await runEngine(ctx, turn, opened, (event) => this.dispatch(ctx, bridge, reply, opened, event));
      // The loop is over: what follows (reply shaping, persisting) is the run finishing.
      if (!turn.controller.signal.aborted) bridge.lifecycle({ phase: "finishing" });
      // Stage "reply payloads": the shaped text (or the assistant messages as they are), then the extensions'.
      ctx.payloads = reply ? reply.payloads() : buildPayloads(ctx.newMessages);
      for (const ext of this.extensions) if (ext.shapeReply) ctx.payloads = await ext.shapeReply(ctx, ctx.payloads);
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
    const outcome = runOutcome(ctx, turn, startedAt, ctx.payloads, failure);
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

  /**
   * The stages before the engine opens: model → workspace and sandbox → tools → prompt → claim → model call.
   * `onModel` is called once the model is fixed.
   */
  private async prepare(ctx: RunContext, purpose: Purpose, onModel?: (ctx: RunContext) => void): Promise<void> {
    const pipeline = this.deps.pipeline;
    // Stage "model".
    for (const ext of this.extensions) await ext.resolveModel?.(ctx);
    const legacyPrompt =
      pipeline && purpose === "turn"
        ? await resolveRunModel(ctx, { hooks: pipeline.hooks, models: this.deps.models, log: pipeline.log })
        : undefined;
    onModel?.(ctx);
    ctx.systemPrompt = defaultSystemPrompt(ctx);
    let prompt: PreparedRunPrompt | undefined;
    if (pipeline) {
      // Stages "workspace and sandbox" → "tools" → "prompt".
      const workspace = resolveRunWorkspace(ctx);
      const hookContext = hookContextOf(ctx);
      const skills = this.skills.of(ctx, workspace);
      ctx.skills = skills.skills.map((s) => ({ name: s.name, description: s.description }));
      const { hooks } = pipeline;
      const tools = pipeline.tools
        ? buildRunTools(ctx, {
            workspace,
            skills,
            gatewayTools: pipeline.gatewayTools?.(ctx, hookContext) ?? [],
            pluginTools: (await pipeline.extraTools?.()) ?? [],
            hooks,
            hookContext,
          })
        : [];
      for (const ext of this.extensions) ext.prepareTools?.(ctx);
      prompt = await buildRunPrompt(ctx, {
        workspace,
        skills,
        tools,
        hooks,
        internalHooks: pipeline.internalHooks,
        hookContext,
        legacyPrompt,
      });
    }
    // Stage "claim": an extension may answer the turn itself; then no model is called.
    if (prompt && purpose === "turn") {
      for (const ext of this.extensions) {
        const claim = await ext.claimTurn?.(ctx, prompt);
        if (!claim) continue;
        ctx.callModel = claimedModelCall(claim);
        return;
      }
    }
    // The model call, wrapped by failover and key rotation (and the other extensions').
    for (const ext of this.extensions) if (ext.wrapModelCall) ctx.callModel = ext.wrapModelCall(ctx.callModel, ctx);
  }

  /** One session event, as emitted: reply shaping, the extensions, then the bridge (with the cleaned delta). */
  private dispatch(
    ctx: RunContext,
    bridge: EventBridge,
    reply: RunReplyShaping | undefined,
    session: EmbeddedSession,
    event: AgentSessionEvent,
  ): void {
    const shaped = reply?.handle(event);
    for (const ext of this.extensions) ext.onAgentEvent?.(ctx, event, session);
    bridge.handle(event, shaped);
  }

  /** The run's context with every default resolved (model, thinking, verbose, timeout, workspace). */
  private context(turn: Turn, session: SessionEntry, startedAt: number) {
    const { config, bus } = this.deps;
    const req = turn.primary;
    const bridge = new EventBridge(
      { runId: turn.runId, sessionKey: req.sessionKey, answered: req.source === "agent" },
      bus,
    );
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
      payloads: [],
      usage: createEmptyUsage(),
      state: {},
      startedAt,
    };
    return { ctx, resolved, agent, bridge };
  }

  /**
   * sessions.compact: opens the session's engine through the same stages as a run and asks it to compact.
   * The caller holds the session lane. The engine's events take the run's path (the extensions see the
   * compaction, the bridge sends it on the `compaction` stream).
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
    await this.prepare(ctx, "maintenance");
    const engine = await this.factory(ctx);
    const unsubscribe = engine.subscribe((event) => this.dispatch(ctx, bridge, undefined, engine, event), {
      tillerEvents: true,
    });
    try {
      if (!engine.compact) return { compacted: false, reason: "the session engine has no compaction" };
      let r: { tokensBefore: number };
      try {
        r = await engine.compact();
      } catch (err) {
        // "Nothing to compact" and summarizer failures are answers, not gateway errors.
        return { compacted: false, reason: err instanceof Error ? err.message : String(err) };
      }
      this.deps.store.markCompacted(entry.key);
      return { compacted: true, tokensBefore: r.tokensBefore };
    } finally {
      unsubscribe();
      engine.dispose();
      this.deps.bus.endRun(req.runId);
    }
  }

  /** A gateway command's answer (/status, /queue, /new…) on the run's streams, as a run would send it. */
  announceCommand(req: RunRequest, outcome: RunOutcome): void {
    new EventBridge(
      { runId: req.runId, sessionKey: req.sessionKey, answered: req.source === "agent" },
      this.deps.bus,
    ).command(outcome);
  }
}

/** The base system prompt; the prompt stage (workspace files, skills, tools) replaces it. */
export function defaultSystemPrompt(ctx: RunContext): string {
  const lines = [
    "You are a helpful assistant running inside the Tiller gateway.",
    `Current date: ${new Date(ctx.startedAt).toISOString().slice(0, 10)}.`,
    `Working directory: ${ctx.workspaceDir}`,
  ];
  if (ctx.request.extraSystemPrompt) lines.push("", ctx.request.extraSystemPrompt);
  return lines.join("\n");
}
