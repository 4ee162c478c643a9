/**
 * Message roles the coding agent stores in sessions on top of the model roles (same shapes as pi's), and
 * `convertToLlm`, which turns them into plain user messages for the model.
 */

import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, Message, TextContent } from "@tiller/ai";

/** Output of a shell command the user ran directly (`!cmd`). */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  timestamp: number;
  /** Kept in the session, never sent to the model. */
  excludeFromContext?: boolean;
}

/** A message injected by an extension. */
export interface CustomMessage<T = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: T;
  timestamp: number;
}

export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}

export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

declare module "@tiller/agent" {
  interface CustomAgentMessages {
    bashExecution: BashExecutionMessage;
    custom: CustomMessage;
    branchSummary: BranchSummaryMessage;
    compactionSummary: CompactionSummaryMessage;
  }
}

export const COMPACTION_SUMMARY_PREFIX =
  "Earlier parts of this conversation were condensed into the summary below.\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX =
  "The conversation returned here from another branch, summarized below.\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "\n</summary>";

function toMs(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? Date.now() : t;
}

export function createCompactionSummaryMessage(
  summary: string,
  tokensBefore: number,
  timestamp: string,
): CompactionSummaryMessage {
  return { role: "compactionSummary", summary, tokensBefore, timestamp: toMs(timestamp) };
}

export function createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryMessage {
  return { role: "branchSummary", summary, fromId, timestamp: toMs(timestamp) };
}

export function createCustomMessage(
  customType: string,
  content: string | (TextContent | ImageContent)[],
  display: boolean,
  details: unknown,
  timestamp: string,
): CustomMessage {
  return { role: "custom", customType, content, display, details, timestamp: toMs(timestamp) };
}

/** How a user shell command reads to the model. */
export function bashExecutionToText(msg: BashExecutionMessage): string {
  let text = `Ran \`${msg.command}\`\n\`\`\`\n${msg.output || "(no output)"}\n\`\`\``;
  if (msg.cancelled) text += "\n(command cancelled)";
  else if (msg.exitCode !== undefined && msg.exitCode !== 0) text += `\nExit code ${msg.exitCode}`;
  if (msg.truncated && msg.fullOutputPath) text += `\n(output truncated; full output in ${msg.fullOutputPath})`;
  return text;
}

/** Model messages for `messages`: model roles pass through; session roles become user text; others drop. */
export function convertToLlm(messages: AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "user":
      case "assistant":
      case "toolResult":
        out.push(m);
        break;
      case "bashExecution":
        if (!m.excludeFromContext)
          out.push({ role: "user", content: [{ type: "text", text: bashExecutionToText(m) }], timestamp: m.timestamp });
        break;
      case "custom":
        out.push({
          role: "user",
          content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
          timestamp: m.timestamp,
        });
        break;
      case "branchSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
      case "compactionSummary":
        out.push({
          role: "user",
          content: [{ type: "text", text: COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX }],
          timestamp: m.timestamp,
        });
        break;
    }
  }
  return out;
}
