/**
 * What the model sees along one path of a session tree (root first): the messages of its entries, everything
 * before the latest compaction's `firstKeptEntryId` replaced by the compaction's summary, and the latest model and
 * thinking level on the path (an assistant message counts as a model change).
 */
import type { AgentMessage } from "@tiller/agent";
import { createBranchSummaryMessage, createCompactionSummaryMessage, createCustomMessage } from "./messages.js";
import type { CompactionEntry, SessionContext, SessionEntry } from "./types.js";

/** The context message an entry contributes, if any (compactions are handled by the path). */
export function entryMessage(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message":
      return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
    case "branch_summary":
      return entry.summary ? createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp) : undefined;
    default:
      return undefined;
  }
}

/** The context of `path` (entries from the root, oldest first). */
export function contextOfPath(path: readonly SessionEntry[]): SessionContext {
  // The latest of each, found from the end: the scan stops once all three are found, and it does not read the
  // message of every entry on a long path (an assistant message is usually among the last few).
  let thinkingLevel: string | undefined;
  let model: SessionContext["model"] | undefined;
  let compactionAt: number | undefined;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as SessionEntry;
    if (e.type === "thinking_level_change") thinkingLevel ??= e.thinkingLevel;
    else if (e.type === "model_change") model ??= { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message") {
      if (model === undefined && e.message.role === "assistant")
        model = { provider: e.message.provider, modelId: e.message.model };
    } else if (e.type === "compaction") compactionAt ??= i;
    if (thinkingLevel !== undefined && model !== undefined && compactionAt !== undefined) break;
  }

  const messages: AgentMessage[] = [];
  let start = 0;
  if (compactionAt !== undefined) {
    const c = path[compactionAt] as CompactionEntry;
    messages.push(createCompactionSummaryMessage(c.summary, c.tokensBefore, c.timestamp));
    const kept = path.findIndex((e, i) => i < compactionAt && e.id === c.firstKeptEntryId);
    if (kept >= 0) {
      for (let i = kept; i < compactionAt; i++) {
        const m = entryMessage(path[i] as SessionEntry);
        if (m) messages.push(m);
      }
    }
    start = compactionAt + 1;
  }
  for (let i = start; i < path.length; i++) {
    const m = entryMessage(path[i] as SessionEntry);
    if (m) messages.push(m);
  }
  return { messages, thinkingLevel: thinkingLevel ?? "off", model: model ?? null };
}
