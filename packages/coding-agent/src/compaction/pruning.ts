/**
 * Context pruning by cache TTL: once the provider's prompt cache has expired (no request for `ttlMs`), resending
 * old large tool results costs full price, so they are trimmed in the request — head and tail kept, the middle
 * replaced by a note. Only the request changes; the session file and the agent's transcript keep everything.
 */

import type { AgentMessage } from "@tiller/agent";
import type { ToolResultMessage } from "@tiller/ai";
import type { ContextPruningSettings } from "../settings/schema.js";

const KEEP_HEAD = 1000;
const KEEP_TAIL = 500;

function trimResult(m: ToolResultMessage, minChars: number): ToolResultMessage {
  let changed = false;
  const content = m.content.map((b) => {
    if (b.type !== "text" || b.text.length <= minChars) return b;
    changed = true;
    const cut = b.text.length - KEEP_HEAD - KEEP_TAIL;
    return {
      ...b,
      text: `${b.text.slice(0, KEEP_HEAD)}\n… [${cut} characters of an old tool result pruned from the context] …\n${b.text.slice(-KEEP_TAIL)}`,
    };
  });
  return changed ? { ...m, content } : m;
}

/**
 * `messages` with old large tool results trimmed when the cache is cold (`now - lastRequestAt >= ttlMs`).
 * Results in the last `keepRecentTurns` assistant turns are untouched. Returns the input array when nothing
 * changes.
 */
export function pruneContext(
  messages: AgentMessage[],
  settings: ContextPruningSettings,
  lastRequestAt: number | undefined,
  now: number = Date.now(),
): AgentMessage[] {
  if (settings.mode !== "cache-ttl" || lastRequestAt === undefined || now - lastRequestAt < settings.ttlMs)
    return messages;
  // Protected: everything from the `keepRecentTurns`-th last assistant message on.
  let turns = 0;
  let protectFrom = messages.length;
  for (let i = messages.length - 1; i >= 0 && turns < settings.keepRecentTurns; i--) {
    if ((messages[i] as AgentMessage).role === "assistant") {
      turns++;
      protectFrom = i;
    }
  }
  if (turns < settings.keepRecentTurns) return messages;
  let out: AgentMessage[] | undefined;
  const minChars = Math.max(settings.minChars, KEEP_HEAD + KEEP_TAIL + 100);
  for (let i = 0; i < protectFrom; i++) {
    const m = messages[i] as AgentMessage;
    if (m.role !== "toolResult") continue;
    const trimmed = trimResult(m, minChars);
    if (trimmed !== m) {
      out ??= messages.slice();
      out[i] = trimmed;
    }
  }
  return out ?? messages;
}
