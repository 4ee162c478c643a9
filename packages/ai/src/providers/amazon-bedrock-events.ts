/**
 * Response side of Amazon Bedrock ConverseStream: decoded stream events (`messageStart`, `contentBlockStart`,
 * `contentBlockDelta`, `contentBlockStop`, `messageStop`, `metadata`, exception events) applied to the message
 * being built, the stop-reason mapping, and readable messages for the SDK's exceptions.
 */
import type { ConverseStreamOutput, TokenUsage } from "@aws-sdk/client-bedrock-runtime";
import type { StopReason, ThinkingContent } from "../types.js";
import { describeError, type ErrorInfo, type MessageBuilder, ProviderStreamError } from "./stream-shared.js";

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

/** Exception members that can arrive inside a 200 stream. */
const STREAM_EXCEPTIONS = [
  "internalServerException",
  "modelStreamErrorException",
  "validationException",
  "throttlingException",
  "serviceUnavailableException",
] as const;

/** Applies one ConverseStream event. Exception events throw (the caller turns them into the `error` event). */
export function applyBedrockEvent(b: MessageBuilder, state: BedrockStreamState, event: ConverseStreamOutput): void {
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
        block.thinkingSignature = (block.thinkingSignature ?? "") + Buffer.from(r.redactedContent).toString("base64");
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
  } else {
    for (const key of STREAM_EXCEPTIONS) {
      const exception = (event as unknown as Record<string, unknown>)[key];
      if (exception) throw exception;
    }
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
  if (e && typeof e === "object" && typeof e.name === "string" && (e.$metadata || e.$fault)) {
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
