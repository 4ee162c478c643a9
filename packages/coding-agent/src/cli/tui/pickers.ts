/** The items of the `/model`, `/resume` and `/tree` pickers. */
import type { SelectItem } from "@mariozechner/pi-tui";
import { fuzzyFilter } from "@mariozechner/pi-tui";
import type { Api, Model } from "@tiller/ai";
import type { ModelRegistry } from "../../models/model-registry.js";
import type { SessionManager } from "../../session/session-manager.js";
import type { SessionInfo, SessionTreeNode } from "../../session/types.js";
import { userText } from "./chat-items.js";
import { formatTokens } from "./status-bar.js";

const modelKey = (m: Pick<Model<Api>, "provider" | "id">) => `${m.provider}/${m.id}`;

/** Every catalog model: those of configured providers (with a key) first, the rest marked "no key". */
export function modelItems(registry: ModelRegistry): SelectItem[] {
  const all = registry.getAll();
  const ready = all.filter((m) => registry.hasConfiguredAuth(m));
  const rest = all.filter((m) => !registry.hasConfiguredAuth(m));
  const item = (m: Model<Api>, keyed: boolean): SelectItem => {
    const parts = [
      m.name && m.name !== m.id ? m.name : "",
      m.contextWindow ? `${formatTokens(m.contextWindow)} ctx` : "",
    ];
    if (m.reasoning) parts.push("thinking");
    if (!keyed) parts.push("no key");
    return { value: modelKey(m), label: modelKey(m), description: parts.filter(Boolean).join(" · ") };
  };
  return [...ready.map((m) => item(m, true)), ...rest.map((m) => item(m, false))];
}

/** `provider/id` or a bare id, exactly. */
export function findModel(registry: ModelRegistry, choice: string): Model<Api> | undefined {
  const slash = choice.indexOf("/");
  if (slash > 0) {
    const found = registry.find(choice.slice(0, slash), choice.slice(slash + 1));
    if (found) return found;
  }
  return registry.getAll().find((m) => m.id === choice);
}

/** Models whose name matches `query` fuzzily, best first. */
export function searchModels(registry: ModelRegistry, query: string): SelectItem[] {
  return fuzzyFilter(modelItems(registry), query, (i) => `${i.label} ${i.description ?? ""}`);
}

export function formatAge(date: Date, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 86_400 * 30) return `${Math.floor(s / 86_400)}d ago`;
  return date.toISOString().slice(0, 10);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Sessions newest first: title (name or first message), age and file size. */
export function sessionItems(sessions: readonly SessionInfo[], now = Date.now()): SelectItem[] {
  return sessions.map((s) => ({
    value: s.path,
    label: firstLine(s.name ?? (s.firstMessage || `(empty) ${s.id.slice(0, 8)}`)),
    description: `${formatAge(s.modified, now)} · ${formatSize(s.sizeBytes)}`,
  }));
}

/**
 * The session tree as an indented list of user (›) and assistant (‹) messages; a branch point indents its
 * children. Entries on the current branch are marked with •, the current leaf with "(here)".
 */
export function treeItems(sm: SessionManager): { items: SelectItem[]; current?: string } {
  return treeItemsOf(sm.getTree(), new Set(sm.getBranch().map((e) => e.id)), sm.getLeafId());
}

/** `treeItems` for a tree given as nodes: `onBranch` holds the ids from the root to the current leaf. */
export function treeItemsOf(
  tree: readonly SessionTreeNode[],
  onBranch: ReadonlySet<string>,
  leaf: string | null,
): { items: SelectItem[]; current?: string } {
  const items: SelectItem[] = [];
  let current: string | undefined;
  const walk = (nodes: readonly SessionTreeNode[], depth: number) => {
    for (const n of nodes) {
      const e = n.entry;
      if (e.type === "message") {
        const m = e.message as { role?: string; content?: unknown };
        if (m.role === "user" || m.role === "assistant") {
          const text = m.role === "user" ? userText(m.content) : assistantText(m.content);
          const mark = onBranch.has(e.id) ? "•" : " ";
          items.push({
            value: e.id,
            label: `${mark}${"  ".repeat(Math.min(depth, 12))}${m.role === "user" ? "›" : "‹"} ${firstLine(text)}`,
            ...(e.id === leaf ? { description: "(here)" } : {}),
          });
          if (onBranch.has(e.id)) current = e.id;
        }
      }
      walk(n.children, n.children.length > 1 ? depth + 1 : depth);
    }
  };
  walk(tree, 0);
  return { items, ...(current ? { current } : {}) };
}

export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}

function assistantText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  const text = content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("");
  if (text) return text;
  const tool = content.find((p: { type?: string }) => p.type === "toolCall") as { name?: string } | undefined;
  return tool ? `[${tool.name}]` : "";
}
