/**
 * pi's entry-based compaction API (pi-coding-agent 0.73): pick the cut over a branch's session entries
 * (`findCutPoint`), gather what to summarize (`prepareCompaction`), ask the model (`generateSummary`), and
 * produce the `compaction` entry's fields (`compact`). AgentSession uses the message-based `compactMessages`
 * (compact.ts), which shares the prompts, the estimates and the summarizer.
 */
import type { AgentMessage, ThinkingLevel } from "@tiller/agent";
import { type Model, streamSimple, type Usage } from "@tiller/ai";
import { buildSessionContext } from "../session/context.js";
import { createBranchSummaryMessage, createCustomMessage } from "../session/messages.js";
import type { CompactionEntry, SessionEntry } from "../session/types.js";
import type { CompactionSettings } from "../settings/schema.js";
import type { CompactionResult } from "./compact.js";
import { estimateTokens } from "./estimate.js";
import {
  addFileListsFromDetails,
  computeFileLists,
  createFileOps,
  extractFileOpsFromMessage,
  type FileOperations,
  formatFileLists,
} from "./file-operations.js";
import { SUMMARY_PROMPT, summarize, TURN_PREFIX_PROMPT, UPDATE_SUMMARY_PROMPT } from "./summarize.js";

/** pi's defaults: compact when fewer than 16,384 tokens are left; keep the newest ~20,000 verbatim. */
export const DEFAULT_COMPACTION_SETTINGS: Required<
  Pick<CompactionSettings, "enabled" | "reserveTokens" | "keepRecentTokens">
> = Object.freeze({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 });

/** The `{ readFiles, modifiedFiles }` a compaction stores in its entry's `details`. */
export interface CompactionFileDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Where `findCutPoint` cuts, as indices into the entries it was given. */
export interface CutPointResult {
  /** First entry kept verbatim. */
  firstKeptEntryIndex: number;
  /** Entry starting the turn that `firstKeptEntryIndex` is in, or -1 when the cut is at a turn start. */
  turnStartIndex: number;
  /** True when the cut falls inside a turn (its beginning is summarized separately). */
  isSplitTurn: boolean;
}

/** Everything `compact` needs, gathered from a branch by `prepareCompaction`. */
export interface CompactionPreparation {
  firstKeptEntryId: string;
  /** History before the cut (before the split turn's start when `isSplitTurn`). */
  messagesToSummarize: AgentMessage[];
  /** The beginning of a split turn (empty otherwise). */
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  tokensBefore: number;
  /** The previous compaction's summary, updated rather than replaced. */
  previousSummary?: string;
  fileOps: FileOperations;
  settings: CompactionSettings;
}

/** Context tokens an assistant usage reports (its total, or the sum of its parts when the total is 0). */
export function calculateContextTokens(usage: Usage): number {
  return usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** Usage of the newest assistant message in `entries` that did not fail or abort (its usage is trustworthy). */
export function getLastAssistantUsage(entries: readonly SessionEntry[]): Usage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as SessionEntry;
    if (e.type !== "message" || e.message.role !== "assistant") continue;
    const m = e.message;
    if (m.stopReason !== "error" && m.stopReason !== "aborted" && m.usage) return m.usage;
  }
  return undefined;
}

/**
 * Context size as pi's `prepareCompaction` reports it: the newest usable assistant usage (failed and aborted
 * answers are skipped) plus estimates of the messages after it; estimates of everything when none reported.
 */
function reportedContextTokens(messages: readonly AgentMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as AgentMessage;
    if (m.role !== "assistant" || m.stopReason === "error" || m.stopReason === "aborted" || !m.usage) continue;
    let tokens = calculateContextTokens(m.usage);
    for (let j = i + 1; j < messages.length; j++) tokens += estimateTokens(messages[j] as AgentMessage);
    return tokens;
  }
  let tokens = 0;
  for (const m of messages) tokens += estimateTokens(m);
  return tokens;
}

/** A user or bash-execution message, a branch summary or a custom message starts a turn. */
function startsTurn(entry: SessionEntry): boolean {
  if (entry.type === "branch_summary" || entry.type === "custom_message") return true;
  return entry.type === "message" && (entry.message.role === "user" || entry.message.role === "bashExecution");
}

/** Index of the entry that starts the turn containing `entryIndex`, searching back to `startIndex`; -1 if none. */
export function findTurnStartIndex(entries: readonly SessionEntry[], entryIndex: number, startIndex: number): number {
  for (let i = entryIndex; i >= startIndex; i--) if (startsTurn(entries[i] as SessionEntry)) return i;
  return -1;
}

/** Entries the kept part may start at: any message but a tool result (its call would be cut away). */
function canStartKept(entry: SessionEntry): boolean {
  if (entry.type === "branch_summary" || entry.type === "custom_message") return true;
  return entry.type === "message" && entry.message.role !== "toolResult";
}

/**
 * Cut for `entries[startIndex, endIndex)`: walking back from the newest message until `keepRecentTokens` are
 * gathered, the kept part starts at the first allowed entry at or after that point (at the first allowed entry
 * when everything fits), extended back over the settings entries that precede it.
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPointResult {
  const allowed: number[] = [];
  for (let i = startIndex; i < endIndex; i++) if (canStartKept(entries[i] as SessionEntry)) allowed.push(i);
  if (allowed.length === 0) return { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };

  let cut = allowed[0] as number;
  let kept = 0;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    const e = entries[i] as SessionEntry;
    if (e.type !== "message") continue;
    kept += estimateTokens(e.message);
    if (kept < keepRecentTokens) continue;
    const at = allowed.find((c) => c >= i);
    if (at !== undefined) cut = at;
    break;
  }
  // Model or thinking changes just before the kept part belong to it: keep them, stop at a message or compaction.
  while (cut > startIndex) {
    const prev = entries[cut - 1] as SessionEntry;
    if (prev.type === "message" || prev.type === "compaction") break;
    cut--;
  }
  const first = entries[cut] as SessionEntry;
  const atUser = first.type === "message" && first.message.role === "user";
  const turnStartIndex = atUser ? -1 : findTurnStartIndex(entries, cut, startIndex);
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: !atUser && turnStartIndex !== -1 };
}

/** The message an entry contributes to a summary (compactions contribute through `previousSummary`). */
function summaryMessageOf(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message":
      return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
    case "branch_summary":
      return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
    default:
      return undefined;
  }
}

function messagesOf(entries: readonly SessionEntry[], from: number, to: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = from; i < to; i++) {
    const m = summaryMessageOf(entries[i] as SessionEntry);
    if (m) out.push(m);
  }
  return out;
}

/**
 * What a compaction of the branch `pathEntries` (root → leaf) would summarize and keep. Undefined when the branch
 * ends in a compaction already, or the cut lands on an entry without an id (a file needing migration).
 */
export function prepareCompaction(
  pathEntries: readonly SessionEntry[],
  settings: CompactionSettings,
): CompactionPreparation | undefined {
  const n = pathEntries.length;
  if (n > 0 && (pathEntries[n - 1] as SessionEntry).type === "compaction") return undefined;
  let prevIndex = -1;
  for (let i = n - 1; i >= 0; i--) {
    if ((pathEntries[i] as SessionEntry).type === "compaction") {
      prevIndex = i;
      break;
    }
  }
  const prev = prevIndex >= 0 ? (pathEntries[prevIndex] as CompactionEntry) : undefined;
  let start = 0;
  if (prev) {
    const kept = pathEntries.findIndex((e) => e.id === prev.firstKeptEntryId);
    start = kept >= 0 ? kept : prevIndex + 1;
  }
  const tokensBefore = reportedContextTokens(buildSessionContext(pathEntries).messages);
  const cut = findCutPoint(pathEntries, start, n, settings.keepRecentTokens);
  const firstKept = pathEntries[cut.firstKeptEntryIndex];
  if (!firstKept?.id) return undefined;

  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const messagesToSummarize = messagesOf(pathEntries, start, historyEnd);
  const turnPrefixMessages = cut.isSplitTurn
    ? messagesOf(pathEntries, cut.turnStartIndex, cut.firstKeptEntryIndex)
    : [];
  const fileOps = createFileOps();
  // A hook's compaction stores its own details: only Tiller's/pi's own file lists carry over.
  if (prev && !prev.fromHook) addFileListsFromDetails(prev.details, fileOps);
  for (const m of messagesToSummarize) extractFileOpsFromMessage(m, fileOps);
  for (const m of turnPrefixMessages) extractFileOpsFromMessage(m, fileOps);
  return {
    firstKeptEntryId: firstKept.id,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore,
    ...(prev ? { previousSummary: prev.summary } : {}),
    fileOps,
    settings,
  };
}

function summarizeOptions(
  model: Model,
  maxTokens: number,
  apiKey: string,
  headers: Record<string, string> | undefined,
  signal: AbortSignal | undefined,
  thinkingLevel: ThinkingLevel | undefined,
) {
  return {
    model,
    // A direct provider call, like pi's `completeSimple`; headers ride along as stream options.
    streamFn: headers
      ? (m: Model, c: Parameters<typeof streamSimple>[1], o?: Parameters<typeof streamSimple>[2]) =>
          streamSimple(m, c, { ...o, headers })
      : streamSimple,
    maxTokens,
    ...(apiKey ? { apiKey } : {}),
    ...(signal ? { signal } : {}),
    ...(model.reasoning && thinkingLevel && thinkingLevel !== "off" ? { reasoning: thinkingLevel } : {}),
  };
}

/**
 * Asks `model` for a summary of `currentMessages` (updating `previousSummary` when given), in at most 80% of
 * `reserveTokens`. Throws when the model call fails or returns no text.
 */
export async function generateSummary(
  currentMessages: AgentMessage[],
  model: Model,
  reserveTokens: number,
  apiKey: string,
  headers?: Record<string, string>,
  signal?: AbortSignal,
  customInstructions?: string,
  previousSummary?: string,
  thinkingLevel?: ThinkingLevel,
): Promise<string> {
  const opts = summarizeOptions(model, Math.floor(0.8 * reserveTokens), apiKey, headers, signal, thinkingLevel);
  return summarize(
    currentMessages,
    previousSummary ? UPDATE_SUMMARY_PROMPT : SUMMARY_PROMPT,
    opts,
    previousSummary,
    customInstructions,
  );
}

/**
 * Summarizes a prepared compaction: the history, and for a split turn its beginning separately (both at once),
 * then the file lists. The result's fields are what `SessionManager.appendCompaction` takes.
 */
export async function compact(
  preparation: CompactionPreparation,
  model: Model,
  apiKey: string,
  headers?: Record<string, string>,
  customInstructions?: string,
  signal?: AbortSignal,
  thinkingLevel?: ThinkingLevel,
): Promise<CompactionResult<CompactionFileDetails>> {
  const p = preparation;
  const reserve = p.settings.reserveTokens;
  const history = () =>
    generateSummary(
      p.messagesToSummarize,
      model,
      reserve,
      apiKey,
      headers,
      signal,
      customInstructions,
      p.previousSummary,
      thinkingLevel,
    );
  let summary: string;
  if (p.isSplitTurn && p.turnPrefixMessages.length > 0) {
    const prefixOpts = summarizeOptions(model, Math.floor(0.5 * reserve), apiKey, headers, signal, thinkingLevel);
    const [before, prefix] = await Promise.all([
      p.messagesToSummarize.length > 0 ? history() : Promise.resolve(p.previousSummary ?? "No prior history."),
      summarize(p.turnPrefixMessages, TURN_PREFIX_PROMPT, prefixOpts),
    ]);
    summary = `${before}\n\n---\n\n**Turn Context (split turn):**\n\n${prefix}`;
  } else {
    summary = await history();
  }
  const { readFiles, modifiedFiles } = computeFileLists(p.fileOps);
  summary += formatFileLists(readFiles, modifiedFiles);
  return {
    summary,
    firstKeptEntryId: p.firstKeptEntryId,
    tokensBefore: p.tokensBefore,
    details: { readFiles, modifiedFiles },
  };
}
