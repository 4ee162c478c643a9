/**
 * Before a batch is resumed, the session's leaf is put back on the batch's assistant message. After a crash it is
 * there already. After a graceful stop the aborted wait appended "not run" results and an aborted assistant turn;
 * resuming from the assistant message leaves those on an abandoned branch (the JSONL tree keeps them, the model
 * does not see them), so each call's real result is on the live branch exactly once. A branch where the
 * conversation went on (a user message after the batch) is left as it is: the resume then fails with the agent's
 * own error.
 */
import type { ToolCallsResume } from "@tiller/agent";
import type { SessionManager } from "@tiller/coding-agent";

export function rewindToBatch(sm: SessionManager, resume: ToolCallsResume): void {
  const callId = resume.approvals[0]?.approval.toolCall.id;
  if (callId === undefined) return;
  const branch = sm.getBranch();
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    if (entry?.type !== "message" || entry.message.role !== "assistant") continue;
    const content = (entry.message as { content?: { type: string; id?: string }[] }).content ?? [];
    if (!content.some((c) => c.type === "toolCall" && c.id === callId)) continue;
    // Only what the aborted wait left (the batch's "not run" results, the aborted assistant turn) may be left
    // behind; a conversation that went on is never cut.
    const later = branch.slice(i + 1);
    const leftByAbort = later.every(
      (e) =>
        e.type !== "message" ||
        e.message.role === "toolResult" ||
        (e.message.role === "assistant" && (e.message as { stopReason?: string }).stopReason === "aborted"),
    );
    if (later.length > 0 && leftByAbort) sm.branch(entry.id);
    return;
  }
  // Not on the live branch (the session was reset meanwhile): the resume fails with the agent's own error.
}
