/**
 * Response side of Amazon Bedrock ConverseStream: eventstream messages (`messageStart`, `contentBlockStart`,
 * `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`, and `exception` messages such as
 * `throttlingException`) applied to the message being built, the stop-reason mapping, and readable messages
 * for the SDK's HTTP errors and the stream's exceptions.
 */
import type { TokenUsage } from "@aws-sdk/client-bedrock-runtime";
import type { StopReason, ThinkingContent } from "../types.js";
import { EventStreamError, type EventStreamMessage, payloadJson } from "./amazon-bedrock-eventstream.js";
import { describeError, type ErrorInfo, type MessageBuilder, ProviderStreamError } from "./stream-shared.js";

/** The JSON payloads of ConverseStream events, as sent (the fields read here). */
interface ConverseEvents {
  messageStart: { role?: string };
  contentBlockStart: { contentBlockIndex?: number; start?: { toolUse?: { toolUseId?: string; name?: string } } };
  contentBlockDelta: {
    contentBlockIndex?: number;
    delta?: {
      text?: string;
      toolUse?: { input?: string };
      /** `redactedContent` is base64 on the wire. */
      reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
    };
  };
  contentBlockStop: { contentBlockIndex?: number };
  messageStop: { stopReason?: string };
  metadata: { usage?: TokenUsage };
}

/** An `exception` message inside a 200 stream, e.g. `throttlingException` → name `ThrottlingException`. */
export class BedrockStreamException extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly originalStatusCode?: number,
    readonly originalMessage?: string,
  ) {
    super(message);
  }
}

/** Converse block index → content index, plus the stop reason once `messageStop` came. */
export interface BedrockStreamState {
  blocks: Map<number, number>;
  stopReason?: string;
}

export function createBedrockStreamState(): BedrockStreamState {
  return { blocks: new Map() };
}

function applyUsage(b: MessageBuilder, usage: TokenUsage | undefined): void {
  if (!usage) return;
  const u = b.output.usage;
  if (typeof usage.inputTokens === "number") u.input = usage.inputTokens;
  if (typeof usage.outputTokens === "number") u.output = usage.outputTokens;
  if (typeof usage.cacheReadInputTokens === "number") u.cacheRead = usage.cacheReadInputTokens;
  if (typeof usage.cacheWriteInputTokens === "number") u.cacheWrite = usage.cacheWriteInputTokens;
  b.usageChanged();
}

/** The content index for a Converse block, opening a block of `kind` when the block has not started yet. */
function blockFor(b: MessageBuilder, state: BedrockStreamState, index: number, kind: "text" | "thinking"): number {
  const known = state.blocks.get(index);
  if (known !== undefined) return known;
  // Converse sends contentBlockStart only for tool use; text and reasoning blocks open with their first delta.
  const opened = kind === "text" ? b.openText() : b.openThinking();
  state.blocks.set(index, opened);
  return opened;
}

function exceptionOf(message: EventStreamMessage): BedrockStreamException {
  const type = String(message.headers[":exception-type"] ?? message.headers[":error-code"] ?? "UnknownException");
  let body: { message?: unknown; Message?: unknown; originalStatusCode?: unknown; originalMessage?: unknown } = {};
  try {
    body = (payloadJson(message) ?? {}) as typeof body;
  } catch {
    // A non-JSON body: the header names the failure.
  }
  const text = body.message ?? body.Message ?? message.headers[":error-message"] ?? "(no message)";
  return new BedrockStreamException(
    type.charAt(0).toUpperCase() + type.slice(1),
    String(text),
    typeof body.originalStatusCode === "number" ? body.originalStatusCode : undefined,
    typeof body.originalMessage === "string" ? body.originalMessage : undefined,
  );
}

/** Applies one eventstream message. Exception and error messages throw (the caller ends the stream). */
export function applyBedrockMessage(b: MessageBuilder, state: BedrockStreamState, message: EventStreamMessage): void {
  const kind = message.headers[":message-type"];
  if (kind === "exception" || kind === "error") throw exceptionOf(message);
  if (kind !== "event") throw new EventStreamError(`Unknown event stream message type ${String(kind)}`);
  const type = message.headers[":event-type"];
  // Events Tiller does not know (newer API features) are skipped without parsing.
  if (typeof type !== "string" || !KNOWN_EVENTS.has(type)) return;
  let payload: unknown;
  try {
    payload = payloadJson(message);
  } catch (error) {
    throw new ProviderStreamError(`Malformed ${type} event from Bedrock: ${(error as Error).message}`);
  }
  applyBedrockEvent(b, state, { [type]: payload } as Partial<ConverseEvents>);
}

const KNOWN_EVENTS = new Set([
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
]);

/** Applies one decoded ConverseStream event. */
function applyBedrockEvent(b: MessageBuilder, state: BedrockStreamState, event: Partial<ConverseEvents>): void {
  if (event.messageStart) {
    b.start();
  } else if (event.contentBlockStart) {
    const { contentBlockIndex: index, start } = event.contentBlockStart;
    if (index === undefined) return;
    if (start?.toolUse) {
      state.blocks.set(index, b.openToolCall(start.toolUse.toolUseId ?? `tooluse_${index}`, start.toolUse.name ?? ""));
    }
  } else if (event.contentBlockDelta) {
    const { contentBlockIndex: index, delta } = event.contentBlockDelta;
    if (index === undefined || !delta) return;
    if (delta.text !== undefined) {
      b.textDelta(blockFor(b, state, index, "text"), delta.text);
    } else if (delta.toolUse) {
      const i = state.blocks.get(index);
      if (i !== undefined && delta.toolUse.input) b.toolCallDelta(i, delta.toolUse.input);
    } else if (delta.reasoningContent) {
      const r = delta.reasoningContent;
      const i = blockFor(b, state, index, "thinking");
      const block = b.block<ThinkingContent>(i);
      if (r.text) b.thinkingDelta(i, r.text);
      if (r.signature) block.thinkingSignature = (block.thinkingSignature ?? "") + r.signature;
      if (r.redactedContent) {
        // Encrypted reasoning: kept (base64) so it can be replayed to the same model.
        block.redacted = true;
        block.thinkingSignature = (block.thinkingSignature ?? "") + r.redactedContent;
        if (!block.thinking) b.thinkingDelta(i, "[Reasoning redacted]");
      }
    }
  } else if (event.contentBlockStop) {
    const i = event.contentBlockStop.contentBlockIndex;
    const content = i === undefined ? undefined : state.blocks.get(i);
    if (content !== undefined) b.close(content);
  } else if (event.messageStop) {
    if (event.messageStop.stopReason) state.stopReason = event.messageStop.stopReason;
  } else if (event.metadata) {
    applyUsage(b, event.metadata.usage);
  }
}

/** Readable reasons for stops that produced no usable answer. */
const FAILED_STOPS: Record<string, string> = {
  guardrail_intervened: "guardrail_intervened: a Bedrock guardrail blocked the response",
  content_filtered: "content_filtered: the response was blocked by content filtering",
  malformed_model_output: "malformed_model_output: the model produced output Bedrock could not parse",
  malformed_tool_use: "malformed_tool_use: the model produced a tool call Bedrock could not parse",
  model_context_window_exceeded: "model_context_window_exceeded: the context window filled up while generating",
};

/** Maps the Converse stop reason; stops without a usable answer throw. */
export function bedrockStopReason(
  reason: string | undefined,
  hasToolCalls: boolean,
): Extract<StopReason, "stop" | "length" | "toolUse"> {
  if (!reason) {
    throw new ProviderStreamError("Connection closed before the stream finished: no messageStop received");
  }
  if (reason === "max_tokens") return "length";
  if (reason === "tool_use") return "toolUse";
  if (reason === "end_turn" || reason === "stop_sequence") return hasToolCalls ? "toolUse" : "stop";
  throw new ProviderStreamError(FAILED_STOPS[reason] ?? `${reason}: unexpected Bedrock stop reason`);
}

interface SdkException {
  name?: unknown;
  message?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  originalStatusCode?: unknown;
  originalMessage?: unknown;
}

/** Plain words for exception names whose class the words decide (retry and failover read them). */
const READABLE: Record<string, string> = {
  ServiceUnavailableException: "service unavailable",
  InternalServerException: "internal server error",
};

/**
 * SDK exceptions (an HTTP error, or an exception event inside the stream) as `"<status> <ExceptionName>:
 * <message>"`, e.g. `429 ThrottlingException: Too many requests`; anything else as `describeError` has it.
 */
export function describeBedrockError(error: unknown): ErrorInfo {
  const e = error as SdkException | undefined;
  const known =
    error instanceof BedrockStreamException || Boolean(e && typeof e === "object" && (e.$metadata || e.$fault));
  if (e && typeof e.name === "string" && known) {
    const status = typeof e.$metadata?.httpStatusCode === "number" ? e.$metadata.httpStatusCode : undefined;
    let text = typeof e.message === "string" && e.message ? e.message : "(no message)";
    const readable = READABLE[e.name];
    if (readable) text = `${readable}: ${text}`;
    // modelStreamErrorException carries the model's own failure.
    if (typeof e.originalStatusCode === "number" || typeof e.originalMessage === "string") {
      text += ` (model said ${String(e.originalStatusCode ?? "")} ${String(e.originalMessage ?? "")})`.replace(
        "  ",
        " ",
      );
    }
    // Exception events arrive inside a 200 response: that status says nothing about the failure.
    const failedStatus = status !== undefined && status >= 300 ? status : undefined;
    const info: ErrorInfo = { message: `${failedStatus ?? ""} ${e.name}: ${text}`.trim() };
    if (failedStatus !== undefined) info.status = failedStatus;
    return info;
  }
  return describeError(error);
}
