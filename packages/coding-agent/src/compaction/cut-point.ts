/**
 * Where a compaction cuts: keep about `keepRecentTokens` of the newest messages, never starting the kept part at
 * a tool result (its tool call would be summarized away while the result stays), and never inside the run of
 * tool results that answers one assistant message.
 */
import type { AgentMessage } from "@tiller/agent";
import { estimateTokens } from "./estimate.js";

export interface CutPoint {
  /** Index of the first kept message. */
  firstKept: number;
  /** Index of the user message that starts the turn containing `firstKept` (-1 when none). */
  turnStart: number;
  /** True when `firstKept` is inside a turn: the turn's start is summarized separately. */
  splitTurn: boolean;
}

/** A message that can start the kept part of the context. */
export function isCutAllowed(message: AgentMessage): boolean {
  return message.role !== "toolResult" && message.role !== "compactionSummary";
}

function isTurnStart(message: AgentMessage): boolean {
  return (
    message.role === "user" ||
    message.role === "custom" ||
    message.role === "bashExecution" ||
    message.role === "branchSummary"
  );
}

/**
 * Cut point for `messages[from..]` (AgentSession's message-based compaction; pi's entry-based `findCutPoint` is in
 * entry-compaction.ts). `canCut(i)` can veto further indices (e.g. messages with no session entry).
 * Returns undefined when nothing can be summarized (everything fits, or no allowed cut after `from`).
 */
export function findMessageCutPoint(
  messages: readonly AgentMessage[],
  from: number,
  keepRecentTokens: number,
  canCut: (index: number) => boolean = () => true,
): CutPoint | undefined {
  let kept = 0;
  let candidate = -1;
  for (let i = messages.length - 1; i > from; i--) {
    kept += estimateTokens(messages[i] as AgentMessage);
    if (isCutAllowed(messages[i] as AgentMessage) && canCut(i)) candidate = i;
    if (kept >= keepRecentTokens && candidate >= 0) break;
  }
  // Everything fits in the budget, or no message may start the kept part: nothing to summarize.
  if (candidate < 0 || kept < keepRecentTokens) return undefined;
  // Budget reached in a run of tool results: `candidate` is the nearest allowed index after them, so the
  // tool call and its results stay together in the kept part.
  let turnStart = -1;
  for (let i = candidate; i >= from; i--) {
    if (isTurnStart(messages[i] as AgentMessage)) {
      turnStart = i;
      break;
    }
  }
  return { firstKept: candidate, turnStart, splitTurn: turnStart >= 0 && turnStart !== candidate };
}
