/**
 * One compaction over a context: choose the cut, summarize what lies before it (the history, and separately
 * the start of a turn that is cut in the middle), and append the exact file lists. The caller writes the
 * result as a `compaction` entry; the session file keeps every original message.
 */

import type { AgentMessage, StreamFn } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import type { CompactionSettings } from "../settings/schema.js";
import { findMessageCutPoint } from "./cut-point.js";
import { collectFileOperations, collectToolFailures, type FileLists } from "./serialize.js";
import {
  CompactionError,
  formatFileOperations,
  SUMMARY_PROMPT,
  type SummarizeOptions,
  summarize,
  TURN_PREFIX_PROMPT,
  UPDATE_SUMMARY_PROMPT,
} from "./summarize.js";

export type CompactionReason = "manual" | "threshold" | "overflow";

/** Stored in the compaction entry's `details` (pi's `{readFiles, modifiedFiles}` plus Tiller's fields). */
export interface CompactionDetails extends FileLists {
  toolFailures?: string[];
  splitTurn?: boolean;
}

/** What a compaction produced; the caller writes it as a `compaction` entry. pi's shape. */
export interface CompactionResult<T = unknown> {
  summary: string;
  /** Id of the first entry kept verbatim after the summary. */
  firstKeptEntryId: string;
  /** Estimated context size before the compaction. */
  tokensBefore: number;
  /** Stored in the entry's `details` (file lists: `{ readFiles, modifiedFiles }`). */
  details?: T;
}

/** Result of `compactMessages`: a `CompactionResult` plus where, in the input messages, the kept part starts. */
export interface MessageCompactionResult extends CompactionResult<CompactionDetails> {
  details: CompactionDetails;
  /** Index in the input messages of the first kept message. */
  firstKeptIndex: number;
}

export interface CompactInput {
  /** The context as the model sees it; may start with the previous compaction summary. */
  messages: readonly AgentMessage[];
  /** Session entry id of a message; messages without one are never cut points. */
  entryIdOf: (message: AgentMessage) => string | undefined;
  settings: CompactionSettings;
  model: Model;
  streamFn: StreamFn;
  apiKey?: string;
  signal?: AbortSignal;
  reasoning?: SummarizeOptions["reasoning"];
  tokensBefore: number;
  /** File lists of the previous compaction (accumulated). */
  previousDetails?: Partial<CompactionDetails>;
  customInstructions?: string;
}

/** Summary token budget: 80% of the reserve; safeguard also caps it at 10% of the window (at least 1,024). */
export function summaryBudget(settings: CompactionSettings, contextWindow: number): number {
  const base = Math.max(256, Math.floor(settings.reserveTokens * 0.8));
  if (settings.mode !== "safeguard") return base;
  return Math.min(base, Math.max(1024, Math.floor(contextWindow * 0.1)));
}

/** Tokens kept verbatim: `keepRecentTokens`, capped at half the window (`maxHistoryShare` in safeguard mode). */
export function keepBudget(settings: CompactionSettings, contextWindow: number): number {
  if (contextWindow <= 0) return settings.keepRecentTokens;
  // Never keep more than half the window: a small model with large defaults must still be able to compact.
  const share = settings.mode === "safeguard" ? settings.maxHistoryShare : 0.5;
  return Math.min(settings.keepRecentTokens, Math.floor(contextWindow * (share ?? 0.5)));
}

/**
 * Runs one compaction over the context as sent (AgentSession's path: it works on messages, so a compaction in the
 * middle of a run can cut the loop's transcript). Throws `CompactionError` when nothing can be summarized or the
 * model fails. pi's entry-based API is `prepareCompaction` + `compact` (entry-compaction.ts).
 */
export async function compactMessages(input: CompactInput): Promise<MessageCompactionResult> {
  const { messages, settings, model } = input;
  const first = messages[0];
  const previousSummary = first?.role === "compactionSummary" ? first.summary : undefined;
  const from = previousSummary !== undefined ? 1 : 0;
  const cut = findMessageCutPoint(
    messages,
    from,
    keepBudget(settings, model.contextWindow),
    (i) => input.entryIdOf(messages[i] as AgentMessage) !== undefined,
  );
  if (!cut || cut.firstKept <= from) throw new CompactionError("nothing to compact: the context is all recent");
  const firstKeptEntryId = input.entryIdOf(messages[cut.firstKept] as AgentMessage) as string;

  const historyEnd = cut.splitTurn ? cut.turnStart : cut.firstKept;
  const history = messages.slice(from, historyEnd);
  const prefix = cut.splitTurn ? messages.slice(cut.turnStart, cut.firstKept) : [];
  const opts: SummarizeOptions = {
    model,
    streamFn: input.streamFn,
    maxTokens: summaryBudget(settings, model.contextWindow),
    ...(input.apiKey ? { apiKey: input.apiKey } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.reasoning ? { reasoning: input.reasoning } : {}),
  };
  const [historySummary, prefixSummary] = await Promise.all([
    history.length > 0
      ? summarize(
          history,
          previousSummary ? UPDATE_SUMMARY_PROMPT : SUMMARY_PROMPT,
          opts,
          previousSummary,
          input.customInstructions,
        )
      : Promise.resolve(previousSummary),
    prefix.length > 0 ? summarize(prefix, TURN_PREFIX_PROMPT, opts, undefined, input.customInstructions) : undefined,
  ]);

  const summarized = messages.slice(from, cut.firstKept);
  const ops = collectFileOperations(summarized, {
    readFiles: input.previousDetails?.readFiles ?? [],
    modifiedFiles: input.previousDetails?.modifiedFiles ?? [],
  });
  const details: CompactionDetails = { ...ops, ...(cut.splitTurn ? { splitTurn: true } : {}) };
  const parts: string[] = [];
  if (historySummary) parts.push(historySummary);
  if (prefixSummary) parts.push(`## Current Turn (earlier part)\n${prefixSummary}`);
  if (settings.mode === "safeguard") {
    const failures = [...(input.previousDetails?.toolFailures ?? []), ...collectToolFailures(summarized)].slice(-20);
    if (failures.length > 0) {
      details.toolFailures = failures;
      parts.push(`## Tool Failures\n${failures.map((f) => `- ${f}`).join("\n")}`);
    }
  }
  const files = formatFileOperations(ops);
  if (files) parts.push(files);
  return {
    summary: parts.join("\n\n"),
    firstKeptEntryId,
    tokensBefore: input.tokensBefore,
    details,
    firstKeptIndex: cut.firstKept,
  };
}
