/**
 * One tool call in the transcript, as a compact block: state, name, key arguments and elapsed time on one line;
 * below it the output (bash streams live), collapsed to a few lines unless expanded (Ctrl+O); edit and write as a
 * coloured unified diff.
 */
import { truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import type { ChatItem } from "./chat-items.js";
import { expandTabs } from "./markdown/inline.js";
import { wrapStyled } from "./markdown/wrap.js";
import { theme } from "./theme.js";
import { colorDiff, keyArgs, resultText, toolDiff } from "./tool-format.js";

/** Shared by all tool blocks of a view; Ctrl+O flips it. */
export interface ToolDisplay {
  expanded: boolean;
}

const COLLAPSED_LINES = 6;
const COLLAPSED_DIFF_LINES = 14;

type State = "streaming" | "running" | "ok" | "error";

export function formatElapsed(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

function wrapOne(line: string, width: number): string[] {
  return line ? wrapStyled(line, width) : [""];
}

export class ToolItem implements ChatItem {
  readonly id: string;
  private name: string;
  private args: unknown;
  private state: State = "streaming";
  private output = "";
  private result: unknown;
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private display: ToolDisplay;
  private cache: { key: string; lines: string[] } | undefined;

  constructor(id: string, name: string, display: ToolDisplay = { expanded: false }) {
    this.id = id;
    this.name = name;
    this.display = display;
  }

  setArgs(name: string, args: unknown): void {
    this.name = name || this.name;
    this.args = args;
    this.cache = undefined;
  }

  start(args: unknown, now = Date.now()): void {
    this.args = args ?? this.args;
    this.state = "running";
    this.startedAt = now;
    this.cache = undefined;
  }

  /** Live output (bash streams its output so far). */
  update(partial: unknown): void {
    this.output = resultText(partial);
    this.cache = undefined;
  }

  end(result: unknown, isError: boolean, now = Date.now()): void {
    this.result = result;
    this.output = resultText(result);
    this.state = isError ? "error" : "ok";
    this.endedAt = now;
    this.cache = undefined;
  }

  get toolName(): string {
    return this.name;
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

  private elapsed(): string {
    if (this.startedAt === undefined) return "";
    return formatElapsed((this.endedAt ?? Date.now()) - this.startedAt);
  }

  /** The block's lines; `expanded` overrides the shared setting (Ctrl+O on a finished call re-shows it whole). */
  render(width: number, expanded = this.display.expanded): string[] {
    const elapsed = this.elapsed();
    const key = `${width}|${expanded}|${elapsed}`;
    if (this.cache?.key === key) return this.cache.lines;
    const th = theme;
    const icon =
      this.state === "ok"
        ? th.green("✓")
        : this.state === "error"
          ? th.red("✗")
          : th.yellow(this.state === "running" ? "●" : "○");
    const stateText =
      this.state === "running"
        ? th.yellow(`running ${elapsed}`)
        : this.state === "streaming"
          ? th.gray("…")
          : th.gray(elapsed);
    const head = ` ${icon} ${th.bold(this.name)} ${th.gray(keyArgs(this.name, this.args))}`;
    const right = ` ${stateText}`;
    const room = Math.max(1, width - visibleWidth(right));
    const lines = ["", truncateToWidth(head, room, "…") + right];
    const diff = this.state !== "error" ? toolDiff(this.name, this.args, this.result) : undefined;
    if (diff) {
      // Hide the ---/+++ header: the path is in the block's first line.
      const body = colorDiff(diff, th).filter((l, i) => !(i < 2 && /^(\x1b\[[0-9;]*m)*(---|\+\+\+) /.test(l)));
      this.pushBody(lines, body, width, expanded ? Infinity : COLLAPSED_DIFF_LINES, "head");
    } else {
      const out = expandTabs(this.output.replace(/\s+$/, ""));
      if (out) {
        const color = this.state === "error" ? th.red : th.gray;
        // Live bash output: show the newest lines; a finished result: its start.
        const which = this.state === "running" ? "tail" : "head";
        this.pushBody(
          lines,
          out.split("\n").map((l) => color(l)),
          width,
          expanded ? Infinity : COLLAPSED_LINES,
          which,
        );
      }
    }
    this.cache = { key, lines };
    return lines;
  }

  /**
   * The body, collapsed to `max` rows: only the source lines that can show are wrapped (a 10,000-line output
   * costs the same as a short one), and the hint counts the source lines left out.
   */
  private pushBody(lines: string[], body: string[], width: number, max: number, keep: "head" | "tail"): void {
    const inner = Math.max(1, width - 3);
    const rows: string[] = [];
    let used = 0;
    if (keep === "head") {
      for (; used < body.length && rows.length < max; used++) for (const w of wrapOne(body[used]!, inner)) rows.push(w);
      if (rows.length > max) rows.length = max;
    } else {
      const tail: string[][] = [];
      let n = 0;
      for (let i = body.length - 1; i >= 0 && n < max; i--, used++) {
        const w = wrapOne(body[i]!, inner);
        tail.push(w);
        n += w.length;
      }
      for (let i = tail.length - 1; i >= 0; i--) rows.push(...tail[i]!);
      if (rows.length > max) rows.splice(0, rows.length - max);
    }
    const hidden = body.length - used;
    const more = theme.gray(`   … ${hidden} more line${hidden === 1 ? "" : "s"} · Ctrl+O to expand`);
    if (hidden > 0 && keep === "tail") lines.push(more);
    for (const l of rows) lines.push(truncateToWidth(`   ${l}`, width, ""));
    if (hidden > 0 && keep === "head") lines.push(more);
  }
}
