/**
 * The gateway's built-in engine: a conversation over the coding agent's SessionManager (JSONL transcript
 * with its writer lock) and the run's model call. One model turn per prompt plus one per steering message;
 * no tools. Each finished message is appended (one write per entry), so a killed gateway loses no completed turn.
 */
import { mkdirSync } from "node:fs";
import type { AgentEvent, AgentMessage } from "@tiller/agent";
import type { AssistantMessage, ImageContent, UserMessage } from "@tiller/ai";
import { convertToLlm, SessionManager, type TillerEventsOption } from "@tiller/coding-agent";
import type {
  AgentSessionEvent,
  EmbeddedSession,
  SessionFactory,
} from "../packages/gateway/src/run/embedded-session.js";
import type { RunContext } from "../packages/gateway/src/run/run-types.js";

export class BasicSession implements EmbeddedSession {
  private readonly listeners = new Set<(e: AgentSessionEvent) => void>();
  private readonly steering: string[] = [];
  private controller: AbortController | undefined;
  private history: AgentMessage[];
  private disposed = false;
  private running = false;

  private constructor(
    private readonly sm: SessionManager,
    private readonly ctx: RunContext,
  ) {
    this.history = sm.buildSessionContext().messages;
  }

  /** Opens (or creates) the transcript of `ctx.session`, taking its write lock. */
  static open(ctx: RunContext, sessionDir: string): BasicSession {
    mkdirSync(sessionDir, { recursive: true });
    const file = ctx.session.sessionFile;
    let sm: SessionManager;
    if (file) {
      try {
        sm = SessionManager.open(file, { sessionDir, cwdOverride: ctx.workspaceDir, onWarning: () => {} });
      } catch (err) {
        // A transcript that was never written (no entry yet) does not exist: start it under the same id.
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        sm = SessionManager.create(ctx.workspaceDir, { sessionDir });
        sm.newSession({ id: ctx.session.sessionId });
      }
    } else {
      sm = SessionManager.create(ctx.workspaceDir, { sessionDir });
      sm.newSession({ id: ctx.session.sessionId });
    }
    return new BasicSession(sm, ctx);
  }

  get sessionId(): string {
    return this.sm.getSessionId();
  }

  get sessionFile(): string | undefined {
    return this.sm.getSessionFile();
  }

  get messages(): AgentMessage[] {
    return this.history;
  }

  get isStreaming(): boolean {
    return this.running;
  }

  /** Every event it emits (it has no approvals: the option of AgentSession's form is accepted and changes nothing). */
  subscribe(listener: (e: AgentSessionEvent) => void, _options?: TillerEventsOption): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  steer(text: string): Promise<void> {
    this.steering.push(text);
    return Promise.resolve();
  }

  clearQueue(): { steering: string[]; followUp: string[] } {
    return { steering: this.steering.splice(0), followUp: [] };
  }

  async abort(): Promise<void> {
    this.controller?.abort();
  }

  async prompt(text: string, options: { images?: ImageContent[] } = {}): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const images = options.images;
    this.running = true;
    try {
      this.emit({ type: "agent_start" });
      let next: string | undefined = text;
      let firstImages = images;
      while (next !== undefined && !controller.signal.aborted) {
        this.append(userMessage(next, firstImages));
        firstImages = undefined;
        const reply = await this.turn(controller.signal);
        if (reply.stopReason === "error" || reply.stopReason === "aborted") break;
        // Checked and closed in one synchronous step, so a steer either lands here or is refused.
        next = this.steering.length > 0 ? this.steering.splice(0).join("\n\n") : undefined;
      }
      this.running = false;
      this.emit({ type: "agent_end", messages: this.ctx.newMessages.slice() });
    } finally {
      this.running = false;
      this.controller = undefined;
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.sm.close();
  }

  private async turn(signal: AbortSignal): Promise<AssistantMessage> {
    const ctx = this.ctx;
    this.emit({ type: "turn_start" });
    const stream = ctx.callModel(
      ctx.model.model,
      { systemPrompt: ctx.systemPrompt, messages: convertToLlm(this.history) },
      {
        signal,
        apiKey: ctx.model.apiKey,
        sessionId: this.sm.getSessionId(),
        ...(ctx.thinking && ctx.thinking !== "off" ? { reasoning: ctx.thinking as "low" } : {}),
      },
    );
    let started = false;
    for await (const ev of stream) {
      if (ev.type === "start") {
        started = true;
        this.emit({ type: "message_start", message: ev.partial });
      } else if (ev.type !== "done" && ev.type !== "error") {
        this.emit({ type: "message_update", message: ev.partial, assistantMessageEvent: ev });
      }
    }
    const reply = await stream.result();
    if (!started) this.emit({ type: "message_start", message: reply });
    this.append(reply);
    // No fsync per turn: each append is already a write(2), which survives a killed process; close() fsyncs.
    // A synchronous fsync here would stall every other session on the event loop.
    this.emit({ type: "turn_end", message: reply, toolResults: [] });
    return reply;
  }

  private append(message: AgentMessage): void {
    this.history.push(message);
    this.sm.appendMessage(message);
    if (message.role !== "user") this.emit({ type: "message_end", message });
    else {
      this.emit({ type: "message_start", message });
      this.emit({ type: "message_end", message });
    }
  }

  private emit(event: AgentEvent): void {
    for (const l of this.listeners) l(event);
  }
}

/** A SessionFactory of BasicSessions (no tools): `transcriptDir` maps an agent id to its transcript folder. */
export function basicSessionFactory(transcriptDir: (agentId: string) => string): SessionFactory {
  return async (ctx) => BasicSession.open(ctx, transcriptDir(ctx.agentId));
}

function userMessage(text: string, images?: ImageContent[]): UserMessage {
  return { role: "user", content: [{ type: "text", text }, ...(images ?? [])], timestamp: Date.now() };
}
