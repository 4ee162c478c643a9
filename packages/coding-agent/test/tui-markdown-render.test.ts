/**
 * Markdown as the user sees it: a reply streamed through the real renderer into a terminal emulator
 * (@xterm/headless), checked cell by cell — styles, bullets, table borders lined up, wide characters taking two
 * columns, code highlighted, and half-received constructs (open fence, table without its delimiter row,
 * unclosed bold) shown sensibly and re-rendered once complete.
 */
import { describe, expect, it } from "vitest";
import { AssistantItem } from "../src/cli/tui/chat-items.js";
import { StreamingMarkdown } from "../src/cli/tui/markdown/streaming-markdown.js";
import { createTheme, setTheme, theme } from "../src/cli/tui/theme.js";
import { harness } from "./tui-helpers/stream.js";

const SAMPLE = `# Release notes

Some **bold words**, *italic*, ~~gone~~, \`inline code\` and a [docs link](https://example.com/docs).

## Lists

- first item
- second item
  1. nested one
  2. nested two
- [x] a done task

> quoted line with **emphasis**

| Fruit | Qty |
|:------|----:|
| apple | 3 |
| 香蕉 | 12 |
| 🍎 | 7 |

\`\`\`ts
const answer: number = 42; // the answer
\`\`\`

---

The end.`;

function withTheme<T>(color: boolean, fn: () => Promise<T>): Promise<T> {
  const before = theme;
  setTheme(createTheme({ mode: "dark", color }));
  return fn().finally(() => setTheme(before));
}

describe("markdown in the terminal", () => {
  it("renders every construct of a streamed reply, cell by cell", () =>
    withTheme(true, async () => {
      const h = harness(60, 60);
      await h.stream(SAMPLE, 9);
      const { vt } = h;
      const screen = vt.screen();
      const text = screen.join("\n");
      // No Markdown syntax left on screen.
      expect(text).not.toContain("**");
      expect(text).not.toContain("```");
      expect(text).not.toContain("# Release");
      expect(text).not.toMatch(/\|---/);

      // Heading: bold, underlined (level 1), coloured.
      const h1 = vt.find("Release notes")!;
      expect(h1.x).toBe(1); // one column of padding
      expect(vt.cell(h1.x, h1.y)).toMatchObject({ bold: true, underline: true });
      expect(vt.cell(h1.x, h1.y).fg).not.toBe(-1);
      const h2 = vt.find("Lists")!;
      expect(vt.cell(h2.x, h2.y)).toMatchObject({ bold: true, underline: false });

      // Emphasis.
      const bold = vt.find("bold words")!;
      expect(vt.cell(bold.x, bold.y).bold).toBe(true);
      expect(vt.cell(bold.x - 2, bold.y).bold).toBe(false); // "Some " is plain
      const it = vt.find("italic")!;
      expect(vt.cell(it.x, it.y).italic).toBe(true);
      const code = vt.find("inline code")!;
      expect(vt.cell(code.x, code.y).fg).not.toBe(-1);

      // Lists: bullets, nested numbering indented under the item text, task box.
      const first = vt.find("• first item")!;
      const nested = vt.find("1. nested one")!;
      expect(nested.x).toBe(first.x + 2);
      expect(vt.find("2. nested two")!.x).toBe(nested.x);
      expect(vt.find("• ☑ a done task")).toBeDefined();

      // Block quote: a border, italic text.
      const quote = vt.find("│ quoted line")!;
      expect(vt.cell(quote.x + 2, quote.y).italic).toBe(true);

      // Table: borders in the same columns on every row, wide characters counted as two cells.
      const top = vt.find("┌───")!;
      const rows = [top.y, top.y + 1, top.y + 2, top.y + 3, top.y + 4, top.y + 5, top.y + 6];
      const borderCols = (y: number) =>
        Array.from({ length: 60 }, (_, x) => x).filter(
          (x) => vt.cell(x, y).chars !== "" && "│┌┐└┘├┤┬┴┼".includes(vt.cell(x, y).chars),
        );
      const expected = borderCols(top.y);
      expect(expected).toHaveLength(3);
      for (const y of rows) expect(borderCols(y)).toEqual(expected);
      const banana = vt.find("香蕉")!;
      expect(vt.cell(banana.x, banana.y)).toMatchObject({ chars: "香", width: 2 });
      expect(vt.cell(banana.x + 2, banana.y)).toMatchObject({ chars: "蕉", width: 2 });
      const apple = vt.find("🍎")!;
      expect(vt.cell(apple.x, apple.y).width).toBe(2);
      // Right-aligned quantity column: "12" ends where "Qty" ends.
      const qty = vt.find("Qty")!;
      expect(vt.find("12 │")!.x + 2).toBe(qty.x + 3);

      // Code block: framed, keyword and comment in different colours, no fence markers.
      const fence = vt.find("┌─ ts")!;
      const kw = vt.find("const answer")!;
      expect(kw.y).toBe(fence.y + 1);
      expect(vt.cell(kw.x, kw.y).fg).not.toBe(-1);
      const comment = vt.find("// the answer")!;
      expect(vt.cell(comment.x, comment.y).fg).not.toBe(vt.cell(kw.x, kw.y).fg);
      expect(screen[fence.y + 2]).toMatch(/^\s*└─/);

      // Link without OSC 8 support: the text, then the address.
      expect(text).toMatch(/docs link\s+\(https:\/\/example\.com\/docs\)/);
      expect(vt.find("The end.")).toBeDefined();
      h.stop();
    }));

  it("shows a code block while its fence is open and closes it when the fence arrives", () =>
    withTheme(true, async () => {
      const h = harness(50, 30);
      const reply = "Here:\n\n```python\ndef f(x):\n    return x * 2\n\nprint(f(3))\n```\nDone.";
      const seen: string[][] = [];
      await h.stream(reply, 4, (sofar) => {
        if (sofar.includes("return x") && !sofar.includes("f(3))\n`")) seen.push(h.vt.screen());
      });
      expect(seen.length).toBeGreaterThan(0);
      const open = seen[seen.length - 1]!.join("\n");
      expect(open).toContain("┌─ python");
      expect(open).toContain("│ def f(x):");
      expect(open).not.toContain("└"); // not closed yet
      expect(open).not.toContain("```");
      const { vt } = h;
      const def = vt.find("def f(x)")!;
      expect(vt.cell(def.x, def.y).fg).not.toBe(-1); // keyword highlighted
      expect(vt.find("└─")!.y).toBeGreaterThan(vt.find("print(f(3))")!.y);
      expect(vt.find("Done.")!.y).toBeGreaterThan(vt.find("└─")!.y);
      h.stop();
    }));

  it("shows thinking dim and italic above the reply", () =>
    withTheme(true, async () => {
      const h = harness(50, 20);
      const item = new AssistantItem();
      h.view.add(item);
      item.update({ content: [{ type: "thinking", thinking: "Let me check the **config** first." }] });
      await h.frame();
      const think = h.vt.find("Let me check")!;
      expect(h.vt.cell(think.x, think.y)).toMatchObject({ italic: true });
      expect(h.vt.screen().join("\n")).not.toContain("**");
      item.end({
        content: [
          { type: "thinking", thinking: "Let me check the **config** first." },
          { type: "text", text: "Config is *fine*." },
        ],
        stopReason: "stop",
      });
      await h.frame();
      const reply = h.vt.find("Config is")!;
      expect(reply.y).toBeGreaterThan(think.y);
      expect(h.vt.cell(reply.x, reply.y).italic).toBe(false);
      h.stop();
    }));

  it("renders half-received constructs sensibly: table rows before the delimiter, unclosed bold", () =>
    withTheme(false, async () => {
      const md = new StreamingMarkdown({ hyperlinks: false });
      md.setText("| a | b |");
      expect(md.render(40)).toEqual(["| a | b |"]); // raw until it is known to be a table
      md.setText("| a | b |\n|---|---|\n| 1 | 2");
      const table = md.render(40);
      expect(table[0]).toMatch(/^┌/);
      expect(table.join("\n")).toContain("│ 1 │ 2 │");
      md.setText("| a | b |\n|---|---|\n| 1 | 2 |\n\nsome **bold");
      const lines = md.render(40);
      expect(lines[lines.length - 1]).toBe("some \x1b[1mbold\x1b[22m"); // styled, no literal **
    }));

  it("emits OSC 8 hyperlinks where the terminal supports them, invisible on screen", () =>
    withTheme(true, async () => {
      const md = new StreamingMarkdown({ hyperlinks: true });
      md.setText("see [the docs](https://example.com/x) now");
      md.finish();
      const line = md.render(60)[0]!;
      expect(line).toContain("\x1b]8;;https://example.com/x\x1b\\");
      expect(line).not.toContain("(https://");
      const h = harness(60, 6);
      h.view.add({ render: () => [line], invalidate() {}, finished: () => false, finish() {} });
      await h.frame();
      expect(h.vt.screen()[0]).toBe("see the docs now");
      h.stop();
    }));

  it("a long code block streams highlighted, and ends exactly as if rendered whole", () => {
    const th = createTheme({ color: true });
    const md = new StreamingMarkdown({ theme: th, hyperlinks: false });
    const body = Array.from({ length: 300 }, (_, i) => `const v${i} = "s${i}"; /* c${i} */`);
    for (let n = 10; n <= 300; n += 10) {
      md.setText(`\`\`\`ts\n${body.slice(0, n).join("\n")}\n`);
      const lines = md.render(80);
      // The newest line is highlighted: the keyword carries a colour.
      expect(lines[lines.length - 1]).toMatch(/\x1b\[95mconst\x1b\[39m/);
      expect(lines[lines.length - 1]).toContain(`v${n - 1}`);
    }
    const full = `\`\`\`ts\n${body.join("\n")}\n\`\`\`\n`;
    md.setText(full);
    md.finish();
    const whole = new StreamingMarkdown({ theme: th, hyperlinks: false });
    whole.setText(full);
    whole.finish();
    expect(md.render(80)).toEqual(whole.render(80));
  });

  it("lexes each character a bounded number of times while streaming (no reparse of the whole reply)", () => {
    const md = new StreamingMarkdown({ hyperlinks: false, theme: createTheme({ color: false }) });
    const para = "A paragraph of streamed words that goes on for a while.\n\n";
    const text = para.repeat(200);
    for (let i = 5; i <= text.length; i += 5) {
      md.setText(text.slice(0, i));
      md.render(80);
    }
    // Each delta re-lexes only the block being received (≤ one paragraph), never the whole text.
    expect(md.lexedChars).toBeLessThan(text.length * (para.length / 5 + 2));
    expect(md.lexedChars).toBeLessThan((text.length * text.length) / 5 / 20);
  });
});
