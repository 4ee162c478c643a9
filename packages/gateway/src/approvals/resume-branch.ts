/**
 * Before a batch is resumed, the session's leaf is put back on the batch's assistant message. After a crash it is
 * there already; after a graceful stop the aborted wait appended "not run" results, and resuming from the
 * assistant message leaves those on an abandoned branch (the JSONL tree keeps them, the model does not see them),
 * so each call's real result is on the live branch exactly once.
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
    if (i !== branch.length - 1) sm.branch(entry.id);
    return;
  }
  // Not on the live branch (the session was reset meanwhile): the resume fails with the agent's own error.
}
