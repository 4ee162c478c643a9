/**
 * Moving within a session tree. Navigating to a user message moves to its parent and hands the text back for
 * editing (re-asking it creates a sibling branch); with `summarize`, the branch being left is summarized by the
 * model into a `branch_summary` entry so the new branch knows what was tried.
 */

import type { AgentMessage, StreamFn } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import { summarize } from "../compaction/summarize.js";
import type { SessionManager } from "../session/session-manager.js";
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

export async function navigateSessionTree(
  sm: SessionManager,
  targetId: string,
  options: { summarize?: boolean; model: Model; streamFn: StreamFn; apiKey?: string | undefined },
): Promise<{ editorText?: string }> {
  const target = sm.getEntry(targetId);
  if (!target) throw new Error(`Entry ${targetId} not found`);
  let leaf: string | null = targetId;
  let editorText: string | undefined;
  if (target.type === "message" && target.message.role === "user") {
    leaf = target.parentId;
    editorText = textOf(target.message.content);
  }
  const abandoned = abandonedMessages(sm, leaf);
  if (options.summarize && abandoned.length > 0) {
    const summary = await summarize(abandoned, BRANCH_SUMMARY_PROMPT, {
      model: options.model,
      streamFn: options.streamFn,
      maxTokens: 2048,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    });
    sm.branchWithSummary(leaf, summary);
  } else if (leaf === null) sm.resetLeaf();
  else sm.branch(leaf);
  return editorText === undefined ? {} : { editorText };
}
