/**
 * Stage "reply shaping": the run's events through the reply shaper (think tags, directives, NO_REPLY held back,
 * block replies, reasoning). For each text delta it returns the cleaned text the assistant stream carries; it
 * never changes the event, which the session, the extensions and the bridge read as the model sent it. At the
 * end, `payloads()` gives the shaped final payloads. A compaction retry starts the shaping over, so nothing of
 * the failed attempt is sent.
 */
import type { AgentEvent } from "@tiller/agent";
import type { BlockStreamingOptions, ShapedPayload } from "../../reply/reply-shaper.js";
import { ReplyShaper } from "../../reply/reply-shaper.js";
import type { AgentSessionEvent } from "../embedded-session.js";
import type { AgentStream, ReplyPayload, RunContext } from "../run-types.js";

/** `agent` event stream of block replies (one event per block: text, mediaUrls, replyToId…). */
export const BLOCK_STREAM = "block" as AgentStream;
/** `agent` event stream of reasoning when `reasoning: "stream"` ({ text, delta }). */
export const THINKING_STREAM = "thinking" as AgentStream;

/** How replies are shaped (tiller.json `agents.defaults.blockStreaming`, `reasoning`, `enforceFinalTag`). */
export interface ReplyShapingOptions {
  blockStreaming?: BlockStreamingOptions | false;
  reasoning?: "off" | "on" | "stream";
  enforceFinalTag?: boolean;
}

/** A run payload plus the directive fields channels use (reply threading, voice notes). */
export type ShapedRunPayload = ReplyPayload & { replyToId?: string; replyToCurrent?: boolean; audioAsVoice?: boolean };

/** The shaper's events: the agent's own (message and tool events); session-level ones are not text. */
const SHAPED_TYPES = new Set<string>([
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_end",
]);

export class RunReplyShaping {
  private readonly shaper: ReplyShaper;
  /** Cleaned text produced while handling the current event. */
  private cleaned = "";

  constructor(ctx: RunContext, options: ReplyShapingOptions) {
    this.shaper = new ReplyShaper({
      verbose: ctx.verbose,
      reasoning: options.reasoning ?? "off",
      enforceFinalTag: options.enforceFinalTag,
      blockStreaming: options.blockStreaming ?? false,
      onAssistantDelta: (e) => {
        this.cleaned += e.delta;
      },
      // Own streams, so clients that print `assistant` deltas never mistake blocks or reasoning for reply text.
      onBlockReply: (p) => ctx.emit(BLOCK_STREAM, { ...p }),
      onReasoningDelta: (e) => ctx.emit(THINKING_STREAM, { text: e.text, delta: e.delta }),
    });
  }

  /** Feeds one event; for a text delta returns the cleaned text to stream ("" while held back), else undefined. */
  handle(event: AgentSessionEvent): string | undefined {
    if (event.type === "compaction_end") {
      if (event.willRetry) this.shaper.resetForRetry();
      return undefined;
    }
    if (!SHAPED_TYPES.has(event.type)) return undefined;
    this.cleaned = "";
    this.shaper.handleEvent(event as AgentEvent);
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") return this.cleaned;
    return undefined;
  }

  /** The final payloads of the run. */
  payloads(): ShapedRunPayload[] {
    return this.shaper.finalize().map(toRunPayload);
  }
}

function toRunPayload(p: ShapedPayload): ShapedRunPayload {
  return {
    text: p.text ?? "",
    mediaUrl: p.mediaUrls?.[0] ?? null,
    ...(p.mediaUrls && p.mediaUrls.length > 0 ? { mediaUrls: p.mediaUrls } : {}),
    ...(p.isError ? { isError: true } : {}),
    ...(p.replyToId ? { replyToId: p.replyToId } : {}),
    ...(p.replyToCurrent ? { replyToCurrent: true } : {}),
    ...(p.audioAsVoice ? { audioAsVoice: true } : {}),
  };
}
