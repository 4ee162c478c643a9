/** One tool call in the transcript: name and arguments as they stream, then its live output and final result. */
import { Text, truncateToWidth } from "@mariozechner/pi-tui";
import type { ChatItem } from "./chat-items.js";
import { c } from "./theme.js";

const PREVIEW_LINES = 8;

type State = "streaming" | "running" | "ok" | "error";

export class ToolItem implements ChatItem {
  readonly id: string;
  private name: string;
  private args: unknown;
  private state: State = "streaming";
  private output = "";
  private cache: { width: number; lines: string[] } | undefined;

  constructor(id: string, name: string) {
    this.id = id;
    this.name = name;
  }

  setArgs(name: string, args: unknown): void {
    this.name = name || this.name;
    this.args = args;
    this.cache = undefined;
  }

  start(args: unknown): void {
    this.args = args ?? this.args;
    this.state = "running";
    this.cache = undefined;
  }

  update(partial: unknown): void {
    this.output = resultText(partial);
    this.cache = undefined;
  }

  end(result: unknown, isError: boolean): void {
    this.output = resultText(result);
    this.state = isError ? "error" : "ok";
    this.cache = undefined;
  }

  finished(): boolean {
    return this.state === "ok" || this.state === "error";
  }
  finish(): void {
    if (!this.finished()) {
      this.state = "error";
      if (!this.output) this.output = "(not run)";
      this.cache = undefined;
    }
  }
  invalidate(): void {
    this.cache = undefined;
  }

  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const icon =
      this.state === "ok"
        ? c.green("✓")
        : this.state === "error"
          ? c.red("✗")
          : c.yellow(this.state === "running" ? "…" : "·");
    const header = ` ${icon} ${c.bold(this.name)} ${c.gray(summarizeArgs(this.args))}`;
    const lines = ["", truncateToWidth(header, width, "…")];
    const out = this.output.replace(/\s+$/, "");
    if (out) {
      const all = out.split("\n");
      const shown = all.slice(-PREVIEW_LINES);
      if (all.length > shown.length) lines.push(c.gray(`   … ${all.length - shown.length} more lines`));
      const color = this.state === "error" ? c.red : c.gray;
      for (const l of shown) lines.push(...new Text(color(l), 3, 0).render(width).slice(0, 2));
    }
    this.cache = { width, lines };
    return lines;
  }
}

function summarizeArgs(args: unknown): string {
  if (args === undefined || args === null) return "";
  if (typeof args !== "object") return String(args);
  const entries = Object.entries(args as Record<string, unknown>);
  const parts = entries.map(([k, v]) => {
    const s = typeof v === "string" ? v : JSON.stringify(v);
    const one = (s ?? "").replace(/\s+/g, " ");
    return `${k}=${one.length > 60 ? `${one.slice(0, 57)}...` : one}`;
  });
  return parts.join(" ");
}

/** Text of a tool result (`{content: [...]}`), a string, or anything else as JSON. */
export function resultText(result: unknown): string {
  if (result === undefined || result === null) return "";
  if (typeof result === "string") return result;
  const content = (result as { content?: unknown }).content;
  if (Array.isArray(content)) {
    return content
      .map((p: { type?: string; text?: string }) =>
        p.type === "text" ? (p.text ?? "") : p.type === "image" ? "[image]" : "",
      )
      .join("\n");
  }
  try {
    return JSON.stringify(result);
  } catch {
    return String(result);
  }
}
