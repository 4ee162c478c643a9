/**
 * Turning messages into the plain-text transcript the summarizer reads, and collecting what the conversation
 * did to files and which tool calls failed (kept verbatim by the safeguard mode).
 */

import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage, ToolResultMessage } from "@tiller/ai";

const TOOL_RESULT_CHARS = 2000;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const b of content as { type?: string; text?: string }[]) {
    if (b.type === "text" && b.text) parts.push(b.text);
    else if (b.type === "image") parts.push("[image]");
  }
  return parts.join("\n");
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${clip(typeof v === "string" ? v : JSON.stringify(v), 200)}`)
    .join(", ");
}

/** The transcript, one labelled block per message. Tool results are clipped to 2,000 characters. */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  const out: string[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "user":
        out.push(`[User]: ${textOf(m.content)}`);
        break;
      case "assistant": {
        for (const b of m.content) {
          if (b.type === "thinking" && b.thinking) out.push(`[Assistant thinking]: ${b.thinking}`);
          else if (b.type === "text" && b.text) out.push(`[Assistant]: ${b.text}`);
          else if (b.type === "toolCall") out.push(`[Assistant tool call]: ${b.name}(${formatArgs(b.arguments)})`);
        }
        if (m.stopReason === "error" && m.errorMessage) out.push(`[Assistant error]: ${m.errorMessage}`);
        break;
      }
      case "toolResult":
        out.push(
          `[Tool result${m.isError ? " (error)" : ""} ${m.toolName}]: ${clip(textOf(m.content), TOOL_RESULT_CHARS)}`,
        );
        break;
      case "bashExecution":
        out.push(`[User ran]: ${m.command}\n${clip(m.output, TOOL_RESULT_CHARS)}`);
        break;
      case "custom":
        out.push(`[${m.customType}]: ${textOf(m.content)}`);
        break;
      case "branchSummary":
        out.push(`[Summary of another branch]: ${m.summary}`);
        break;
      case "compactionSummary":
        out.push(`[Earlier summary]: ${m.summary}`);
        break;
    }
  }
  return out.join("\n\n");
}

/** Files read and modified, from tool calls (read/grep/find/ls read; write/edit modify). */
export interface FileOperations {
  readFiles: string[];
  modifiedFiles: string[];
}

const READ_TOOLS = new Set(["read", "grep", "find", "ls"]);
const WRITE_TOOLS = new Set(["write", "edit"]);

/** Adds the file paths touched by tool calls in `messages` to `into` (deduplicated, order of first use). */
export function collectFileOperations(messages: readonly AgentMessage[], into?: FileOperations): FileOperations {
  const read = new Set(into?.readFiles ?? []);
  const modified = new Set(into?.modifiedFiles ?? []);
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const b of m.content) {
      if (b.type !== "toolCall") continue;
      const path = (b.arguments as { path?: unknown; file_path?: unknown }).path ?? b.arguments.file_path;
      if (typeof path !== "string") continue;
      if (WRITE_TOOLS.has(b.name)) modified.add(path);
      else if (READ_TOOLS.has(b.name)) read.add(path);
    }
  }
  for (const p of modified) read.delete(p);
  return { readFiles: [...read], modifiedFiles: [...modified] };
}

/** Failed tool calls as one line each ("edit(path=a.ts): old text not found"), for the safeguard mode. */
export function collectToolFailures(messages: readonly AgentMessage[], max = 20): string[] {
  const calls = new Map<string, string>();
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const b of (m as AssistantMessage).content)
        if (b.type === "toolCall") calls.set(b.id, `${b.name}(${formatArgs(b.arguments)})`);
    } else if (m.role === "toolResult" && (m as ToolResultMessage).isError) {
      const call = calls.get(m.toolCallId) ?? m.toolName;
      out.push(`${clip(call, 200)}: ${clip(textOf(m.content).replace(/\s+/g, " "), 300)}`);
    }
  }
  return out.slice(-max);
}
