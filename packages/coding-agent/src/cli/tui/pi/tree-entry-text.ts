/**
 * What pi's session tree shows of an entry (one line: `user: …`, `assistant: …`, the tool call a result answers
 * as `[read: src/a.ts]`, bookkeeping entries in brackets) and what its search matches on (the label, the role or
 * entry kind, and the text).
 */
import type { SessionEntry, SessionTreeNode } from "../../../session/types.js";
import { keyArgs } from "../tool-format.js";
import type { Theme } from "./theme.js";

/** A tool call of an assistant message, by id: what a tool result row shows. */
export type ToolCalls = ReadonlyMap<string, { name: string; arguments: unknown }>;

type Message = { role: string; content?: unknown; stopReason?: string; errorMessage?: string; command?: string };
type Part = { type?: string; text?: string; id?: string; name?: string; arguments?: unknown };

const oneLine = (s: string) => s.replace(/[\n\t]/g, " ").trim();
/** Text of a message's content, at most 200 characters (a row shows one line of it). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content.slice(0, 200);
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const p of content as Part[]) {
    if (p.type === "text") text += p.text ?? "";
    if (text.length >= 200) break;
  }
  return text.slice(0, 200);
}

/** Whether content has any non-blank text (an assistant message with only tool calls has none). */
export function hasText(content: unknown): boolean {
  if (typeof content === "string") return content.trim() !== "";
  return Array.isArray(content) && content.some((p: Part) => p.type === "text" && (p.text ?? "").trim() !== "");
}

/** The tool calls of an assistant entry, added to `into`. */
export function collectToolCalls(entry: SessionEntry, into: Map<string, { name: string; arguments: unknown }>): void {
  if (entry.type !== "message") return;
  const m = entry.message as Message;
  if (m.role !== "assistant" || !Array.isArray(m.content)) return;
  for (const p of m.content as Part[]) {
    if (p.type === "toolCall" && p.id && p.name) into.set(p.id, { name: p.name, arguments: p.arguments });
  }
}

/** Words the search matches (lowercased by the caller). */
export function searchText(node: SessionTreeNode): string {
  const e = node.entry;
  const parts = node.label ? [node.label] : [];
  switch (e.type) {
    case "message": {
      const m = e.message as Message;
      parts.push(m.role, textOf(m.content));
      if (m.role === "bashExecution" && m.command) parts.push(m.command);
      break;
    }
    case "custom_message":
      parts.push(e.customType, textOf(e.content));
      break;
    case "compaction":
      parts.push("compaction");
      break;
    case "branch_summary":
      parts.push("branch summary", e.summary);
      break;
    case "session_info":
      parts.push("title", e.name ?? "");
      break;
    case "model_change":
      parts.push("model", e.modelId);
      break;
    case "thinking_level_change":
      parts.push("thinking", e.thinkingLevel);
      break;
    case "custom":
      parts.push("custom", e.customType);
      break;
    case "label":
      parts.push("label", e.label ?? "");
      break;
  }
  return parts.join(" ");
}

/** A tool call as a short bracket: the tool and the argument worth a glance (home shown as ~). */
function toolCallText(name: string, args: unknown): string {
  const home = process.env.HOME || process.env.USERPROFILE || "";
  const shown = keyArgs(name, args);
  return `[${name}: ${home && shown.startsWith(home) ? `~${shown.slice(home.length)}` : shown}]`;
}

/** The row text of an entry, coloured with `t`. */
export function entryText(node: SessionTreeNode, toolCalls: ToolCalls, t: Theme): string {
  const e = node.entry;
  switch (e.type) {
    case "message": {
      const m = e.message as Message;
      if (m.role === "user") return t.fg("accent", "user: ") + oneLine(textOf(m.content));
      if (m.role === "assistant") {
        const text = oneLine(textOf(m.content));
        const head = t.fg("success", "assistant: ");
        if (text) return head + text;
        if (m.stopReason === "aborted") return head + t.fg("muted", "(aborted)");
        if (m.errorMessage) return head + t.fg("error", oneLine(m.errorMessage).slice(0, 80));
        return head + t.fg("muted", "(no content)");
      }
      if (m.role === "toolResult") {
        const r = m as Message & { toolCallId?: string; toolName?: string };
        const call = r.toolCallId ? toolCalls.get(r.toolCallId) : undefined;
        return t.fg("muted", call ? toolCallText(call.name, call.arguments) : `[${r.toolName ?? "tool"}]`);
      }
      if (m.role === "bashExecution") return t.fg("dim", `[bash]: ${oneLine(m.command ?? "")}`);
      return t.fg("dim", `[${m.role}]`);
    }
    case "custom_message":
      return t.fg("customMessageLabel", `[${e.customType}]: `) + oneLine(textOf(e.content));
    case "compaction":
      return t.fg("borderAccent", `[compaction: ${Math.round(e.tokensBefore / 1000)}k tokens]`);
    case "branch_summary":
      return t.fg("warning", "[branch summary]: ") + oneLine(e.summary);
    case "model_change":
      return t.fg("dim", `[model: ${e.modelId}]`);
    case "thinking_level_change":
      return t.fg("dim", `[thinking: ${e.thinkingLevel}]`);
    case "custom":
      return t.fg("dim", `[custom: ${e.customType}]`);
    case "label":
      return t.fg("dim", `[label: ${e.label ?? "(cleared)"}]`);
    case "session_info":
      return e.name
        ? t.fg("dim", `[title: ${e.name}]`)
        : t.fg("dim", "[title: ") + t.italic(t.fg("dim", "empty")) + t.fg("dim", "]");
    default:
      return "";
  }
}

/** When a label was set: the time today, `month/day time` this year, else `yy/month/day time`. */
export function labelTime(iso: string, now = new Date()): string {
  const d = new Date(iso);
  const time = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  if (d.toDateString() === now.toDateString()) return time;
  const day = `${d.getMonth() + 1}/${d.getDate()}`;
  return d.getFullYear() === now.getFullYear()
    ? `${day} ${time}`
    : `${String(d.getFullYear()).slice(-2)}/${day} ${time}`;
}
