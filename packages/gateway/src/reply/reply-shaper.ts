/**
 * Turns a run's agent events into what the user sees. Per assistant message, text deltas go through the think-tag
 * stripper, then the directive parser; the cleaned text feeds the assistant stream and (with block streaming) the
 * block chunker. At the end of the run `finalize()` assembles the final payloads: reasoning (when shown), inline
 * tool summaries (verbose), assistant texts, model error text; then drops NO_REPLY, text a messaging tool already
 * sent, and text already sent as blocks; when nothing renders and a tool failed, a short tool-error reply is sent.
 */
import type { AgentEvent, AgentMessage } from "@tiller/agent";
import { type AssistantMessage, PieceText } from "@tiller/ai";
import { BlockChunker, type BreakPreference } from "./block-chunker.js";
import { ReplyDirectiveParser } from "./reply-directives.js";
import { ThinkTagStripper } from "./think-tag-stripper.js";

/** One outgoing reply (a block or a final payload). */
export interface ShapedPayload {
  text?: string;
  mediaUrls?: string[];
  audioAsVoice?: boolean;
  replyToId?: string;
  replyToCurrent?: boolean;
  /** Reasoning shown as its own reply (`reasoning: "on"`). */
  isReasoning?: boolean;
  /** A model error or the tool-error fallback. */
  isError?: boolean;
  /** An inline tool summary (verbose). */
  isToolSummary?: boolean;
}

/** Block streaming: when blocks are emitted (`text_end`: as the chunker fills; `message_end`: all at the end). */
export interface BlockStreamingOptions {
  minChars: number;
  maxChars: number;
  breakPreference?: BreakPreference;
  break: "text_end" | "message_end";
}

export interface ReplyShaperOptions {
  blockStreaming?: BlockStreamingOptions | false;
  /** `off`: hidden; `on`: a reasoning reply; `stream`: `onReasoningDelta`. */
  reasoning?: "off" | "on" | "stream";
  enforceFinalTag?: boolean;
  /** Inline tool summaries. */
  verbose?: boolean;
  /** Tools whose successful calls deliver text to the user (deduped from the reply). */
  messagingToolNames?: readonly string[];
  onAssistantDelta?: (e: { text: string; delta: string }) => void;
  onReasoningDelta?: (e: { text: string; delta: string }) => void;
  onBlockReply?: (payload: ShapedPayload) => void;
}

export const SILENT_REPLY_TOKEN = "NO_REPLY";
export const DEFAULT_MESSAGING_TOOLS = ["message", "sessions_send"];
const TOOL_ERROR_MAX_CHARS = 400;

/** True when the whole reply is the silent token (case-insensitive, surrounding whitespace ignored). */
export function isSilentReply(text: string): boolean {
  return text.trim().toUpperCase() === SILENT_REPLY_TOKEN;
}

function normalize(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

function textOfResult(result: unknown): string {
  if (typeof result === "string") return result;
  if (result instanceof Error) return result.message;
  if (result && typeof result === "object" && Array.isArray((result as { content?: unknown }).content)) {
    for (const c of (result as { content: { type: string; text?: string }[] }).content) {
      if (c.type === "text" && typeof c.text === "string") return c.text;
    }
  }
  return "";
}

/** A one-line summary of a tool call: `🔧 exec: ls -la`. */
export function summarizeToolCall(toolName: string, args: unknown): string {
  let detail = "";
  if (args && typeof args === "object") {
    const a = args as Record<string, unknown>;
    for (const key of ["command", "path", "file_path", "url", "query", "pattern", "to", "sessionKey"]) {
      if (typeof a[key] === "string" && a[key]) {
        detail = a[key] as string;
        break;
      }
    }
  }
  detail = detail.replace(/\s+/g, " ").trim();
  if (detail.length > 80) detail = `${detail.slice(0, 79)}…`;
  return detail ? `🔧 ${toolName}: ${detail}` : `🔧 ${toolName}`;
}

interface MessageState {
  stripper: ThinkTagStripper;
  directives: ReplyDirectiveParser;
  chunker?: BlockChunker;
  /** The message's visible text, as pieces joined when read (`messageText`). */
  text: PieceText;
  reasoning: string;
  started: boolean;
  /** Text held while the reply could still be the silent token. */
  held: string;
  holding: boolean;
  mediaSent: number;
  voiceSent: boolean;
  replySent: boolean;
  reasoningSent: boolean;
  blocks: number;
}

/** A message's visible text so far (joined once; later pieces are appended to the joined text). */
function messageText(m: MessageState): string {
  return m.text.toString();
}

/**
 * A finished message's visible text. When it is the model's text unchanged (no think tags, directives or held
 * text removed: the common case), the message's own string is used, compared piece by piece, instead of joining
 * a copy of the reply.
 */
function finishedText(m: MessageState, message: AssistantMessage | undefined): string {
  const blocks = message?.content.filter((b) => b.type === "text") ?? [];
  const own = blocks.length === 1 ? (blocks[0] as { text: string }).text : undefined;
  if (typeof own === "string" && own.length === m.text.length && m.text.equals(own)) return own;
  return messageText(m);
}

/** What `onAssistantDelta` gets: the cleaned delta, and the message's visible text so far when read. */
class AssistantDelta {
  constructor(
    readonly delta: string,
    private readonly m: MessageState,
  ) {}

  get text(): string {
    return messageText(this.m);
  }
}

interface FinishedText {
  text: string;
  streamedAsBlocks: boolean;
  mediaUrls: string[];
  audioAsVoice: boolean;
  replyToId?: string;
  replyToCurrent: boolean;
}

export class ReplyShaper {
  private readonly opts: ReplyShaperOptions;
  private readonly messagingTools: ReadonlySet<string>;
  private msg: MessageState | undefined;
  private texts: FinishedText[] = [];
  private reasonings: string[] = [];
  private toolSummaries: string[] = [];
  private lastToolError: { toolName: string; error: string } | undefined;
  private modelError: string | undefined;
  private readonly pendingSends = new Map<string, string>();
  private readonly sentTexts: string[] = [];
  private messagingSent = false;
  private blocksSent = 0;
  private textBlocksSent = 0;

  constructor(options: ReplyShaperOptions = {}) {
    this.opts = options;
    this.messagingTools = new Set(options.messagingToolNames ?? DEFAULT_MESSAGING_TOOLS);
  }

  /** Number of block replies delivered so far. */
  get blockRepliesSent(): number {
    return this.blocksSent;
  }

  /** Records text a messaging tool delivered (for tools that report outside the event stream). */
  recordMessagingSend(text: string): void {
    const n = normalize(text);
    if (n) this.sentTexts.push(n);
    this.messagingSent = true;
  }

  /** True when `text` repeats something a messaging tool already delivered. */
  isMessagingDuplicate(text: string): boolean {
    const n = normalize(text);
    if (!n) return false;
    return this.sentTexts.some(
      (s) => s === n || (Math.min(s.length, n.length) >= 10 && (s.includes(n) || n.includes(s))),
    );
  }

  handleEvent(event: AgentEvent): void {
    switch (event.type) {
      case "message_start":
        if (isAssistant(event.message)) this.startMessage();
        break;
      case "message_update": {
        if (!isAssistant(event.message)) break;
        const e = event.assistantMessageEvent;
        if (!this.msg) this.startMessage();
        if (e.type === "text_delta") this.onTextDelta(e.delta);
        else if (e.type === "text_end") this.onTextEnd();
        else if (e.type === "thinking_delta") this.addReasoning(e.delta);
        break;
      }
      case "message_end":
        if (isAssistant(event.message)) this.endMessage(event.message);
        break;
      case "tool_execution_start":
        this.onToolStart(event.toolCallId, event.toolName, event.args);
        break;
      case "tool_execution_end":
        this.onToolEnd(event.toolCallId, event.toolName, event.result, event.isError);
        break;
      default:
        break;
    }
  }

  /**
   * A compaction retry starts the attempt over: buffered text, finished texts, reasoning, tool summaries and the
   * last tool error of the failed attempt are dropped so nothing is sent twice. What was already delivered
   * (blocks, messaging-tool sends) stays recorded for dedup.
   */
  resetForRetry(): void {
    this.msg = undefined;
    this.texts = [];
    this.reasonings = [];
    this.toolSummaries = [];
    this.lastToolError = undefined;
    this.modelError = undefined;
    this.pendingSends.clear();
  }

  /** The final payloads of the run. */
  finalize(): ShapedPayload[] {
    if (this.msg) this.endMessage(undefined);
    const out: ShapedPayload[] = [];
    if (this.opts.reasoning === "on" && !this.opts.blockStreaming) {
      for (const r of this.reasonings) out.push({ text: r, isReasoning: true });
    }
    if (this.opts.verbose && !this.opts.blockStreaming) {
      for (const s of this.toolSummaries) out.push({ text: s, isToolSummary: true });
    }
    let renderable = 0;
    for (const t of this.texts) {
      if (t.streamedAsBlocks) continue;
      const payload: ShapedPayload = {};
      if (t.text && !isSilentReply(t.text) && !this.isMessagingDuplicate(t.text)) payload.text = t.text;
      if (t.mediaUrls.length > 0) payload.mediaUrls = t.mediaUrls;
      if (t.audioAsVoice) payload.audioAsVoice = true;
      if (t.replyToId) payload.replyToId = t.replyToId;
      if (t.replyToCurrent) payload.replyToCurrent = true;
      if (!payload.text && !payload.mediaUrls) continue;
      out.push(payload);
      renderable++;
    }
    if (this.modelError) {
      out.push({ text: `⚠️ ${this.modelError}`, isError: true });
      renderable++;
    }
    if (renderable === 0 && this.textBlocksSent === 0 && this.lastToolError && !this.messagingSent) {
      const { toolName, error } = this.lastToolError;
      out.push({ text: `⚠️ ${toolName} failed${error ? `: ${error}` : ""}`, isError: true });
    }
    return out;
  }

  private startMessage(): void {
    if (this.msg) this.endMessage(undefined);
    const bs = this.opts.blockStreaming;
    this.msg = {
      stripper: new ThinkTagStripper({ enforceFinalTag: this.opts.enforceFinalTag }),
      directives: new ReplyDirectiveParser(),
      chunker: bs ? new BlockChunker(bs) : undefined,
      text: new PieceText(),
      reasoning: "",
      started: false,
      held: "",
      holding: true,
      mediaSent: 0,
      voiceSent: false,
      replySent: false,
      reasoningSent: false,
      blocks: 0,
    };
  }

  private onTextDelta(delta: string): void {
    const m = this.msg as MessageState;
    const r = m.stripper.push(delta);
    if (r.reasoning) this.addReasoning(r.reasoning);
    if (r.text) this.addVisible(m.directives.push(r.text));
  }

  private onTextEnd(): void {
    const m = this.msg as MessageState;
    const r = m.stripper.flush();
    if (r.reasoning) this.addReasoning(r.reasoning);
    this.addVisible(m.directives.push(r.text) + m.directives.flush());
    // text_end mode: the end of a text part is a natural block boundary; message_end mode waits for the message.
    if (!m.holding && this.opts.blockStreaming && this.opts.blockStreaming.break === "text_end") this.drainBlocks(true);
  }

  private addReasoning(delta: string): void {
    const m = this.msg;
    if (!m || !delta) return;
    m.reasoning += delta;
    if (this.opts.reasoning === "stream") this.opts.onReasoningDelta?.({ text: m.reasoning, delta });
  }

  private addVisible(clean: string): void {
    const m = this.msg as MessageState;
    if (!clean) return;
    if (!m.started) {
      clean = clean.trimStart();
      if (!clean) return;
      m.started = true;
    }
    if (m.holding) {
      m.held += clean;
      const probe = m.held.trimEnd().toUpperCase();
      if (m.held.length <= 64 && SILENT_REPLY_TOKEN.startsWith(probe)) return;
      if (m.held.length <= 64 && probe === SILENT_REPLY_TOKEN) return;
      m.holding = false;
      clean = m.held;
      m.held = "";
    }
    this.emitVisible(clean);
  }

  private emitVisible(s: string): void {
    const m = this.msg as MessageState;
    m.text.append(s);
    // The text so far is joined only if the listener reads it; a class, not a literal with a getter, which would
    // cost a closure and an accessor pair per delta.
    if (this.opts.onAssistantDelta) this.opts.onAssistantDelta(new AssistantDelta(s, m));
    if (m.chunker) {
      m.chunker.append(s);
      if (this.opts.blockStreaming && this.opts.blockStreaming.break === "text_end") this.drainBlocks(false);
    }
  }

  /** Sends blocks that are ready (`flush`: everything buffered). */
  private drainBlocks(flush: boolean): void {
    const m = this.msg;
    if (!m?.chunker) return;
    for (const block of flush ? m.chunker.flush() : m.chunker.drain()) this.sendBlock(m, block);
  }

  private sendBlock(m: MessageState, text: string | undefined): void {
    const d = m.directives.directives;
    const payload: ShapedPayload = {};
    if (text && !this.isMessagingDuplicate(text)) payload.text = text;
    const media = d.mediaUrls.slice(m.mediaSent);
    if (media.length > 0) payload.mediaUrls = media;
    if (!payload.text && !payload.mediaUrls) return;
    m.mediaSent = d.mediaUrls.length;
    if (d.audioAsVoice && !m.voiceSent) payload.audioAsVoice = m.voiceSent = true;
    if (!m.replySent) {
      if (d.replyToId) payload.replyToId = d.replyToId;
      if (d.replyToCurrent) payload.replyToCurrent = true;
      m.replySent = true;
    }
    if (this.opts.reasoning === "on" && !m.reasoningSent && m.reasoning.trim()) {
      m.reasoningSent = true;
      this.deliverBlock({ text: m.reasoning.trim(), isReasoning: true });
    }
    m.blocks++;
    this.textBlocksSent++;
    this.deliverBlock(payload);
  }

  private deliverBlock(payload: ShapedPayload): void {
    this.blocksSent++;
    this.opts.onBlockReply?.(payload);
  }

  private endMessage(message: AssistantMessage | undefined): void {
    const m = this.msg;
    this.msg = undefined;
    if (message?.stopReason === "error" && message.errorMessage) this.modelError = message.errorMessage;
    if (!m) return;
    this.msg = m;
    const r = m.stripper.flush();
    if (r.reasoning) this.addReasoning(r.reasoning);
    const tail = m.directives.push(r.text) + m.directives.flush();
    if (tail) this.addVisible(tail);
    const silent = m.holding && isSilentReply(m.held);
    if (m.holding && !silent && m.held) {
      m.holding = false;
      const held = m.held;
      m.held = "";
      this.emitVisible(held);
    }
    this.msg = undefined;
    const text = silent ? "" : finishedText(m, message).trim();
    if (m.chunker && !silent) {
      for (const block of m.chunker.flush()) this.sendBlock(m, block);
      // Media parsed after the last block still goes out, on its own.
      const d = m.directives.directives;
      if (d.mediaUrls.length > m.mediaSent) this.sendBlock(m, undefined);
    }
    if (m.reasoning.trim()) {
      if (m.chunker && this.opts.reasoning === "on" && !m.reasoningSent) {
        m.reasoningSent = true;
        this.deliverBlock({ text: m.reasoning.trim(), isReasoning: true });
      } else if (!m.chunker) this.reasonings.push(m.reasoning.trim());
    }
    const d = m.directives.directives;
    if (text || d.mediaUrls.length > 0) {
      this.texts.push({
        text,
        streamedAsBlocks: m.chunker !== undefined,
        mediaUrls: d.mediaUrls,
        audioAsVoice: d.audioAsVoice,
        replyToId: d.replyToId,
        replyToCurrent: d.replyToCurrent,
      });
    }
  }

  private onToolStart(toolCallId: string, toolName: string, args: unknown): void {
    if (this.opts.verbose) {
      const summary = summarizeToolCall(toolName, args);
      if (this.opts.blockStreaming) this.deliverBlock({ text: summary, isToolSummary: true });
      else this.toolSummaries.push(summary);
    }
    if (this.messagingTools.has(toolName) && args && typeof args === "object") {
      const a = args as Record<string, unknown>;
      const text = [a.text, a.message, a.content].find((v) => typeof v === "string");
      if (typeof text === "string") this.pendingSends.set(toolCallId, text);
    }
  }

  private onToolEnd(toolCallId: string, toolName: string, result: unknown, isError: boolean): void {
    const pending = this.pendingSends.get(toolCallId);
    this.pendingSends.delete(toolCallId);
    if (isError) {
      let error = textOfResult(result).trim().replace(/\s+/g, " ");
      if (error.length > TOOL_ERROR_MAX_CHARS) error = `${error.slice(0, TOOL_ERROR_MAX_CHARS - 1)}…`;
      this.lastToolError = { toolName, error };
      return;
    }
    if (pending !== undefined) this.recordMessagingSend(pending);
  }
}

function isAssistant(message: AgentMessage): message is AssistantMessage {
  return (message as { role?: string }).role === "assistant";
}
