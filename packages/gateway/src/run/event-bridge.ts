/**
 * The one place a run's events become wire payloads: the `agent` streams (lifecycle, assistant, tool, compaction,
 * usage, and the extensions' block / thinking streams) and the `chat` view (throttled deltas, final / aborted /
 * error). The runner, gateway commands and manual compaction all announce through it; nothing else shapes an
 * `agent` or `chat` payload. Cumulative text is one growing string (appends are amortized O(1)).
 *
 * The assistant stream is emitted twice (see `Audience` in event-bus.ts). Delta-only clients get every burst — the
 * text deltas of one event-loop turn (one provider read) as one event, at most MAX_BURST_CHARS long — with the
 * delta alone. Reference-protocol
 * clients get the text coalesced: the first piece at once, then an event when the unsent text is at least as long
 * as what they already have, never more often than every COARSE_TEXT_MS. So the cumulative text (the chat deltas'
 * `message`, and `text` for protocol-3 clients) adds up to at most about twice the reply, however long or slow the
 * run (bytes linear in its length; a time-based floor such as "at least every second" would make them grow with the
 * reply's length times its duration). The chat deltas go out with those. Any other event of the run flushes both
 * first, so order is kept; the end flushes the assistant stream and leaves the chat view to the final, which
 * carries the whole text. Which of these copies a connection receives is its `TextView` (BusEvent.jsonFor); the
 * cumulative copies are built only while a listener reads them (`EventBus.readsText`).
 */
import type { AgentEvent } from "@tiller/agent";
import { type AssistantMessage, PieceText } from "@tiller/ai";
import type { AgentStream, LifecycleData } from "../protocol/schema/events.js";
import type { AgentSessionEvent } from "./embedded-session.js";
import type { EventBus } from "./event-bus.js";
import type { RunOutcome } from "./run-types.js";

export const CHAT_DELTA_THROTTLE_MS = 150;
/** Reference-protocol clients get at most one assistant event (and chat delta) per this many ms. */
export const COARSE_TEXT_MS = CHAT_DELTA_THROTTLE_MS;
/**
 * A burst is sent once it holds this much text, even within one event-loop turn: under load a turn can take in
 * megabytes of a fast stream, and a frame must stay far below a connection's send-buffer bound
 * (`gateway.maxBufferedBytes`), or a client that reads is taken for one that stopped.
 */
export const MAX_BURST_CHARS = 64 * 1024;

/** Which run the events belong to. */
export interface RunAddress {
  readonly runId: string;
  readonly sessionKey: string;
  /**
   * The run was asked for with `agent`, whose final answer carries the reply's text: the `answer` view's chat
   * final may leave it out. Unset for `chat.send` and HTTP runs (their answer has no text).
   */
  readonly answered?: boolean;
}

export class EventBridge {
  /** The reply text so far as pieces, joined (into one flat string) only when it is read (see PieceText). */
  private parts = new PieceText();
  private textLength = 0;
  private lastCoarseAt = 0;
  /** Length of the text reference-protocol clients have; the rest goes out when due (the timer's). */
  private coarseSentLength = 0;
  private coarseTimer: NodeJS.Timeout | undefined;
  private lastAssistantSeq = 0;
  /** Length of the text when the last chat delta went out: the next one carries only what came after. */
  private chatSentLength = 0;
  private sawTextInMessage = false;
  /**
   * Text deltas of the current event-loop turn not sent yet (one `assistant` event at the turn's end). Kept for
   * the run, emptied at each send: an array made per burst and grown by `push` is promoted in every session.
   */
  private readonly pending = new PieceText();
  private flushScheduled = false;

  constructor(
    private readonly run: RunAddress,
    private readonly bus: EventBus,
  ) {}

  /** The reply text so far (assistant text of this run, turns separated by a blank line). */
  get text(): string {
    return this.parts.toString();
  }

  /** Emits one `agent` event of this run; returns its seq. Droppable: may be skipped for a slow client. */
  emit(stream: AgentStream, data: Record<string, unknown>, droppable = false): number {
    this.flushText();
    this.flushCoarse();
    return this.bus.emitAgent(this.run.runId, this.run.sessionKey, stream, data, droppable);
  }

  /** lifecycle start / model / finishing. */
  lifecycle(data: LifecycleData): void {
    this.emit("lifecycle", data);
  }

  compactionStart(reason?: string): void {
    this.emit("compaction", { phase: "start", ...(reason ? { reason } : {}) });
  }

  compactionEnd(o: { willRetry: boolean; completed: boolean; error?: string }): void {
    this.emit("compaction", { phase: "end", ...o });
  }

  /**
   * Turns one event of the run's AgentSession, as the session emitted it, into wire events. `shapedDelta`: the
   * text to stream for a text delta (reply shaping's cleaned text). Events without a wire form here (turn and
   * queue updates, approvals…) pass by untouched.
   */
  handle(event: AgentSessionEvent, shapedDelta?: string): void {
    switch (event.type) {
      case "message_start":
        if ((event.message as { role?: string }).role === "assistant") this.sawTextInMessage = false;
        return;
      case "message_end": {
        // The `usage` stream: the tokens of each model call, once it has answered.
        const m = event.message as Partial<AssistantMessage>;
        if (m.role !== "assistant" || !m.usage) return;
        const u = m.usage;
        this.emit("usage", {
          input: u.input,
          output: u.output,
          cacheRead: u.cacheRead,
          cacheWrite: u.cacheWrite,
          total: u.totalTokens,
          ...(u.cost ? { costUsd: u.cost.total } : {}),
          ...(m.provider ? { provider: m.provider } : {}),
          ...(m.model ? { model: m.model } : {}),
        });
        return;
      }
      case "message_update": {
        const e = (event as Extract<AgentEvent, { type: "message_update" }>).assistantMessageEvent;
        if (e.type !== "text_delta") return;
        this.appendText(shapedDelta ?? e.delta);
        return;
      }
      case "tool_execution_start":
        this.emit("tool", { phase: "start", name: event.toolName, toolCallId: event.toolCallId, args: event.args });
        return;
      case "tool_execution_update":
        this.emit("tool", {
          phase: "update",
          name: event.toolName,
          toolCallId: event.toolCallId,
          partialResult: event.partialResult,
        });
        return;
      case "tool_execution_end":
        this.emit("tool", {
          phase: "result",
          name: event.toolName,
          toolCallId: event.toolCallId,
          isError: event.isError,
          result: event.result,
        });
        return;
      case "compaction_start":
        this.compactionStart(event.reason);
        return;
      case "compaction_end":
        this.compactionEnd({
          willRetry: event.willRetry,
          completed: !event.aborted && !event.errorMessage,
          ...(event.errorMessage ? { error: event.errorMessage } : {}),
        });
        return;
      default:
        return;
    }
  }

  /**
   * The run's end: the throttled-away last chat delta, lifecycle end (with `aborted`, `timedOut`) or error, and
   * the chat final / aborted / error with the whole text. The run's seq counter is released.
   */
  end(outcome: RunOutcome): void {
    this.flushText();
    this.flushCoarse(true);
    const endedAt = outcome.endedAt;
    let seq: number;
    if (outcome.status === "ok") {
      seq = this.emit("lifecycle", { phase: "end", endedAt });
    } else if (outcome.status === "aborted" || outcome.status === "timeout") {
      seq = this.emit("lifecycle", {
        phase: "end",
        endedAt,
        aborted: true,
        ...(outcome.status === "timeout" ? { timedOut: true } : {}),
      });
    } else {
      seq = this.emit("lifecycle", { phase: "error", error: outcome.error ?? "error", endedAt });
    }
    const { runId, sessionKey } = this.run;
    const message = {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: this.finalText(outcome) }],
      timestamp: endedAt,
    };
    if (outcome.status === "ok") {
      const usage = outcome.result.meta.agentMeta.usage;
      this.bus.emitChat(
        { runId, sessionKey, seq, state: "final", message, ...(usage ? { usage } : {}) },
        false,
        this.run.answered === true,
      );
    } else if (outcome.status === "aborted") {
      this.bus.emitChat({ runId, sessionKey, seq, state: "aborted", message });
    } else {
      this.bus.emitChat({
        runId,
        sessionKey,
        seq,
        state: "error",
        message,
        errorMessage: outcome.error,
        errorKind: outcome.status === "timeout" ? "timeout" : "unknown",
      });
    }
    this.bus.endRun(runId);
  }

  /**
   * The whole text for the final. Usually a reply payload holds the same text, already one string (the shaper's,
   * itself the finished message's, see ReplyShaper): compared piece by piece, it is used instead of joining a
   * second copy of the reply.
   */
  private finalText(outcome: RunOutcome): string {
    for (const p of outcome.result.payloads) {
      if (typeof p.text === "string" && p.text.length === this.textLength && this.parts.equals(p.text)) return p.text;
    }
    return this.text;
  }

  /**
   * A gateway command's answer (/status, /queue, /new…) as a run sends it: lifecycle start, the reply text, then
   * the end, so event-driven clients show it.
   */
  command(outcome: RunOutcome): void {
    this.lifecycle({ phase: "start", startedAt: outcome.startedAt });
    const text = outcome.result.payloads.map((p) => p.text).join("\n\n");
    if (text) {
      this.parts = new PieceText();
      this.parts.append(text);
      this.textLength = this.coarseSentLength = this.chatSentLength = text.length;
      this.emit("assistant", { text, delta: text });
    }
    this.end(outcome);
  }

  private appendText(delta: string): void {
    if (delta.length === 0) return;
    if (!this.sawTextInMessage && this.textLength > 0) {
      this.flushText();
      this.flushCoarse();
      this.parts.append("\n\n");
      this.textLength += 2;
      // The assistant deltas join the messages without it (only `text` has it); chat's deltaText keeps it.
      this.coarseSentLength += 2;
    }
    this.sawTextInMessage = true;
    const first = this.textLength === 0;
    this.parts.append(delta);
    this.textLength += delta.length;
    this.pending.append(delta);
    // The run's first text goes out now: a provider read can carry hundreds of deltas, processed in one chain of
    // microtasks, and the time to the first token is what a user waits for.
    if (first || this.pending.length >= MAX_BURST_CHARS) {
      this.flushText();
      return;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flushText());
    }
  }

  /** Sends the burst of text deltas to delta-only clients, and to the others when the rate allows. */
  private flushText(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const delta = this.pending.take();
    this.bus.emitAgent(this.run.runId, this.run.sessionKey, "assistant", { delta }, true, "lite");
    this.scheduleCoarse();
  }

  /**
   * Sends the coalesced text when it has grown to what reference clients already have and the minimum gap has
   * passed (else arms the timer for the gap); until it has grown that far it waits for more text or the run's end.
   */
  private scheduleCoarse(): void {
    if (this.coarseTimer) return;
    if (this.textLength - this.coarseSentLength < this.coarseSentLength) return;
    const now = Date.now();
    const dueAt = this.lastCoarseAt + COARSE_TEXT_MS;
    if (now >= dueAt) {
      this.flushCoarse();
      return;
    }
    this.coarseTimer = setTimeout(() => this.flushCoarse(), dueAt - now);
  }

  /**
   * Sends the coalesced text to reference-protocol clients (cumulative text) and, unless the run is ending (its
   * final carries the whole text), the chat delta. When no listener reads the cumulative text now (no `chat` or
   * `snapshots` connection follows the session, no cluster relay: `EventBus.readsText`), the whole text is not
   * joined: the `answer` view's coalesced delta goes out alone, read from the pieces after what was sent, and the
   * chat delta, which only those readers receive, is left out (the next one sent carries `deltaText` from the
   * last one sent, so a client that connects mid-run can rebuild the text from its first chat delta).
   */
  private flushCoarse(ending = false): void {
    if (this.coarseTimer) {
      clearTimeout(this.coarseTimer);
      this.coarseTimer = undefined;
    }
    if (this.textLength === this.coarseSentLength) return;
    const now = Date.now();
    this.lastCoarseAt = now;
    if (!this.bus.readsText(this.run.sessionKey)) {
      const delta = this.parts.sliceFrom(this.coarseSentLength);
      this.coarseSentLength = this.textLength;
      this.lastAssistantSeq = this.bus.emitAgent(
        this.run.runId,
        this.run.sessionKey,
        "assistant",
        { delta },
        true,
        "full",
      );
      return;
    }
    const text = this.text;
    const delta = text.slice(this.coarseSentLength);
    this.coarseSentLength = text.length;
    this.lastAssistantSeq = this.bus.emitAgent(
      this.run.runId,
      this.run.sessionKey,
      "assistant",
      { text, delta },
      true,
      "full",
    );
    if (ending) this.chatSentLength = text.length;
    else this.emitChatDelta(text, now);
  }

  private emitChatDelta(text: string, ts: number): void {
    const deltaText = text.slice(this.chatSentLength);
    this.chatSentLength = text.length;
    this.bus.emitChat(
      {
        runId: this.run.runId,
        sessionKey: this.run.sessionKey,
        seq: this.lastAssistantSeq,
        state: "delta",
        message: { role: "assistant", content: [{ type: "text", text }], timestamp: ts },
        deltaText,
      },
      true,
    );
  }
}
