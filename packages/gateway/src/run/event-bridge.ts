/**
 * Bridges engine events to the `agent` streams (assistant, tool, compaction) and to `chat` deltas.
 * Cumulative text is kept as one growing string (appends are amortized O(1)); chat deltas are throttled so
 * a fast model does not flood UIs, and the last one is always flushed before the final.
 */
import type { AgentEvent } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import type { EngineEvent } from "./embedded-session.js";
import type { EventBus } from "./event-bus.js";
import type { RunContext } from "./run-types.js";

export const CHAT_DELTA_THROTTLE_MS = 150;

export class EventBridge {
  /** The reply text so far (assistant text of this run, turns separated by a blank line). */
  text = "";
  private lastChatAt = 0;
  private chatPending = false;
  private lastAssistantSeq = 0;
  /** Length of `text` when the last chat delta went out: the next one carries only what came after. */
  private chatSentLength = 0;
  private sawTextInMessage = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly bus: EventBus,
  ) {}

  /** Turns one engine event into wire events. `shapedDelta`: the text to stream for a text delta (reply shaping). */
  handle(event: EngineEvent, shapedDelta?: string): void {
    const ctx = this.ctx;
    switch (event.type) {
      case "message_start":
        if ((event.message as { role?: string }).role === "assistant") this.sawTextInMessage = false;
        return;
      case "message_end": {
        // The `usage` stream: the tokens of each model call, once it has answered.
        const m = event.message as Partial<AssistantMessage>;
        if (m.role !== "assistant" || !m.usage) return;
        const u = m.usage;
        ctx.emit("usage", {
          input: u.input,
          output: u.output,
          cacheRead: u.cacheRead,
          cacheWrite: u.cacheWrite,
          total: u.totalTokens,
          ...(m.provider ? { provider: m.provider } : {}),
          ...(m.model ? { model: m.model } : {}),
        });
        return;
      }
      case "message_update": {
        const e = (event as Extract<AgentEvent, { type: "message_update" }>).assistantMessageEvent;
        if (e.type !== "text_delta") return;
        const delta = shapedDelta ?? e.delta;
        if (delta.length === 0) return;
        if (!this.sawTextInMessage && this.text.length > 0) this.text += "\n\n";
        this.sawTextInMessage = true;
        this.text += delta;
        this.lastAssistantSeq = this.bus.emitAgent(
          ctx.runId,
          ctx.sessionKey,
          "assistant",
          { text: this.text, delta },
          true,
        );
        const now = Date.now();
        if (now - this.lastChatAt >= CHAT_DELTA_THROTTLE_MS) {
          this.lastChatAt = now;
          this.chatPending = false;
          this.emitChatDelta(now);
        } else {
          this.chatPending = true;
        }
        return;
      }
      case "tool_execution_start":
        ctx.emit("tool", { phase: "start", name: event.toolName, toolCallId: event.toolCallId, args: event.args });
        return;
      case "tool_execution_update":
        ctx.emit("tool", {
          phase: "update",
          name: event.toolName,
          toolCallId: event.toolCallId,
          partialResult: event.partialResult,
        });
        return;
      case "tool_execution_end":
        ctx.emit("tool", {
          phase: "result",
          name: event.toolName,
          toolCallId: event.toolCallId,
          isError: event.isError,
          result: event.result,
        });
        return;
      case "compaction_start":
        ctx.emit("compaction", { phase: "start", ...(event.reason ? { reason: event.reason } : {}) });
        return;
      case "compaction_end":
        ctx.emit("compaction", {
          phase: "end",
          willRetry: event.willRetry,
          completed: !event.aborted && !event.errorMessage,
          ...(event.errorMessage ? { error: event.errorMessage } : {}),
        });
        return;
      default:
        return;
    }
  }

  /** Sends the throttled-away last delta, if any (before the final). */
  flush(): void {
    if (this.chatPending) {
      this.chatPending = false;
      this.emitChatDelta(Date.now());
    }
  }

  private emitChatDelta(ts: number): void {
    const deltaText = this.text.slice(this.chatSentLength);
    this.chatSentLength = this.text.length;
    this.bus.emitChat(
      {
        runId: this.ctx.runId,
        sessionKey: this.ctx.sessionKey,
        seq: this.lastAssistantSeq,
        state: "delta",
        message: { role: "assistant", content: [{ type: "text", text: this.text }], timestamp: ts },
        deltaText,
      },
      true,
    );
  }
}
