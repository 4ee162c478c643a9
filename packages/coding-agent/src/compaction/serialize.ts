/**
 * Turning messages into the plain-text transcript the summarizer reads, and collecting what the conversation
 * did to files and which tool calls failed (kept verbatim by the safeguard mode).
 */

import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage, Message, ToolResultMessage } from "@tiller/ai";

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

function joinText(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  let out = "";
  for (const b of content) if (b.type === "text" && b.text) out += b.text;
  return out;
}

/**
 * The transcript the summarizer reads, in pi's text format: `[User]: …`, `[Assistant thinking]: …`,
 * `[Assistant]: …`, `[Assistant tool calls]: name(k=<json>, …); …`, `[Tool result]: …` (clipped to 2,000
 * characters), blocks separated by a blank line. Takes LLM messages: run `convertToLlm` first for custom roles.
 */
export function serializeConversation(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      const text = joinText(m.content);
      if (text) parts.push(`[User]: ${text}`);
    } else if (m.role === "assistant") {
      const texts: string[] = [];
      const thinking: string[] = [];
      const calls: string[] = [];
      for (const b of m.content) {
        if (b.type === "text") texts.push(b.text);
        else if (b.type === "thinking") thinking.push(b.thinking);
        else if (b.type === "toolCall") {
          const args = Object.entries(b.arguments ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
          calls.push(`${b.name}(${args.join(", ")})`);
        }
      }
      if (thinking.length > 0) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
      if (texts.length > 0) parts.push(`[Assistant]: ${texts.join("\n")}`);
      if (calls.length > 0) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
    } else if (m.role === "toolResult") {
      const text = joinText(m.content);
      if (text) parts.push(`[Tool result]: ${truncateForSummary(text)}`);
    }
  }
  return parts.join("\n\n");
}

function truncateForSummary(text: string): string {
  if (text.length <= TOOL_RESULT_CHARS) return text;
  return `${text.slice(0, TOOL_RESULT_CHARS)}\n\n[... ${text.length - TOOL_RESULT_CHARS} more characters truncated]`;
}

/** Files read and modified, from tool calls (read/grep/find/ls read; write/edit modify). */
export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

const READ_TOOLS = new Set(["read", "grep", "find", "ls"]);
const WRITE_TOOLS = new Set(["write", "edit"]);

/** Adds the file paths touched by tool calls in `messages` to `into` (deduplicated, order of first use). */
export function collectFileOperations(messages: readonly AgentMessage[], into?: FileLists): FileLists {
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
