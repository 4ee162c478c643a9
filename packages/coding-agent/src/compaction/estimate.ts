/**
 * Token estimates for compaction decisions. Characters / 4 per text block (a common over-estimate for English
 * and code), 1,200 tokens per image. The provider's reported usage is preferred when it is fresh.
 */

import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import type { CompactionSettings } from "../settings/schema.js";

const IMAGE_TOKENS = 1200;

function blocksChars(content: unknown): { chars: number; images: number } {
  if (typeof content === "string") return { chars: content.length, images: 0 };
  let chars = 0;
  let images = 0;
  if (!Array.isArray(content)) return { chars, images };
  for (const b of content as {
    type?: string;
    text?: string;
    thinking?: string;
    arguments?: unknown;
    name?: string;
  }[]) {
    if (b.type === "text") chars += b.text?.length ?? 0;
    else if (b.type === "thinking") chars += b.thinking?.length ?? 0;
    else if (b.type === "toolCall") chars += (b.name?.length ?? 0) + JSON.stringify(b.arguments ?? {}).length;
    else if (b.type === "image") images++;
  }
  return { chars, images };
}

/** Estimated tokens of one message (any role). */
export function estimateTokens(message: AgentMessage): number {
  const m = message as { role: string; content?: unknown; summary?: string; output?: string; command?: string };
  let chars = 0;
  let images = 0;
  if (m.role === "compactionSummary" || m.role === "branchSummary") chars = m.summary?.length ?? 0;
  else if (m.role === "bashExecution") chars = (m.command?.length ?? 0) + (m.output?.length ?? 0);
  else {
    const c = blocksChars(m.content);
    chars = c.chars;
    images = c.images;
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

/** Tokens the provider reported for the whole request and answer of `message`. */
export function usageTokens(message: AssistantMessage): number {
  const u = message.usage;
  return u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite;
}

/**
 * Estimated size of the context `messages` would send: the last trustworthy assistant usage plus estimates of
 * the messages after it, else estimates of everything plus `baseTokens` (system prompt, tools). An assistant
 * message in `staleUsage` reported a context that has since been compacted, so its usage is not trusted.
 */
export function estimateContextTokens(
  messages: readonly AgentMessage[],
  options: { staleUsage?: WeakSet<object>; baseTokens?: number } = {},
): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as AgentMessage;
    if (m.role !== "assistant") continue;
    if (m.stopReason === "error" || m.stopReason === "aborted" || options.staleUsage?.has(m)) break;
    const used = usageTokens(m);
    if (used <= 0) break;
    let tokens = used;
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(messages[j] as AgentMessage);
    return tokens;
  }
  let tokens = options.baseTokens ?? 0;
  for (const m of messages) tokens += estimateTokens(m);
  return tokens;
}

/**
 * Compaction threshold (pi's signature): compaction is enabled and the context no longer leaves `reserveTokens`
 * free. Unlike pi, the reserve counts at most half the window: with pi's 16,384-token default an 8k-window model
 * would otherwise compact after every turn.
 */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: Pick<CompactionSettings, "enabled" | "reserveTokens">,
): boolean {
  if (!settings.enabled || contextWindow <= 0) return false;
  return contextTokens > contextWindow - Math.min(settings.reserveTokens, Math.floor(contextWindow / 2));
}
