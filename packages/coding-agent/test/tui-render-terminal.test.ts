/**
 * What the renderer leaves in a real terminal emulator (@xterm/headless, Unicode 11 widths): a reply that outgrows
 * the screen scrolls into the scrollback with every word exactly once, a resize in the middle of streaming
 * re-flows without stale copies, CJK and emoji are laid out in the right columns, frames touch only the changed
 * tail, and NO_COLOR and the light/dark palettes are honoured.
 */
import { describe, expect, it } from "vitest";
import { StreamingMarkdown } from "../src/cli/tui/markdown/streaming-markdown.js";
import { createTheme, detectThemeMode, setTheme, theme } from "../src/cli/tui/theme.js";
import { harness } from "./tui-helpers/stream.js";
import { VirtualTerminal } from "./tui-helpers/virtual-terminal.js";

function words(n: number, from = 1): string {
  return Array.from({ length: n }, (_, i) => `w${from + i}`).join(" ");
}

/** The numbered words found in the lines, in order. */
function wordOrder(lines: string[]): number[] {
  return lines.flatMap((l) => [...l.matchAll(/\bw(\d+)\b/g)].map((m) => Number(m[1])));
}

async function withTheme<T>(color: boolean, fn: () => Promise<T>): Promise<T> {
  const before = theme;
  setTheme(createTheme({ mode: "dark", color }));
  try {
    return await fn();
  } finally {
    setTheme(before);
  }
}

describe("rendering in a terminal emulator", () => {
  it("streams a reply taller than the screen: each word once, in order, panel only at the bottom", () =>
    withTheme(false, async () => {
      const h = harness(40, 12);
      const reply = `${words(150)}\n\n${words(150, 151)}`;
      const frameBytes: number[] = [];
      let last = h.vt.bytes;
      await h.stream(reply, 12, () => {
        frameBytes.push(h.vt.bytes - last);
        last = h.vt.bytes;
      });
      const all = h.vt.allLines();
      expect(wordOrder(all)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      expect(all.filter((l) => l === "> editor")).toHaveLength(1);
      expect(all[all.length - 1]).toBe("> editor");
      // Only the changed tail is written: no frame rewrites the whole screen (12 rows × 40 columns).
      const steady = frameBytes.slice(5);
      expect(Math.max(...steady)).toBeLessThan(40 * 5);
      h.stop();
    }));

  it("re-flows a resize in the middle of a stream without garbage or lost words", () =>
    withTheme(false, async () => {
      const h = harness(60, 14);
      const reply = `${words(80)}\n\n\`\`\`\n${Array.from({ length: 6 }, (_, i) => `code line ${i}`).join("\n")}\n\`\`\`\n\n${words(80, 81)}`;
      let resized = 0;
      await h.stream(reply, 10, async (sofar) => {
        if (resized === 0 && sofar.length > reply.length / 3) {
          resized = 1;
          h.vt.resize(34);
          await h.frame();
        } else if (resized === 1 && sofar.length > (reply.length * 2) / 3) {
          resized = 2;
          h.vt.resize(72);
          await h.frame();
        }
      });
      expect(resized).toBe(2);
      const all = h.vt.allLines();
      expect(wordOrder(all)).toEqual(Array.from({ length: 160 }, (_, i) => i + 1));
      expect(all.filter((l) => l.includes("> editor"))).toHaveLength(1);
      for (let i = 0; i < 6; i++) expect(all.filter((l) => l.includes(`code line ${i}`))).toHaveLength(1);
      // The live region after the last resize is laid out for the new width.
      const screen = h.vt.screen();
      expect(screen.some((l) => l.length > 60)).toBe(true);
      h.stop();
    }));

  it("survives the screen getting shorter mid-stream: nothing lost or doubled", () =>
    withTheme(false, async () => {
      const h = harness(40, 20);
      const reply = `${words(120)}\n\n${words(120, 121)}`;
      let shrunk = false;
      await h.stream(reply, 12, async (sofar) => {
        // Once the live region fills the 20 rows, shrink to 8: its top is out of the cursor's reach.
        if (!shrunk && sofar.length > reply.length / 2) {
          shrunk = true;
          h.vt.resize(40, 8);
          await h.frame();
        }
      });
      const all = h.vt.allLines();
      expect(wordOrder(all)).toEqual(Array.from({ length: 240 }, (_, i) => i + 1));
      expect(all.filter((l) => l === "> editor")).toHaveLength(1);
      h.stop();
    }));

  it("measures CJK and emoji as two columns: wrapped lines fit and nothing spills or overlaps", () =>
    withTheme(false, async () => {
      const cols = 21;
      const h = harness(cols, 20);
      const reply =
        "漢字かな交じり文と😀絵文字👍🏽が混ざった行です。English words 中文 👨‍👩‍👧 mixed in 한국어 텍스트 end";
      await h.stream(reply, 5);
      const { vt } = h;
      const rows = vt.screen().filter((l) => l.trim() && l !== "> editor");
      // Every character of the reply is on screen once, in order.
      expect(
        rows
          .map((r) => r.trim())
          .join("")
          .replace(/\s+/g, ""),
      ).toBe(reply.replace(/\s+/g, ""));
      for (let y = 0; y < vt.rows; y++) {
        let used = 0;
        for (let x = 0; x < cols; x++) used += vt.cell(x, y).width;
        expect(used).toBeLessThanOrEqual(cols);
      }
      const kanji = vt.find("漢字")!;
      expect(vt.cell(kanji.x, kanji.y)).toMatchObject({ chars: "漢", width: 2 });
      expect(vt.cell(kanji.x + 1, kanji.y).width).toBe(0); // the second half of the wide cell
      expect(vt.cell(kanji.x + 2, kanji.y).chars).toBe("字");
      const smile = vt.find("😀")!;
      expect(vt.cell(smile.x, smile.y).width).toBe(2);
      expect(vt.cell(smile.x + 2, smile.y).chars).toBe("絵");
      h.stop();
    }));

  it("NO_COLOR: no colour in any cell, bold and italic kept", async () => {
    const md = new StreamingMarkdown({ theme: createTheme({ color: false }), hyperlinks: false });
    md.setText("# Head\n\n**b** `code` [l](https://x.org)\n\n```ts\nconst x = 1;\n```\n\n> q");
    md.finish();
    const vt = new VirtualTerminal(40, 16);
    vt.write(md.render(40).join("\r\n"));
    await vt.flush();
    for (let y = 0; y < 16; y++) for (let x = 0; x < 40; x++) expect(vt.cell(x, y).fg).toBe(-1);
    const head = vt.find("Head")!;
    expect(vt.cell(head.x, head.y).bold).toBe(true);
    expect(vt.cell(vt.find("b ")!.x, vt.find("b ")!.y).bold).toBe(true);
  });

  it("light and dark palettes differ where it matters, chosen from COLORFGBG", async () => {
    expect(detectThemeMode({ COLORFGBG: "0;15" })).toBe("light");
    expect(detectThemeMode({ COLORFGBG: "15;0" })).toBe("dark");
    expect(detectThemeMode({})).toBe("dark");
    const fgOf = async (mode: "light" | "dark") => {
      const md = new StreamingMarkdown({ theme: createTheme({ mode }), hyperlinks: false });
      md.setText("x `code` y");
      md.finish();
      const vt = new VirtualTerminal(20, 2);
      vt.write(md.render(20)[0]!);
      await vt.flush();
      const at = vt.find("code")!;
      return vt.cell(at.x, at.y).fg;
    };
    const dark = await fgOf("dark");
    const light = await fgOf("light");
    expect(dark).toBe(11); // bright yellow on dark backgrounds
    expect(light).toBe(3); // plain yellow (darker) on light backgrounds
  });
});
