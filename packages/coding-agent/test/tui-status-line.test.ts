/**
 * The two status lines: what the agent does with the queued steering / follow-up counts, and model, thinking
 * level, context used of the window (coloured as it fills), tokens and cost.
 */
import { describe, expect, it } from "vitest";
import { InfoLine, StatusLine } from "../src/cli/tui/status-bar.js";
import { createTheme, setTheme, theme } from "../src/cli/tui/theme.js";
import { VirtualTerminal } from "./tui-helpers/virtual-terminal.js";

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");

describe("status lines", () => {
  it("shows model, thinking, context used / window, tokens and cost", () => {
    const info = new InfoLine();
    info.set({
      model: "anthropic/claude-sonnet-4-5",
      thinking: "high",
      context: { tokens: 45_200, window: 200_000 },
      tokens: 123_456,
      cost: 0.4321,
      session: "01a2b3c4",
    });
    expect(plain(info.render(120)[0]!)).toBe(
      " anthropic/claude-sonnet-4-5 · thinking high · ctx 45k/200k (23%) · 123k tokens · $0.4321 · 01a2b3c4",
    );
  });

  it("turns the context part yellow from 70 % and red from 90 %", async () => {
    const before = theme;
    setTheme(createTheme({ color: true }));
    try {
      const fg = async (tokens: number) => {
        const info = new InfoLine();
        info.set({ model: "m", thinking: "off", context: { tokens, window: 100_000 } });
        const vt = new VirtualTerminal(80, 2);
        vt.write(info.render(80)[0]!);
        await vt.flush();
        const at = vt.find("ctx")!;
        return vt.cell(at.x, at.y).fg;
      };
      expect(await fg(10_000)).toBe(8); // gray like the rest
      expect(await fg(75_000)).toBe(11); // bright yellow
      expect(await fg(95_000)).toBe(1); // red
    } finally {
      setTheme(before);
    }
  });

  it("shows queued steering and follow-ups while working", () => {
    const status = new StatusLine(() => {});
    status.setWorking(true);
    status.setQueued(2, 1);
    const line = plain(status.render(120)[0]!);
    expect(line).toContain("working…");
    expect(line).toContain("[queued: 2 steering, 1 follow-up]");
    status.setWorking(false);
    status.setQueued(0, 0);
    expect(plain(status.render(120)[0]!)).not.toContain("queued");
    status.dispose();
  });
});
