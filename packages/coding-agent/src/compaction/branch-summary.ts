/**
 * Summaries of a branch the user navigates away from (pi-coding-agent 0.73's API): collect the entries between
 * the old leaf and the common ancestor with the target, fit the newest of them into a token budget, and ask
 * the model for a summary that the new branch receives as a `branch_summary` entry.
 */
import type { AgentMessage } from "@tiller/agent";
import { type Model, streamSimple } from "@tiller/ai";
import {
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "../session/messages.js";
import type { ReadonlySessionManager, SessionEntry } from "../session/types.js";
import { estimateTokens } from "./estimate.js";
import {
  addFileListsFromDetails,
  computeFileLists,
  createFileOps,
  extractFileOpsFromMessage,
  type FileOperations,
  formatFileLists,
} from "./file-operations.js";
import { summarize } from "./summarize.js";

export interface CollectEntriesResult {
  /** Entries from just below the common ancestor down to the old leaf, oldest first. */
  entries: SessionEntry[];
  /** Deepest entry on both paths, or null when they share none. */
  commonAncestorId: string | null;
}

export interface BranchPreparation {
  /** The newest messages of the branch that fit the budget, oldest first. */
  messages: AgentMessage[];
  fileOps: FileOperations;
  /** Estimated tokens of `messages`. */
  totalTokens: number;
}

export interface GenerateBranchSummaryOptions {
  model: Model;
  apiKey: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** Added to the instructions (or replacing them with `replaceInstructions`). */
  customInstructions?: string;
  replaceInstructions?: boolean;
  /** Tokens of the model's window left out of the budget (default 16,384). */
  reserveTokens?: number;
}

/** A summary, or why there is none (`aborted`, `error`). */
export interface BranchSummaryResult {
  summary?: string;
  readFiles?: string[];
  modifiedFiles?: string[];
  aborted?: boolean;
  error?: string;
}

export interface BranchSummaryDetails {
  readFiles: string[];
  modifiedFiles: string[];
}

/** The entries abandoned by moving from `oldLeafId` to `targetId` (none when there is no old leaf). */
export function collectEntriesForBranchSummary(
  session: ReadonlySessionManager,
  oldLeafId: string | null,
  targetId: string,
): CollectEntriesResult {
  if (!oldLeafId) return { entries: [], commonAncestorId: null };
  const onOldPath = new Set(session.getBranch(oldLeafId).map((e) => e.id));
  const targetPath = session.getBranch(targetId);
  let commonAncestorId: string | null = null;
  for (let i = targetPath.length - 1; i >= 0; i--) {
    const id = (targetPath[i] as SessionEntry).id;
    if (onOldPath.has(id)) {
      commonAncestorId = id;
      break;
    }
  }
  const entries: SessionEntry[] = [];
  let current: string | null = oldLeafId;
  while (current && current !== commonAncestorId) {
    const entry = session.getEntry(current);
    if (!entry) break;
    entries.push(entry);
    current = entry.parentId;
  }
  return { entries: entries.reverse(), commonAncestorId };
}

/** What a branch entry contributes to its summary (tool results are left out: the calls say what was done). */
function branchMessageOf(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message.role === "toolResult" ? undefined : entry.message;
    case "custom_message":
      return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
    case "branch_summary":
      return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
    case "compaction":
      return createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
    default:
      return undefined;
  }
}

/**
 * The newest messages of `entries` within `tokenBudget` (0: no limit), plus the files they touched (including the
 * lists of earlier branch summaries). A summary that overflows the budget is still taken while under 90% of it.
 */
export function prepareBranchEntries(entries: readonly SessionEntry[], tokenBudget = 0): BranchPreparation {
  const fileOps = createFileOps();
  for (const e of entries) if (e.type === "branch_summary" && !e.fromHook) addFileListsFromDetails(e.details, fileOps);
  const newestFirst: AgentMessage[] = [];
  let totalTokens = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry;
    const message = branchMessageOf(entry);
    if (!message) continue;
    extractFileOpsFromMessage(message, fileOps);
    const tokens = estimateTokens(message);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
      if (isSummary && totalTokens < tokenBudget * 0.9) {
        newestFirst.push(message);
        totalTokens += tokens;
      }
      break;
    }
    newestFirst.push(message);
    totalTokens += tokens;
  }
  return { messages: newestFirst.reverse(), fileOps, totalTokens };
}

const PREAMBLE =
  "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

const BRANCH_PROMPT = `Summarize the branch of the conversation in <transcript>: the user returns to an earlier point and this summary is all that remains of it.

Use exactly these sections, as markdown headings: ## Goal, ## Constraints & Preferences, ## Progress (### Done, ### In Progress, ### Blocked), ## Key Decisions, ## Next Steps.
Be concise; keep file paths, function names and error messages verbatim.`;

/** Summarizes a branch's entries with `options.model`. Never throws for a model failure: see `error`/`aborted`. */
export async function generateBranchSummary(
  entries: SessionEntry[],
  options: GenerateBranchSummaryOptions,
): Promise<BranchSummaryResult> {
  const { model, apiKey, headers, signal, customInstructions, replaceInstructions } = options;
  const budget = (model.contextWindow || 128000) - (options.reserveTokens ?? 16384);
  const { messages, fileOps } = prepareBranchEntries(entries, budget);
  if (messages.length === 0) return { summary: "No content to summarize" };
  let instructions = BRANCH_PROMPT;
  if (customInstructions)
    instructions = replaceInstructions
      ? customInstructions
      : `${BRANCH_PROMPT}\n\nAdditional focus: ${customInstructions}`;
  let text: string;
  try {
    text = await summarize(messages, instructions, {
      model,
      streamFn: headers ? (m, c, o) => streamSimple(m, c, { ...o, headers }) : streamSimple,
      maxTokens: 2048,
      ...(apiKey ? { apiKey } : {}),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return { aborted: true };
    return { error: error instanceof Error ? error.message : String(error) };
  }
  const { readFiles, modifiedFiles } = computeFileLists(fileOps);
  return { summary: PREAMBLE + text + formatFileLists(readFiles, modifiedFiles), readFiles, modifiedFiles };
}
