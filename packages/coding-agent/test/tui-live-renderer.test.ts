/**
 * The inline renderer against a recording terminal: which bytes each frame writes. Frames must touch only the
 * changed tail of the live region, never clear the screen or scrollback, and hand finished or overflowing lines
 * to the scrollback exactly once.
 */
import type { Terminal } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { LiveRenderer, type LiveRoot } from "../src/cli/tui/live-renderer.js";

class FakeTerminal implements Terminal {
  out: string[] = [];
  columns = 40;
  rows = 10;
  kittyProtocolActive = false;
  start(): void {}
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.out.push(data);
  }
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

/** A live root of plain lines; the first `streaming` lines are committable. */
class Lines implements LiveRoot {
  lines: string[] = [];
  streaming = 0;
  consumed = 0;
  render(): string[] {
    return this.lines.slice(this.consumed);
  }
  invalidate(): void {}
  committableTop(): number {
    return Math.max(0, this.streaming - this.consumed);
  }
  consumeTop(n: number): void {
    this.consumed += n;
  }
}

const visible = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/^\r/, "");
const flush = () => new Promise((r) => setTimeout(r, 40));

describe("live renderer", () => {
  it("redraws only from the first changed line and never clears the screen or scrollback", async () => {
    const term = new FakeTerminal();
    const root = new Lines();
    root.lines = ["reply: hel", "status", "> editor"];
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    root.lines = ["reply: hello wor", "status", "> editor"];
    r.requestRender();
    await flush();
    const frame = term.out[term.out.length - 1]!;
    expect(frame).toContain("\x1b[2A"); // up from the last line to line 0
    expect(visible(frame)).toContain("reply: hello wor");
    root.lines = ["reply: hello wor", "status", "> editor typing"];
    r.requestRender();
    await flush();
    const small = term.out[term.out.length - 1]!;
    expect(visible(small)).toBe("> editor typing"); // only the changed last line
    expect(small).not.toContain("\x1b[1A");
    const all = term.out.join("");
    expect(all).not.toContain("\x1b[2J");
    expect(all).not.toContain("\x1b[3J");
    expect(all.startsWith("\x1b[?2026h") || all.includes("\x1b[?2026h")).toBe(true);
    r.stop();
  });

  it("rewrites only the changed rows when the height is unchanged, leaving the panel below untouched", async () => {
    const term = new FakeTerminal();
    const root = new Lines();
    root.lines = ["reply: one", "status line", "> editor"];
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    root.lines = ["reply: one two", "status line", "> editor"];
    r.requestRender();
    await flush();
    const frame = term.out[term.out.length - 1]!;
    expect(visible(frame)).toBe("reply: one two");
    expect(frame).toContain("\x1b[2A"); // up to the changed row…
    expect(frame).toContain("\x1b[2B"); // …and back down to the last row
    r.stop();
  });

  it("coalesces many updates into one frame", async () => {
    const term = new FakeTerminal();
    const root = new Lines();
    root.lines = ["a"];
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    const before = r.frames;
    for (let i = 0; i < 500; i++) {
      root.lines = [`a${i}`];
      r.requestRender();
    }
    await flush();
    expect(r.frames - before).toBe(1);
    expect(visible(term.out[term.out.length - 1]!)).toBe("a499");
    r.stop();
  });

  it("commits finished lines above the live region once, and moves overflow to the scrollback", async () => {
    const term = new FakeTerminal(); // 10 rows: live region at most 9 lines
    const root = new Lines();
    root.lines = ["status", "> editor"];
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    r.commit(["you › hi"]);
    await flush();
    expect(visible(term.out[term.out.length - 1]!)).toBe("you › hi\r\nstatus\r\n> editor");
    // A streaming reply of 12 lines + 2 panel lines: 5 top lines must go to the scrollback.
    root.lines = [...Array.from({ length: 12 }, (_, i) => `line ${i}`), "status", "> editor"];
    root.streaming = 12;
    r.requestRender();
    await flush();
    const frame = visible(term.out[term.out.length - 1]!);
    expect(frame.startsWith("line 0\r\nline 1\r\nline 2\r\nline 3\r\nline 4\r\nline 5")).toBe(true);
    expect(root.consumed).toBe(5);
    // The next frame does not write the committed lines again.
    root.lines[11] = "line 11!";
    r.requestRender();
    await flush();
    expect(visible(term.out[term.out.length - 1]!)).not.toContain("line 0");
    r.stop();
  });

  it("shows the bottom of a live region that is too tall and cannot be committed yet", async () => {
    const term = new FakeTerminal(); // 10 rows
    const root = new Lines();
    root.lines = Array.from({ length: 20 }, (_, i) => `row ${i}`);
    root.streaming = 0; // nothing committable (e.g. a running tool is first)
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    const shown = visible(term.out.join("")).split("\r\n");
    expect(shown).toEqual(Array.from({ length: 9 }, (_, i) => `row ${i + 11}`));
    r.stop();
  });

  it("truncates lines wider than the terminal so row arithmetic holds", async () => {
    const term = new FakeTerminal();
    term.columns = 20;
    const root = new Lines();
    root.lines = ["x".repeat(50), "end"];
    const r = new LiveRenderer(term, root);
    r.start(() => {});
    const lines = visible(term.out.join("")).split("\r\n");
    expect(lines[0]).toBe("x".repeat(20));
    r.stop();
  });
});
