/**
 * What the model sees along one path of a session tree (root first): the messages of its entries, everything
 * before the latest compaction's `firstKeptEntryId` replaced by the compaction's summary, and the latest model and
 * thinking level on the path (an assistant message counts as a model change).
 */
import type { AgentMessage } from "@tiller/agent";
import type { ChainMessages } from "./chain-messages.js";
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

/**
 * Where on a path the entries that decide its context sit: the index of the latest thinking-level change, of the
 * latest model change or assistant message, and of the latest compaction (-1: none on the path).
 */
export interface PathLatest {
  thinkingAt: number;
  modelAt: number;
  compactionAt: number;
}

/**
 * Updates `latest` for `list[from]` to `list[to - 1]`, the entries at indexes `first`, `first + 1`, … of a path
 * whose earlier entries it has seen.
 */
export function notePathLatestFrom(
  latest: PathLatest,
  list: readonly SessionEntry[],
  from: number,
  to: number,
  first: number,
): void {
  for (let k = from, i = first; k < to; k++, i++) {
    const entry = list[k] as SessionEntry;
    switch (entry.type) {
      case "thinking_level_change":
        // A change without a level (a corrupt line) leaves the one before it in force.
        if (entry.thinkingLevel != null) latest.thinkingAt = i;
        break;
      case "model_change":
        latest.modelAt = i;
        break;
      case "message":
        // Read while a file is parsed: a line without a message must not stop the open.
        if ((entry.message as AgentMessage | undefined)?.role === "assistant") latest.modelAt = i;
        break;
      case "compaction":
        latest.compactionAt = i;
        break;
    }
  }
}

/** The latest positions on `path`, found from the end: the scan stops once all three are found. */
function scanPathLatest(path: readonly SessionEntry[]): PathLatest {
  const latest: PathLatest = { thinkingAt: -1, modelAt: -1, compactionAt: -1 };
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as SessionEntry;
    if (e.type === "thinking_level_change") {
      if (latest.thinkingAt < 0 && e.thinkingLevel != null) latest.thinkingAt = i;
    } else if (e.type === "model_change") {
      if (latest.modelAt < 0) latest.modelAt = i;
    } else if (e.type === "message") {
      // Only until the model is found: the message of every entry on a long path is not read.
      if (latest.modelAt < 0 && (e.message as AgentMessage | undefined)?.role === "assistant") latest.modelAt = i;
    } else if (e.type === "compaction" && latest.compactionAt < 0) latest.compactionAt = i;
    if (latest.thinkingAt >= 0 && latest.modelAt >= 0 && latest.compactionAt >= 0) break;
  }
  return latest;
}

/** The thinking level and model in force at the end of `path`, from its latest positions. */
function settingsOf(
  path: readonly SessionEntry[],
  latest: PathLatest,
): Pick<SessionContext, "thinkingLevel" | "model"> {
  const thinkingEntry = latest.thinkingAt >= 0 ? path[latest.thinkingAt] : undefined;
  const thinkingLevel = thinkingEntry?.type === "thinking_level_change" ? thinkingEntry.thinkingLevel : undefined;
  const modelEntry = latest.modelAt >= 0 ? path[latest.modelAt] : undefined;
  let model: SessionContext["model"] | undefined;
  if (modelEntry?.type === "model_change") model = { provider: modelEntry.provider, modelId: modelEntry.modelId };
  else if (modelEntry?.type === "message" && modelEntry.message.role === "assistant")
    model = { provider: modelEntry.message.provider, modelId: modelEntry.message.model };
  return { thinkingLevel: thinkingLevel ?? "off", model: model ?? null };
}

/** The messages of the entries at indexes `from` (inclusive) to `to` (exclusive) of a path, in order: a fresh array. */
type MessagesOf = (from: number, to: number) => AgentMessage[];

/**
 * The context of `path` from its latest positions: the compaction's summary, the messages from its kept entry (at
 * `keptAt(compaction, compactionAt)`, -1 when missing) up to it, and those after it; or all messages without one.
 */
function contextFrom(
  path: readonly SessionEntry[],
  latest: PathLatest,
  keptAt: (compaction: CompactionEntry, compactionAt: number) => number,
  messagesOf: MessagesOf,
): SessionContext {
  const settings = settingsOf(path, latest);
  const compactionAt = latest.compactionAt;
  if (compactionAt < 0) return { messages: messagesOf(0, path.length), ...settings };
  const c = path[compactionAt] as CompactionEntry;
  const kept = keptAt(c, compactionAt);
  const summary = createCompactionSummaryMessage(c.summary, c.tokensBefore, c.timestamp);
  const before = kept >= 0 ? messagesOf(kept, compactionAt) : [];
  return {
    messages: ([summary] as AgentMessage[]).concat(before, messagesOf(compactionAt + 1, path.length)),
    ...settings,
  };
}

/**
 * The context of `path` (entries from the root, oldest first). The latest positions are found scanning back from
 * the leaf (a whole chain has them noted as it was read: `contextOfChain`).
 */
export function contextOfPath(path: readonly SessionEntry[]): SessionContext {
  return contextFrom(
    path,
    scanPathLatest(path),
    (c, compactionAt) => path.findIndex((e, i) => i < compactionAt && e.id === c.firstKeptEntryId),
    (from, to) => {
      const messages: AgentMessage[] = [];
      for (let i = from; i < to; i++) {
        const m = entryMessage(path[i] as SessionEntry);
        if (m) messages.push(m);
      }
      return messages;
    },
  );
}

/**
 * What `contextOfPath(entries)` gives when the entry list is the whole path and no id repeats in it, from its latest
 * positions and the messages collected while its entries were added: no entry but the few that decide the context
 * is visited again.
 */
export function contextOfChain(
  entries: readonly SessionEntry[],
  latest: PathLatest,
  chain: ChainMessages,
): SessionContext {
  // Ids are unique on this path: the kept entry found from the compaction back is the first one of that id. It
  // usually sits a few turns before the compaction, so the search stays short on a long session.
  const keptAt = (c: CompactionEntry, compactionAt: number): number => {
    for (let i = compactionAt - 1; i >= 0; i--) if ((entries[i] as SessionEntry).id === c.firstKeptEntryId) return i;
    return -1;
  };
  return contextFrom(entries, latest, keptAt, (from, to) => chain.range(from, to));
}
