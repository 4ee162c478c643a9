/**
 * Asking the model for a summary. The transcript goes in a user message, the instructions fix the sections
 * (goal, constraints, progress, decisions, next steps, critical context), and file lists are appended by code
 * so they are exact.
 */

import type { AgentMessage, StreamFn } from "@tiller/agent";
import type { AssistantMessage, Model } from "@tiller/ai";
import { convertToLlm } from "../session/messages.js";
import { formatFileLists } from "./file-operations.js";
import { type FileLists, serializeConversation } from "./serialize.js";

export const SUMMARIZATION_SYSTEM_PROMPT =
  "You write handover notes for a coding assistant whose earlier conversation no longer fits its context window. " +
  "Read the transcript you are given and produce the requested summary. Do not answer or continue the " +
  "conversation; output only the summary.";

const SECTIONS = `Use exactly these sections, in this order, as markdown headings:
## Goal
What the user wants overall.
## Constraints & Preferences
Requirements, conventions and preferences the user stated.
## Progress
### Done
### In Progress
### Blocked
## Key Decisions
Choices made and why.
## Next Steps
What to do next, in order.
## Critical Context
Exact names, paths, values, error messages and anything else needed to continue without the transcript.
Be concise and concrete; keep identifiers verbatim.`;

export const SUMMARY_PROMPT = `Summarize the conversation in <transcript> so the work can continue from the summary alone.\n\n${SECTIONS}`;

export const UPDATE_SUMMARY_PROMPT = `<previous-summary> holds the summary of the conversation before <transcript>. Produce one updated summary covering both: keep what is still true, update progress, drop what was superseded.\n\n${SECTIONS}`;

export const TURN_PREFIX_PROMPT =
  "<transcript> is the beginning of a single long turn whose remainder is kept verbatim after this summary. " +
  "Summarize what the user asked in this turn and what has been done so far in it (tool calls, findings, " +
  "changes), briefly, so the kept remainder makes sense.";

export interface SummarizeOptions {
  model: Model;
  streamFn: StreamFn;
  apiKey?: string;
  maxTokens: number;
  signal?: AbortSignal;
  reasoning?: "minimal" | "low" | "medium" | "high" | "xhigh";
}

export class CompactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompactionError";
  }
}

/** One model call: `instructions` over the serialized `messages` (and an optional previous summary). */
export async function summarize(
  messages: readonly AgentMessage[],
  instructions: string,
  options: SummarizeOptions,
  previousSummary?: string,
  customInstructions?: string,
): Promise<string> {
  // convertToLlm does not mutate its input; it turns custom roles into the user messages the model would see.
  const transcript = serializeConversation(convertToLlm(messages as AgentMessage[]));
  let text = `<transcript>\n${transcript}\n</transcript>\n\n`;
  if (previousSummary) text = `<previous-summary>\n${previousSummary}\n</previous-summary>\n\n${text}`;
  text += instructions;
  if (customInstructions) text += `\n\nAdditional focus: ${customInstructions}`;
  const stream = await options.streamFn(
    options.model,
    {
      systemPrompt: SUMMARIZATION_SYSTEM_PROMPT,
      messages: [{ role: "user", content: [{ type: "text", text }], timestamp: Date.now() }],
    },
    {
      maxTokens: options.maxTokens,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.reasoning ? { reasoning: options.reasoning } : {}),
    },
  );
  const result: AssistantMessage = await stream.result();
  if (result.stopReason === "aborted") throw new CompactionError("summary aborted");
  if (result.stopReason === "error")
    throw new CompactionError(`summary failed: ${result.errorMessage ?? "unknown error"}`);
  const summary = result.content
    .filter((b): b is { type: "text"; text: string } => b.type === "text")
    .map((b) => b.text)
    .join("")
    .trim();
  if (!summary) throw new CompactionError("summary failed: the model returned no text");
  return summary;
}

/** The file lists appended to every summary (cumulative over compactions), without a leading blank line. */
export function formatFileOperations(ops: FileLists): string {
  return formatFileLists(ops.readFiles, ops.modifiedFiles).trimStart();
}
