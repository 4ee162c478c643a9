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
import { buildPayloads, lastAssistant, sumUsage } from "./reply-payloads.js";
import type { ModelCall, ReplyPayload, RunContext, RunExtension, RunOutcome, RunRequest } from "./run-types.js";
import { Turn } from "./turn.js";

/** How long an aborted engine gets to wind down before the runner stops waiting for it. */
export const ABORT_GRACE_MS = 5_000;

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
      createToolSessionFactory({ transcriptDir: (agentId) => deps.store.transcriptDir(agentId) });
  }

  /** Adds an extension to every later run. */
  use(extension: RunExtension): void {
    this.extensions.push(extension);
  }

  async execute(turn: Turn): Promise<RunOutcome> {
    const { store, bus } = this.deps;
    const req = turn.primary;
    const startedAt = Date.now();
    turn.started = true;
    for (const m of turn.members) store.runStarted(m.runId, m.sessionKey, startedAt);
    const session = store.ensure(req.sessionKey, req.agentId);
    const { ctx, resolved, agent } = this.context(turn, session, startedAt);
    ctx.emit("lifecycle", { phase: "start", startedAt });

    const bridge = new EventBridge(ctx, bus);
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
      const unsubscribe = engine.subscribe((event) => {
        for (const ext of this.extensions) ext.onEngineEvent?.(ctx, event);
        bridge.handle(event);
      });
      const steered = turn.attach(engine);
      if (steered.length > 0) ctx.prompt = [ctx.prompt, ...steered].join("\n\n");
      try {
        await untilSettledOrAbandoned(engine.prompt(ctx.prompt, req.images), turn.controller.signal);
      } finally {
        turn.detach();
        unsubscribe();
      }
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
    bridge.flush();
    const outcome = this.outcome(ctx, turn, startedAt, payloads, failure);
    for (const ext of this.extensions) {
      try {
        await ext.onRunEnd?.(ctx, outcome);
      } catch {
        // Observers cannot change how the run ended.
      }
    }
    this.announceEnd(ctx, outcome, bridge.text);
    sumUsage(ctx.newMessages, ctx.usage);
    const last = lastAssistant(ctx.newMessages);
    store.addUsage(req.sessionKey, {
      input: ctx.usage.input,
      output: ctx.usage.output,
      total: ctx.usage.totalTokens,
      context: last ? last.usage.input + last.usage.cacheRead + last.usage.output : session.contextTokens,
    });
    outcome.result.meta.agentMeta.usage = {
      input: ctx.usage.input,
      output: ctx.usage.output,
      cacheRead: ctx.usage.cacheRead,
      cacheWrite: ctx.usage.cacheWrite,
      total: ctx.usage.totalTokens,
    };
    return outcome;
  }

  /** The run's context with every default resolved (model, thinking, verbose, timeout, workspace). */
  private context(turn: Turn, session: SessionEntry, startedAt: number) {
    const { config, bus } = this.deps;
    const req = turn.primary;
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
      skills: [],
      systemPrompt: "",
      callModel: this.modelCall,
      signal: turn.controller.signal,
      emit: (stream, data) => {
        bus.emitAgent(turn.runId, req.sessionKey, stream, data);
      },
      newMessages: [],
      usage: createEmptyUsage(),
      state: {},
      startedAt,
    };
    return { ctx, resolved, agent };
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
    const { ctx, resolved } = this.context(turn, entry, Date.now());
    if (!resolved) return { compacted: false, reason: "no model configured" };
    for (const ext of this.extensions) await ext.resolveModel?.(ctx);
    ctx.systemPrompt = defaultSystemPrompt(ctx);
    for (const ext of this.extensions) await ext.buildPrompt?.(ctx);
    for (const ext of this.extensions) if (ext.wrapModelCall) ctx.callModel = ext.wrapModelCall(ctx.callModel, ctx);
    const engine = await this.factory(ctx);
    const bridge = new EventBridge(ctx, this.deps.bus);
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

  private outcome(
    ctx: RunContext,
    turn: Turn,
    startedAt: number,
    payloads: ReplyPayload[],
    failure: string | undefined,
  ): RunOutcome {
    const endedAt = Date.now();
    const last = lastAssistant(ctx.newMessages);
    ctx.abortReason = turn.abortReason;
    let status: RunOutcome["status"] = "ok";
    let summary = "completed";
    let error: string | undefined;
    if (turn.abortReason === "timeout") {
      status = "timeout";
      summary = "timeout";
      error = `run timed out after ${Math.round(ctx.timeoutMs / 1000)}s`;
    } else if (turn.abortReason) {
      status = "aborted";
      summary = "aborted";
      error = turn.abortReason === "shutdown" ? "gateway shutting down" : "aborted";
    } else if (failure) {
      status = "error";
      summary = failure;
      error = failure;
      payloads = [...payloads, { text: `⚠️ ${failure}`, isError: true, mediaUrl: null }];
    } else if (last?.stopReason === "error") {
      status = "error";
      error = last.errorMessage ?? "model error";
      summary = error;
    }
    return {
      status,
      summary,
      error,
      startedAt,
      endedAt,
      result: {
        payloads,
        meta: {
          durationMs: endedAt - startedAt,
          agentMeta: {
            sessionId: ctx.session.sessionId,
            provider: ctx.model?.model.provider ?? "",
            model: ctx.model?.model.id ?? "",
          },
          ...(last ? { stopReason: last.stopReason } : {}),
          ...(turn.abortReason ? { aborted: true } : {}),
        },
      },
    };
  }

  /** Lifecycle end/error plus the chat final (or aborted / error). */
  private announceEnd(ctx: RunContext, outcome: RunOutcome, text: string): void {
    const { bus } = this.deps;
    const endedAt = outcome.endedAt;
    let seq: number;
    if (outcome.status === "ok") {
      seq = bus.emitAgent(ctx.runId, ctx.sessionKey, "lifecycle", { phase: "end", endedAt });
    } else if (outcome.status === "aborted" || outcome.status === "timeout") {
      seq = bus.emitAgent(ctx.runId, ctx.sessionKey, "lifecycle", {
        phase: "end",
        endedAt,
        aborted: true,
        ...(outcome.status === "timeout" ? { timedOut: true } : {}),
      });
    } else {
      seq = bus.emitAgent(ctx.runId, ctx.sessionKey, "lifecycle", {
        phase: "error",
        error: outcome.error ?? "error",
        endedAt,
      });
    }
    const message = { role: "assistant" as const, content: [{ type: "text" as const, text }], timestamp: endedAt };
    if (outcome.status === "ok") {
      bus.emitChat({ runId: ctx.runId, sessionKey: ctx.sessionKey, seq, state: "final", message });
    } else if (outcome.status === "aborted") {
      bus.emitChat({ runId: ctx.runId, sessionKey: ctx.sessionKey, seq, state: "aborted", message });
    } else {
      bus.emitChat({
        runId: ctx.runId,
        sessionKey: ctx.sessionKey,
        seq,
        state: "error",
        message,
        errorMessage: outcome.error,
        errorKind: outcome.status === "timeout" ? "timeout" : "unknown",
      });
    }
    bus.endRun(ctx.runId);
  }
}

/** Waits for `p`; once `signal` aborts, waits at most ABORT_GRACE_MS more. */
function untilSettledOrAbandoned(p: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      grace = setTimeout(resolve, ABORT_GRACE_MS);
      grace.unref();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      () => {
        if (grace) clearTimeout(grace);
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (err: unknown) => {
        if (grace) clearTimeout(grace);
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
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
