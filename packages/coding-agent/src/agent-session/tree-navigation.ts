/**
 * Moving within a session tree. Navigating to a user message moves to its parent and hands the text back for
 * editing (re-asking it creates a sibling branch); with `summarize`, the branch being left is summarized by the
 * model into a `branch_summary` entry so the new branch knows what was tried.
 */

import type { AgentMessage, StreamFn } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import { collectEntriesForBranchSummary } from "../compaction/branch-summary.js";
import { summarize } from "../compaction/summarize.js";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { SessionBeforeTreeResult } from "../extensions/types.js";
import type { SessionManager } from "../session/session-manager.js";
import type { BranchSummaryEntry } from "../session/types.js";
import { textOf } from "./user-input.js";

const BRANCH_SUMMARY_PROMPT =
  "Summarize this abandoned branch of the conversation: what was tried, what was learned, and what state it " +
  "left files in. Be brief and concrete.";

/** Messages on the current branch below its common ancestor with `leaf`. */
export function abandonedMessages(sm: SessionManager, leaf: string | null): AgentMessage[] {
  const keep = new Set(sm.getBranch(leaf).map((e) => e.id));
  const out: AgentMessage[] = [];
  for (const e of sm.getBranch()) if (!keep.has(e.id) && e.type === "message") out.push(e.message);
  return out;
}

/** What a move in the tree did (pi's `navigateTree` result). */
export interface TreeNavigationResult {
  /** The target's text, when the target was a user (or custom) message: the caller edits and re-sends it. */
  editorText?: string;
  /** True when nothing moved: the summary was aborted. */
  cancelled: boolean;
  aborted?: boolean;
  /** The `branch_summary` entry written for the branch left behind. */
  summaryEntry?: BranchSummaryEntry;
}

export interface TreeNavigationOptions {
  summarize?: boolean;
  /** Added to the summary prompt, or the whole prompt with `replaceInstructions`. */
  customInstructions?: string;
  replaceInstructions?: boolean;
  /** Label set on the summary entry (or on the target, without a summary). */
  label?: string;
  model: Model;
  streamFn: StreamFn;
  apiKey?: string | undefined;
  /** Aborting stops the summary; the session then stays where it was. */
  signal?: AbortSignal;
  /** Asked first (`session_before_tree`: cancel, supply the summary, change instructions or label), told after (`session_tree`). */
  extensions?: ExtensionRunner;
}

/** `session_before_tree`, when an extension listens; its answer, or undefined. */
async function askExtensions(
  sm: SessionManager,
  targetId: string,
  options: TreeNavigationOptions,
): Promise<SessionBeforeTreeResult | undefined> {
  const ext = options.extensions;
  if (!ext?.hasHandlers("session_before_tree")) return undefined;
  const oldLeafId = sm.getLeafId();
  const { entries, commonAncestorId } = collectEntriesForBranchSummary(sm, oldLeafId, targetId);
  return ext.emit({
    type: "session_before_tree",
    preparation: {
      targetId,
      oldLeafId,
      commonAncestorId,
      entriesToSummarize: entries,
      userWantsSummary: options.summarize === true,
      ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
      ...(options.replaceInstructions !== undefined ? { replaceInstructions: options.replaceInstructions } : {}),
      ...(options.label !== undefined ? { label: options.label } : {}),
    },
    signal: options.signal ?? new AbortController().signal,
  });
}

export async function navigateSessionTree(
  sm: SessionManager,
  targetId: string,
  options: TreeNavigationOptions,
): Promise<TreeNavigationResult> {
  if (targetId === sm.getLeafId()) return { cancelled: false };
  const target = sm.getEntry(targetId);
  if (!target) throw new Error(`Entry ${targetId} not found`);
  let leaf: string | null = targetId;
  let editorText: string | undefined;
  if (target.type === "message" && target.message.role === "user") {
    leaf = target.parentId;
    editorText = textOf(target.message.content);
  } else if (target.type === "custom_message") {
    leaf = target.parentId;
    editorText = textOf(target.content);
  }
  const oldLeafId = sm.getLeafId();
  const answer = await askExtensions(sm, targetId, options);
  if (answer?.cancel) return { cancelled: true };
  const custom = answer?.customInstructions ?? options.customInstructions;
  const label = answer?.label ?? options.label;
  const supplied = options.summarize ? answer?.summary : undefined;
  const abandoned = abandonedMessages(sm, leaf);
  let summaryEntry: BranchSummaryEntry | undefined;
  if (supplied) {
    const id = sm.branchWithSummary(leaf, supplied.summary, supplied.details, true);
    summaryEntry = sm.getEntry(id) as BranchSummaryEntry;
    if (label) sm.appendLabelChange(id, label);
  } else if (options.summarize && abandoned.length > 0) {
    const { signal } = options;
    const replace = (answer?.replaceInstructions ?? options.replaceInstructions) === true && custom !== undefined;
    let summary: string;
    try {
      summary = await summarize(
        abandoned,
        replace ? custom : BRANCH_SUMMARY_PROMPT,
        {
          model: options.model,
          streamFn: options.streamFn,
          maxTokens: 2048,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          ...(signal ? { signal } : {}),
        },
        undefined,
        replace ? undefined : custom,
      );
    } catch (err) {
      if (signal?.aborted) return { cancelled: true, aborted: true };
      throw err;
    }
    const id = sm.branchWithSummary(leaf, summary);
    summaryEntry = sm.getEntry(id) as BranchSummaryEntry;
    if (label) sm.appendLabelChange(id, label);
  } else if (leaf === null) sm.resetLeaf();
  else sm.branch(leaf);
  if (label && !summaryEntry) sm.appendLabelChange(targetId, label);
  if (options.extensions?.hasHandlers("session_tree"))
    await options.extensions.emit({
      type: "session_tree",
      newLeafId: sm.getLeafId(),
      oldLeafId,
      ...(summaryEntry ? { summaryEntry, fromExtension: supplied !== undefined } : {}),
    });
  return {
    ...(editorText === undefined ? {} : { editorText }),
    cancelled: false,
    ...(summaryEntry ? { summaryEntry } : {}),
  };
}
