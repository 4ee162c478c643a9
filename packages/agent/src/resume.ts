/**
 * Checks a `ToolCallsResume` against the transcript before a resumed loop starts, and indexes it by tool call id.
 * A resume that does not fit (wrong last message, unknown call, a decision the request did not offer) is refused
 * with a clear error before anything runs.
 */
import type { AssistantMessage, ToolResultMessage } from "@tiller/ai";
import { checkDecision } from "./approvals.js";
import type { BatchResume } from "./tool-execution.js";
import type { AgentContext, AgentEventOf, ToolCallsResume } from "./types.js";

/**
 * The result message a `tool_execution_end` event stands for: what a store keeps for the finished calls of a
 * batch that is waiting for approval (`ToolCallsResume.results`).
 */
export function toolResultOf(event: AgentEventOf<"tool_execution_end">): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: event.toolCallId,
    toolName: event.toolName,
    content: event.result.content,
    details: event.result.details,
    isError: event.isError,
    timestamp: Date.now(),
  };
}

export function checkResumable(
  context: AgentContext,
  resume: ToolCallsResume,
): { message: AssistantMessage; batch: BatchResume } {
  const last = context.messages[context.messages.length - 1] as AssistantMessage | undefined;
  if (last?.role !== "assistant") {
    throw new Error("Cannot resume tool calls: the transcript does not end with the assistant message that made them");
  }
  const ids = new Set<string>();
  for (const block of last.content) if (block.type === "toolCall") ids.add(block.id);
  if (ids.size === 0) throw new Error("Cannot resume tool calls: the last assistant message has no tool calls");
  const batch: BatchResume = { results: new Map(), approvals: new Map() };
  for (const result of resume.results ?? []) {
    if (!ids.has(result.toolCallId)) {
      throw new Error(`Cannot resume: result for "${result.toolCallId}", which is not a call of the last message`);
    }
    batch.results.set(result.toolCallId, result);
  }
  for (const decided of resume.approvals) {
    const id = decided.approval.toolCall.id;
    if (!ids.has(id))
      throw new Error(`Cannot resume: approval ${decided.approval.id} is for "${id}", not a call of the last message`);
    if (batch.results.has(id)) throw new Error(`Cannot resume: "${id}" has both a result and an approval`);
    checkDecision(decided.approval.request, decided.decision);
    batch.approvals.set(id, decided);
  }
  return { message: last, batch };
}
