/**
 * The live region: unfinished transcript items, then the panel (selector, status, editor, footer).
 * Finished items at the front are handed to the renderer's scrollback in order, so the transcript stays ordered
 * even when tool calls finish out of order.
 */
import type { Component } from "@mariozechner/pi-tui";
import type { ChatItem } from "./chat-items.js";
import type { LiveRoot } from "./live-renderer.js";

export class ChatView implements LiveRoot {
  private items: ChatItem[] = [];
  /** Lines of `items[0]` already committed while it was still streaming. */
  private skip = 0;
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

  render(width: number): string[] {
    // Commit finished items from the front, in order.
    while (this.items.length > 0 && this.items[0]!.finished()) {
      const item = this.items.shift()!;
      const lines = item.render(width).slice(this.skip);
      this.skip = 0;
      if (lines.length > 0) this.commitSink(lines);
    }
    const out: string[] = [];
    this.items.forEach((item, i) => {
      const lines = item.render(width);
      out.push(...(i === 0 ? lines.slice(this.skip) : lines));
    });
    for (const p of this.panel) out.push(...p.render(width));
    return out;
  }

  committableTop(width: number): number {
    if (this.items.length === 0) return 0;
    // Only the first item's lines: committing part of a later item would reorder the transcript.
    return Math.max(0, this.items[0]!.render(width).length - this.skip);
  }

  consumeTop(n: number): void {
    this.skip += n;
  }
}
