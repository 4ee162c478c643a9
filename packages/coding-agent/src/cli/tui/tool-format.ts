/**
 * What a tool call block shows: the key arguments of the built-in tools, the text of a result (images as a note
 * with their size), and unified diffs coloured line by line.
 */
import { getImageDimensions } from "@mariozechner/pi-tui";
import { unifiedDiff } from "../../tools/diff.js";
import { expandTabs } from "./markdown/inline.js";
import type { Theme } from "./theme.js";

type Args = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));
const oneLine = (s: string, max = 80): string => {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The arguments worth a glance, per tool: the command of bash, the path of read/edit/write, the pattern of grep. */
export function keyArgs(name: string, args: unknown): string {
  if (args === undefined || args === null) return "";
  if (typeof args !== "object") return oneLine(String(args));
  const a = args as Args;
  switch (name) {
    case "bash":
      return oneLine(str(a.command), 120);
    case "read": {
      const range =
        a.offset !== undefined || a.limit !== undefined ? `:${a.offset ?? 1}${a.limit ? `+${a.limit}` : ""}` : "";
      return `${str(a.path)}${range}`;
    }
    case "edit": {
      const n = Array.isArray(a.edits) ? a.edits.length : 0;
      return `${str(a.path)}${n > 1 ? ` (${n} edits)` : ""}`;
    }
    case "write": {
      const lines = typeof a.content === "string" ? a.content.split("\n").length : 0;
      return `${str(a.path)}${lines ? ` (${lines} lines)` : ""}`;
    }
    case "grep":
      return `${oneLine(str(a.pattern), 60)}${a.path ? ` in ${str(a.path)}` : ""}${a.glob ? ` (${str(a.glob)})` : ""}`;
    case "find":
      return `${oneLine(str(a.pattern), 60)}${a.path ? ` in ${str(a.path)}` : ""}`;
    case "ls":
      return str(a.path) || ".";
    default:
      return oneLine(
        Object.entries(a)
          .map(([k, v]) => `${k}=${oneLine(str(v), 40)}`)
          .join(" "),
        120,
      );
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** `[image image/png · 640×480 · 12.3 KB]` for an image content block. */
export function imageNote(data: string, mimeType: string): string {
  const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
  let dims: { widthPx: number; heightPx: number } | null = null;
  try {
    dims = getImageDimensions(data, mimeType);
  } catch {
    dims = null;
  }
  return `[image ${mimeType}${dims ? ` · ${dims.widthPx}×${dims.heightPx}` : ""} · ${formatBytes(bytes)}]`;
}

/** Text of a tool result (`{content: [...]}`), a string, or anything else as JSON. */
export function resultText(result: unknown): string {
  if (result === undefined || result === null) return "";
  if (typeof result === "string") return result;
  const content = (result as { content?: unknown }).content;
  if (Array.isArray(content)) {
    return content
      .map((p: { type?: string; text?: string; data?: string; mimeType?: string }) =>
        p.type === "text" ? (p.text ?? "") : p.type === "image" ? imageNote(p.data ?? "", p.mimeType ?? "image") : "",
      )
      .join("\n");
  }
  try {
    return JSON.stringify(result);
  } catch {
    return String(result);
  }
}

/**
 * The diff an edit or write shows: the edit tool's own diff from its result when there is one, else one built
 * from the arguments (while the call runs, or for a write: every line added).
 */
export function toolDiff(name: string, args: unknown, result: unknown): string | undefined {
  const details = (result as { details?: { diff?: unknown } } | undefined)?.details;
  if (name === "edit" && typeof details?.diff === "string" && details.diff) return details.diff;
  const a = (args ?? {}) as Args;
  const path = str(a.path) || "file";
  if (name === "edit" && Array.isArray(a.edits)) {
    const parts = (a.edits as Array<{ oldText?: unknown; newText?: unknown }>)
      .filter((e) => typeof e.oldText === "string" && typeof e.newText === "string")
      .map((e) =>
        unifiedDiff(e.oldText as string, e.newText as string, path)
          .diff.split("\n")
          .slice(2)
          .join("\n"),
      );
    return parts.length ? [`--- a/${path}`, `+++ b/${path}`, ...parts].join("\n") : undefined;
  }
  if (name === "write" && typeof a.content === "string") return unifiedDiff("", a.content, path).diff;
  return undefined;
}

/** A unified diff's lines coloured: additions, removals, hunk headers; file headers dimmed. */
export function colorDiff(diff: string, theme: Theme): string[] {
  return diff.split("\n").map((raw) => {
    const l = expandTabs(raw);
    if (l.startsWith("+++") || l.startsWith("---")) return theme.gray(l);
    if (l.startsWith("@@")) return theme.diff.hunk(l);
    if (l.startsWith("+")) return theme.diff.added(l);
    if (l.startsWith("-")) return theme.diff.removed(l);
    return theme.diff.context(l);
  });
}
