/**
 * The live region: unfinished transcript items, then the panel (selector, status, editor, footer).
 * Finished items at the front are handed to the renderer's scrollback in order, so the transcript stays ordered
 * even when tool calls finish out of order.
 *
 * The first item may be partly in the scrollback already (a reply taller than the screen). What was committed is
 * tracked as an amount of text, not as a number of lines, so that after a resize — when the item re-wraps to a
 * different number of lines — the live part starts exactly where the scrollback stops: nothing lost, nothing
 * shown twice.
 */
import type { Component } from "@mariozechner/pi-tui";
import type { ChatItem } from "./chat-items.js";
import type { LiveRoot } from "./live-renderer.js";

const ESCAPES = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b_[^\x07\x1b]*(?:\x07|\x1b\\)/g;
/** Whitespace and box drawing (borders are re-drawn to the width) do not count as content. */
const NOT_CONTENT = /[\s\u2500-\u257f]/u;

function contentChars(line: string): number {
  let n = 0;
  for (const ch of line.replace(ESCAPES, "")) if (!NOT_CONTENT.test(ch)) n++;
  return n;
}

/** The line without its first `drop` content characters (styles dropped: this happens once, after a resize). */
function dropContent(line: string, drop: number): string {
  const plain = line.replace(ESCAPES, "");
  const indent = /^\s*/.exec(plain)![0];
  const chars = Array.from(plain.slice(indent.length));
  let left = drop;
  let k = 0;
  while (k < chars.length && left > 0) {
    if (!NOT_CONTENT.test(chars[k]!)) left--;
    k++;
  }
  return indent + chars.slice(k).join("").trimStart();
}

export class ChatView implements LiveRoot {
  private items: ChatItem[] = [];
  /** Lines of `items[0]` at `viewWidth` already committed while it was still streaming. */
  private skip = 0;
  /** Content characters of line `skip` that are committed too (only after a resize split a line). */
  private drop = 0;
  /** Content characters of `items[0]` committed so far: the width-independent measure of `skip`/`drop`. */
  private committedChars = 0;
  private viewWidth = 0;
  private panel: Component[] = [];
  private commitSink: (lines: string[]) => void;

  constructor(commitSink: (lines: string[]) => void) {
    this.commitSink = commitSink;
  }

  setPanel(components: Component[]): void {
    this.panel = components;
  }

  add(item: ChatItem): void {
    this.items.push(item);
  }

  /** Marks every pending item finished (used when a run ends early). */
  finishAll(): void {
    for (const i of this.items) i.finish();
  }

  get pendingCount(): number {
    return this.items.length;
  }

  invalidate(): void {
    for (const i of this.items) i.invalidate();
    for (const p of this.panel) p.invalidate();
  }

  /** Lines of the first item not yet committed. */
  private headLines(width: number): string[] {
    const item = this.items[0]!;
    const lines = item.render(width);
    if (width !== this.viewWidth) {
      this.viewWidth = width;
      if (this.committedChars > 0) this.remap(lines);
    }
    if (this.skip === 0 && this.drop === 0) return lines;
    const rest = lines.slice(this.skip);
    if (this.drop > 0 && rest.length > 0) rest[0] = dropContent(rest[0]!, this.drop);
    return rest;
  }

  /** Finds where the committed text ends in the item's lines at a new width. */
  private remap(lines: string[]): void {
    let acc = 0;
    let j = 0;
    while (j < lines.length) {
      const c = contentChars(lines[j]!);
      if (acc + c > this.committedChars) break;
      acc += c;
      j++;
    }
    this.skip = j;
    this.drop = this.committedChars - acc;
  }

  private resetHead(): void {
    this.skip = 0;
    this.drop = 0;
    this.committedChars = 0;
  }

  render(width: number): string[] {
    // Commit finished items from the front, in order.
    while (this.items.length > 0 && this.items[0]!.finished()) {
      const lines = this.headLines(width);
      this.items.shift();
      this.resetHead();
      if (lines.length > 0) this.commitSink(lines);
    }
    const out: string[] = [];
    this.items.forEach((item, i) => {
      const lines = i === 0 ? this.headLines(width) : item.render(width);
      for (const l of lines) out.push(l);
    });
    for (const p of this.panel) for (const l of p.render(width)) out.push(l);
    return out;
  }

  committableTop(width: number): number {
    if (this.items.length === 0) return 0;
    // Only the first item's lines: committing part of a later item would reorder the transcript.
    return this.headLines(width).length;
  }

  consumeRendered(lines: readonly string[]): void {
    if (this.items.length === 0) return;
    for (const l of lines) this.committedChars += contentChars(l);
    // Never more than the item holds (the lines could reach into the panel if the item was short).
    const total = this.items[0]!.render(this.viewWidth > 0 ? this.viewWidth : 80).reduce(
      (n, l) => n + contentChars(l),
      0,
    );
    this.committedChars = Math.min(this.committedChars, total);
    this.viewWidth = -1; // re-map skip/drop at the next render
  }

  consumeTop(n: number): void {
    if (this.items.length === 0 || n <= 0) return;
    const head = this.headLines(this.viewWidth);
    for (const l of head.slice(0, n)) this.committedChars += contentChars(l);
    // A split line (drop > 0) is the first of the committed ones: it is now whole in the scrollback.
    this.skip += Math.min(n, head.length);
    this.drop = 0;
  }
}
