/** History limiting (as OpenClaw does per channel type): keep the last `n` user turns. */
import type { AgentMessage } from "@tiller/agent";

/**
 * The messages from the `n`-th last user message on (all of them when there are fewer than `n` user turns).
 * A turn is a user message and everything after it, so tool calls and their results are never separated.
 * `n <= 0` returns an empty list.
 */
export function limitHistoryTurns(messages: readonly AgentMessage[], n: number): AgentMessage[] {
  if (n <= 0) return [];
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if ((messages[i] as AgentMessage).role === "user" && ++seen === n) return messages.slice(i);
  }
  return messages.slice();
}
