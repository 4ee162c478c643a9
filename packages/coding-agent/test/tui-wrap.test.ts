/**
 * Wrapping styled text (used for every paragraph, cell and tool output line): lines fit the width as a terminal
 * measures them, no word is lost or split unless wider than a line, indentation is kept, and a style open at a
 * break is closed at the line's end and re-opened on the next line. Checked against pi-tui's wrapTextWithAnsi on
 * the same text, and over random styled texts (fast-check).
 */
import { visibleWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wrapStyled } from "../src/cli/tui/markdown/wrap.js";
import { VirtualTerminal } from "./tui-helpers/virtual-terminal.js";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const words = (s: string) => strip(s).split(/\s+/).filter(Boolean);

describe("styled word wrap", () => {
  it("matches pi-tui's line breaks on a long styled paragraph", () => {
    let text = "";
    for (let n = 1; n <= 60; n++) text += `sentence ${n} has \x1b[1msome bold\x1b[22m and \x1b[93mcode\x1b[39m. `;
    const ours = wrapStyled(text, 50).map((l) => strip(l).trim());
    const theirs = wrapTextWithAnsi(text, 50).map((l) => strip(l).trim());
    expect(ours).toEqual(theirs);
  });

  it("closes a style at a break and re-opens it on the next line, as the terminal shows", async () => {
    const lines = wrapStyled("plain \x1b[1mbold words that wrap\x1b[22m end", 12);
    expect(lines.map(strip)).toEqual(["plain bold", "words that", "wrap end"]);
    const vt = new VirtualTerminal(20, 4);
    vt.write(lines.map((l) => `${l} x`).join("\r\n"));
    await vt.flush();
    expect(vt.cell(0, 1).bold).toBe(true); // "words" bold again on its own line
    expect(vt.cell(vt.find("words that x")!.x + 11, 1).bold).toBe(false); // closed before what follows the line
    expect(vt.cell(5, 2).bold).toBe(false); // "end" plain
  });

  it("keeps leading indentation, cuts only words wider than the line, measures wide characters", () => {
    expect(wrapStyled("    indented text here", 12)).toEqual(["    indented", "text here"]);
    expect(wrapStyled("abcdefghijklmnopqrstuvwxyz", 10)).toEqual(["abcdefghij", "klmnopqrst", "uvwxyz"]);
    const cjk = wrapStyled("漢字かな交じり文と😀絵文字が混ざった行", 10);
    for (const l of cjk) expect(visibleWidth(l)).toBeLessThanOrEqual(10);
    expect(cjk.join("")).toBe("漢字かな交じり文と😀絵文字が混ざった行");
  });

  it("never exceeds the width and loses no word, over random styled texts", () => {
    const word = fc.stringMatching(/^[a-z漢字😀]{1,14}$/u);
    const styled = fc
      .tuple(word, fc.constantFrom("", "\x1b[1m", "\x1b[3m", "\x1b[93m"))
      .map(([w, s]) => (s ? `${s}${w}\x1b[0m` : w));
    fc.assert(
      fc.property(fc.array(styled, { minLength: 1, maxLength: 40 }), fc.integer({ min: 4, max: 40 }), (ws, width) => {
        const text = ws.join(" ");
        const lines = wrapStyled(text, width);
        for (const l of lines) expect(visibleWidth(l)).toBeLessThanOrEqual(width);
        expect(words(lines.join(" ")).join("")).toBe(words(text).join(""));
      }),
    );
  });
});
