/**
 * Tool call blocks and the inline choice prompt as a terminal shows them (@xterm/headless, cell by cell): the
 * header with state and elapsed time, live bash output (newest lines while running), collapsed results with
 * the Ctrl+O hint, edit and write as coloured unified diffs, images as a note with their size.
 */
import { describe, expect, it } from "vitest";
import { ChoicePrompt } from "../src/cli/tui/choice-prompt.js";
import { createTheme, setTheme, theme } from "../src/cli/tui/theme.js";
import { ToolItem } from "../src/cli/tui/tool-item.js";
import { harness } from "./tui-helpers/stream.js";
import { VirtualTerminal } from "./tui-helpers/virtual-terminal.js";

async function show(lines: string[], cols = 70, rows = 30): Promise<VirtualTerminal> {
  const vt = new VirtualTerminal(cols, rows);
  vt.write(lines.join("\r\n"));
  await vt.flush();
  return vt;
}

async function colored<T>(fn: () => Promise<T>): Promise<T> {
  const before = theme;
  setTheme(createTheme({ mode: "dark", color: true }));
  try {
    return await fn();
  } finally {
    setTheme(before);
  }
}

// 8-colour SGR codes 31/32 are palette entries 1 (red) and 2 (green).
const RED = 1;
const GREEN = 2;

describe("tool blocks", () => {
  it("an edit shows as a unified diff: removed lines red, added green, hunk header, no file headers", () =>
    colored(async () => {
      const t = new ToolItem("c1", "edit");
      t.start({ path: "src/app.ts", edits: [{ oldText: "a\nb\nc", newText: "a\nB\nc" }] }, 1000);
      const diff = "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c";
      t.end({ content: [{ type: "text", text: "Edited" }], details: { diff } }, false, 1400);
      const vt = await show(t.render(70));
      const screen = vt.screen();
      expect(screen[1]).toMatch(/^ ✓ edit src\/app\.ts +0\.4s$/);
      expect(screen.join("\n")).not.toContain("+++ b/");
      const minus = vt.find("-b")!;
      const plus = vt.find("+B")!;
      expect(plus.y).toBe(minus.y + 1);
      expect(vt.cell(minus.x, minus.y).fg).toBe(RED);
      expect(vt.cell(plus.x, plus.y).fg).toBe(GREEN);
      expect(vt.cell(vt.find("@@")!.x, vt.find("@@")!.y).fg).not.toBe(-1);
      expect(vt.cell(vt.find(" a")!.x + 1, vt.find(" a")!.y).fg).toBe(-1); // context uncoloured
    }));

  it("a write shows every line added; a long one is collapsed with the Ctrl+O hint, expanded on demand", () =>
    colored(async () => {
      const content = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
      const display = { expanded: false };
      const t = new ToolItem("c2", "write", display);
      t.start({ path: "out.txt", content }, 0);
      t.end({ content: [{ type: "text", text: "Wrote" }], details: { bytes: 200 } }, false, 50);
      const collapsed = await show(t.render(70), 70, 40);
      expect(collapsed.screen()[1]).toContain("✓ write out.txt (30 lines)");
      const first = collapsed.find("+line 1")!;
      expect(collapsed.cell(first.x, first.y).fg).toBe(GREEN);
      expect(collapsed.find("+line 30")).toBeUndefined();
      expect(collapsed.screen().join("\n")).toMatch(/… \d+ more lines · Ctrl\+O to expand/);
      display.expanded = true;
      const expanded = await show(t.render(70), 70, 40);
      expect(expanded.find("+line 30")).toBeDefined();
      expect(expanded.screen().join("\n")).not.toContain("Ctrl+O to expand");
    }));

  it("bash output streams into the block while it runs, newest lines shown, then the start once done", () =>
    colored(async () => {
      const h = harness(60, 20);
      const t = new ToolItem("c3", "bash");
      h.view.add(t);
      t.setArgs("bash", { command: "make test" });
      await h.frame();
      expect(h.vt.screen()[1]).toMatch(/○ bash make test/); // arguments streaming, not started
      t.start({ command: "make test" });
      let out = "";
      for (let i = 1; i <= 20; i++) {
        out += `step ${i}\n`;
        t.update({ content: [{ type: "text", text: out }] });
        await h.frame();
        const screen = h.vt.screen().join("\n");
        expect(screen).toContain(`step ${i}`);
        expect(screen).toMatch(/● bash make test +running \d+\.\ds/);
      }
      const running = h.vt.screen().join("\n");
      expect(running).toContain("… 14 more lines");
      expect(running).not.toMatch(/step 1\n/);
      t.end({ content: [{ type: "text", text: `${out}Exit code: 0` }] }, false);
      await h.frame();
      const all = h.vt.allLines().join("\n");
      expect(all).toMatch(/✓ bash make test +\d+\.\ds/);
      expect(all).toMatch(/step 1\n\s+step 2/); // the finished block shows its start
      expect(all.split("✓ bash").length - 1).toBe(1);
      h.stop();
    }));

  it("an image result is a note with its type, pixel size and byte size", async () => {
    // A 3×2 PNG header (IHDR) is enough for the size.
    const png = Buffer.alloc(64);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
    png.writeUInt32BE(13, 8);
    png.write("IHDR", 12, "ascii");
    png.writeUInt32BE(3, 16);
    png.writeUInt32BE(2, 20);
    const t = new ToolItem("c4", "read");
    t.start({ path: "pic.png" }, 0);
    t.end({ content: [{ type: "image", data: png.toString("base64"), mimeType: "image/png" }] }, false, 10);
    const vt = await show(t.render(70));
    expect(vt.screen().join("\n")).toContain("[image image/png · 3×2 · 64 B]");
    expect(vt.screen()[1]).toMatch(/✓ read pic\.png/);
  });

  it("an error keeps its message, in red", () =>
    colored(async () => {
      const t = new ToolItem("c5", "read");
      t.start({ path: "nope.txt" }, 0);
      t.end({ content: [{ type: "text", text: "ENOENT: no such file" }] }, true, 20);
      const vt = await show(t.render(70));
      expect(vt.screen()[1]).toMatch(/✗ read nope\.txt/);
      const msg = vt.find("ENOENT")!;
      expect(vt.cell(msg.x, msg.y).fg).toBe(RED);
    }));
});

describe("inline choice prompt (the seam for approvals and MCP trust)", () => {
  it("moves with arrows, chooses with Enter or a hotkey, cancels with Esc", async () => {
    const request = {
      question: "Run this command?",
      detail: ["rm -rf build"],
      choices: [
        { value: "yes", label: "Yes", key: "y" },
        { value: "always", label: "Always", key: "a" },
        { value: "no", label: "No", key: "n" },
      ],
      cancel: "no",
    };
    const p1 = new ChoicePrompt(request);
    const vt = await show(p1.render(60));
    expect(vt.screen().join("\n")).toContain("? Run this command?");
    expect(vt.screen().join("\n")).toContain("[y] Yes   [a] Always   [n] No");
    p1.handleInput("\x1b[C"); // →
    p1.handleInput("\r");
    await expect(p1.done).resolves.toBe("always");
    const p2 = new ChoicePrompt(request);
    p2.handleInput("N");
    await expect(p2.done).resolves.toBe("no");
    const p3 = new ChoicePrompt({ ...request, cancel: "denied" });
    p3.handleInput("\x1b");
    await expect(p3.done).resolves.toBe("denied");
  });
});
