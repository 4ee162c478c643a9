/**
 * Prepares a conversation for replay on a (possibly different) model before a provider converts it to its
 * wire format. One pass, O(messages); messages that need no change are reused, never deep-copied.
 *
 * - Assistant turns that ended in `error` or `aborted` are skipped (their content may be incomplete), and
 *   tool results answering their calls are dropped with them.
 * - When the assistant turn came from another model: thinking becomes plain text (provider signatures are
 *   meaningless elsewhere), redacted thinking is dropped, and tool-call thought signatures are removed.
 * - Tool-call ids are rewritten with `normalizeToolCallId` (consistently in calls and results), for vendors
 *   with stricter id rules.
 * - A tool call with no result before the next user/assistant turn (or the end) gets a synthetic error
 *   result "No result provided", since every vendor rejects unanswered calls.
 * - Images become a short text note for models whose input does not include "image".
 */
import type {
  Api,
  AssistantMessage,
  ImageContent,
  Message,
  Model,
  TextContent,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "./types.js";

export type NormalizeToolCallId = (id: string, model: Model<Api>, source: AssistantMessage) => string;

export const IMAGE_OMITTED_NOTE = "(image omitted: this model does not accept image input)";
export const NO_RESULT_PROVIDED = "No result provided";

function isSameModel(message: AssistantMessage, model: Model<Api>): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

function replaceImages<T extends TextContent | ImageContent>(content: T[]): (T | TextContent)[] {
  let changed = false;
  const out: (T | TextContent)[] = content.map((part) => {
    if (part.type !== "image") return part;
    changed = true;
    return { type: "text", text: IMAGE_OMITTED_NOTE } satisfies TextContent;
  });
  return changed ? out : content;
}

function transformAssistant(
  message: AssistantMessage,
  model: Model<Api>,
  normalize: NormalizeToolCallId | undefined,
  idMap: Map<string, string>,
): AssistantMessage {
  const same = isSameModel(message, model);
  let changed = false;
  const content: AssistantMessage["content"] = [];
  for (const block of message.content) {
    if (block.type === "thinking") {
      if (same) {
        content.push(block);
        continue;
      }
      changed = true;
      if (block.redacted || !block.thinking.trim()) continue;
      content.push({ type: "text", text: block.thinking });
      continue;
    }
    if (block.type === "text") {
      if (!same && block.textSignature !== undefined) {
        changed = true;
        content.push({ type: "text", text: block.text });
      } else {
        content.push(block);
      }
      continue;
    }
    let call: ToolCall = block;
    const newId = normalize ? normalize(block.id, model, message) : block.id;
    if (newId !== block.id) idMap.set(block.id, newId);
    if (newId !== block.id || (!same && block.thoughtSignature !== undefined)) {
      changed = true;
      call = { type: "toolCall", id: newId, name: block.name, arguments: block.arguments };
      if (same && block.thoughtSignature !== undefined) call.thoughtSignature = block.thoughtSignature;
    }
    content.push(call);
  }
  return changed ? { ...message, content } : message;
}

export function transformMessages(
  messages: readonly Message[],
  model: Model<Api>,
  normalizeToolCallId?: NormalizeToolCallId,
): Message[] {
  const acceptsImages = model.input.includes("image");
  const out: Message[] = [];
  const idMap = new Map<string, string>();
  /** Calls of the latest kept assistant turn still waiting for a result, in order. */
  let pending: ToolCall[] = [];
  const answered = new Set<string>();

  const flushOrphans = (): void => {
    for (const call of pending) {
      if (answered.has(call.id)) continue;
      const synthetic: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: NO_RESULT_PROVIDED }],
        isError: true,
        timestamp: Date.now(),
      };
      out.push(synthetic);
    }
    pending = [];
    answered.clear();
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      flushOrphans();
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      const transformed = transformAssistant(message, model, normalizeToolCallId, idMap);
      out.push(transformed);
      for (const block of transformed.content) if (block.type === "toolCall") pending.push(block);
      continue;
    }
    if (message.role === "toolResult") {
      const id = idMap.get(message.toolCallId) ?? message.toolCallId;
      // A result whose call is not pending (skipped turn, duplicate) would be rejected by the vendor.
      if (!pending.some((c) => c.id === id) || answered.has(id)) continue;
      answered.add(id);
      let result: ToolResultMessage = message;
      if (id !== message.toolCallId) result = { ...result, toolCallId: id };
      if (!acceptsImages) {
        const content = replaceImages(result.content);
        if (content !== result.content) result = { ...result, content };
      }
      out.push(result);
      continue;
    }
    flushOrphans();
    let user: UserMessage = message;
    if (!acceptsImages && typeof user.content !== "string") {
      const content = replaceImages(user.content);
      if (content !== user.content) user = { ...user, content };
    }
    out.push(user);
  }
  flushOrphans();
  return out;
}

/** Short stable hash (FNV-1a, base36) used to shorten ids without collisions in practice. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

/** Replaces characters outside `allowed` with `_` and caps the length, keeping distinct ids distinct. */
export function sanitizeId(id: string, allowed: RegExp, maxLength: number): string {
  let clean = id.replace(allowed, "_");
  if (clean.length > maxLength || clean !== id) {
    if (clean.length > maxLength) {
      const suffix = `_${shortHash(id)}`;
      clean = clean.slice(0, maxLength - suffix.length) + suffix;
    }
  }
  return clean || `call_${shortHash(id)}`;
}
