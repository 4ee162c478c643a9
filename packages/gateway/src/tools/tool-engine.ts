/**
 * The gateway's tool-running engine: coding-agent's AgentSession (agent loop with tools, retries, compaction) over
 * the session's JSONL transcript, driven by the run's model call. The run's tools come from the gateway tool
 * pipeline (`ctx.tools`, filled by the shaping extension's tools stage). Tool results pass through the
 * synchronous `tool_result_persist` hook before they are written to the transcript.
 */
import { mkdirSync } from "node:fs";
import type { AgentEvent, AgentMessage, ApprovalDecision, ThinkingLevel, ToolCallsResume } from "@tiller/agent";
import type { ImageContent, ToolResultMessage } from "@tiller/ai";
import {
  type AgentSession,
  createAgentSession,
  type ModelRegistry as ModelCatalog,
  SessionManager,
  SettingsManager,
} from "@tiller/coding-agent";
import { rewindToBatch } from "../approvals/resume-branch.js";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { EmbeddedSession, EngineEvent, SessionFactory } from "../run/embedded-session.js";
import type { RunContext } from "../run/run-types.js";

export interface ToolEngineOptions {
  /** The directory of an agent's transcripts (the gateway session store's `transcriptDir`). */
  transcriptDir: (agentId: string) => string;
  hooks?: HookRunner;
  /** The gateway's model catalog (its one reader of models.json), shared by every run's session. */
  models?: () => ModelCatalog | undefined;
}

function openSessionManager(ctx: RunContext, sessionDir: string): SessionManager {
  mkdirSync(sessionDir, { recursive: true });
  const file = ctx.session.sessionFile;
  if (file) {
    try {
      return SessionManager.open(file, { sessionDir, cwdOverride: ctx.workspaceDir, onWarning: () => {} });
    } catch (err) {
      // A transcript that was never written does not exist yet: start it under the same id.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  const sm = SessionManager.create(ctx.workspaceDir, { sessionDir });
  sm.newSession({ id: ctx.session.sessionId });
  return sm;
}

class ToolSession implements EmbeddedSession {
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly unsubscribe: () => void;
  private disposed = false;

  constructor(
    private readonly session: AgentSession,
    private readonly ctx: RunContext,
    private readonly hooks?: HookRunner,
  ) {
    this.unsubscribe = session.subscribe((event) => {
      if (event.type === "message_end") ctx.newMessages.push(event.message);
      if (event.type === "compaction_start") {
        this.emit({ type: "compaction_start", reason: event.reason });
        return;
      }
      if (event.type === "compaction_end") {
        this.emit({
          type: "compaction_end",
          willRetry: event.willRetry,
          aborted: event.aborted,
          ...(event.errorMessage ? { errorMessage: event.errorMessage } : {}),
        });
        return;
      }
      if (isAgentEvent(event)) this.emit(event);
    });
  }

  get sessionId(): string {
    return this.session.sessionId;
  }
  get sessionFile(): string | undefined {
    return this.session.sessionFile;
  }
  get messages(): readonly AgentMessage[] {
    return this.session.messages;
  }

  subscribe(listener: (e: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async prompt(text: string, images?: ImageContent[]): Promise<void> {
    const onAbort = (): void => void this.session.abort();
    this.ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.session.prompt(text, images?.length ? { images } : {});
    } finally {
      this.ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  resolveApproval(id: string, decision: ApprovalDecision, options?: { by?: string; reason?: string }): boolean {
    return this.session.agent.resolveApproval(id, decision, options);
  }

  async resumeToolCalls(resume: ToolCallsResume): Promise<void> {
    const onAbort = (): void => void this.session.abort();
    this.ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.session.resumeToolCalls(resume);
    } finally {
      this.ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  steer(text: string): boolean {
    if (!this.session.isStreaming) return false;
    this.session.steer(text);
    return true;
  }

  abort(): void {
    void this.session.abort();
  }

  async compact(): Promise<{ compacted: boolean; tokensBefore?: number; summary?: string }> {
    // A manual compaction: its events do not pass through run extensions, so the plugin hooks fire here.
    const hookCtx = { agentId: this.ctx.agentId, sessionKey: this.ctx.sessionKey, sessionId: this.sessionId };
    const messageCount = this.session.messages.length;
    await this.hooks?.runObserver("before_compaction", { messageCount, sessionFile: this.sessionFile }, hookCtx);
    const r = await this.session.compact();
    await this.hooks?.runObserver(
      "after_compaction",
      { messageCount: this.session.messages.length, tokenCount: r.tokensBefore, sessionFile: this.sessionFile },
      hookCtx,
    );
    return { compacted: true, tokensBefore: r.tokensBefore, summary: r.summary };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unsubscribe();
    this.session.dispose();
  }

  private emit(event: EngineEvent): void {
    for (const l of this.listeners) l(event);
  }
}

const AGENT_EVENT_TYPES = new Set([
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "tool_approval_request",
  "tool_approval_end",
]);

function isAgentEvent(e: { type: string }): e is AgentEvent {
  return AGENT_EVENT_TYPES.has(e.type);
}

/** A SessionFactory whose sessions run tools. */
export function createToolSessionFactory(options: ToolEngineOptions): SessionFactory {
  return async (ctx) => {
    const sm = openSessionManager(ctx, options.transcriptDir(ctx.agentId));
    if (ctx.request.resume) rewindToBatch(sm, ctx.request.resume);
    const hooks = options.hooks;
    if (hooks?.hasHooks("tool_result_persist")) {
      // The transcript gets the plugins' version of each tool result; the model already saw the original.
      const append = sm.appendMessage.bind(sm);
      const hookCtx = { agentId: ctx.agentId, sessionKey: ctx.sessionKey, runId: ctx.runId };
      sm.appendMessage = (message: AgentMessage): string => {
        if ((message as { role?: string }).role !== "toolResult") return append(message);
        const m = message as ToolResultMessage;
        return append(
          hooks.runToolResultPersist({ toolName: m.toolName, toolCallId: m.toolCallId, message: m }, hookCtx),
        );
      };
    }
    const tools = ctx.tools;
    // Retries and failover belong to the gateway's model-call layer; the session must not retry on top of it.
    const settings = SettingsManager.inMemory({
      retry: { enabled: false, maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
    });
    const modelRegistry = options.models?.();
    let created: Awaited<ReturnType<typeof createAgentSession>>;
    try {
      created = await createAgentSession({
        ...(modelRegistry ? { modelRegistry } : {}),
        cwd: ctx.workspaceDir,
        home: ctx.config.home,
        model: ctx.model.model,
        thinkingLevel: (ctx.thinking || "off") as ThinkingLevel,
        tools,
        systemPrompt: ctx.systemPrompt,
        sessionManager: sm,
        settingsManager: settings,
        streamFn: (model, context, opts) => ctx.callModel(model, context, { ...opts, apiKey: ctx.model.apiKey }),
      });
    } catch (err) {
      sm.close(); // the run fails, but its session file must not stay open (and locked) behind it
      throw err;
    }
    return new ToolSession(created.session, ctx, hooks);
  };
}
