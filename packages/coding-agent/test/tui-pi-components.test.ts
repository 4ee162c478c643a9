/**
 * pi's interactive components on Tiller's terminal UI: each renders within the width it is given, shows what pi's
 * shows (compared with pi-coding-agent 0.73.1 run side by side where the text is the same), and answers keys with
 * pi's callbacks and argument types.
 */
import * as pi from "@mariozechner/pi-coding-agent";
import { type Component, Text, type TUI, visibleWidth } from "@mariozechner/pi-tui";
import type { AssistantMessage } from "@tiller/ai";
import { beforeAll, describe, expect, it } from "vitest";
import { editorTheme } from "../src/cli/tui/theme.js";
import {
  AssistantMessageComponent,
  BashExecutionComponent,
  BranchSummaryMessageComponent,
  CompactionSummaryMessageComponent,
  CustomEditor,
  CustomMessageComponent,
  DynamicBorder,
  ExtensionInputComponent,
  ExtensionSelectorComponent,
  getMarkdownTheme,
  initTheme,
  KeybindingsManager,
  SettingsSelectorComponent,
  SkillInvocationMessageComponent,
  ThinkingSelectorComponent,
  ToolExecutionComponent,
  UserMessageComponent,
  UserMessageSelectorComponent,
} from "../src/index.js";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m|\x1b\][^\x07]*\x07/g, "");
const host = { requestRender() {} };
const DOWN = "\x1b[B";
const ENTER = "\r";

/** The component's lines at `width`, checked to fit, without styles. */
function lines(c: Component, width = 50): string[] {
  const out = c.render(width);
  for (const l of out) expect(visibleWidth(l), `"${strip(l)}" fits ${width}`).toBeLessThanOrEqual(width);
  return out.map(strip);
}
const text = (c: Component, width = 50) => lines(c, width).join("\n");

const assistant = (over: Partial<AssistantMessage>): AssistantMessage => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "let me think" },
    { type: "text", text: "# Title\n\nsome *text* here" },
  ],
  api: "openai-completions",
  provider: "p",
  model: "m",
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: 0,
  ...over,
});

beforeAll(() => {
  initTheme("dark");
  pi.initTheme("dark");
});

describe("message components", () => {
  it("draws user and assistant messages, hiding thinking behind a label when asked", () => {
    expect(text(new UserMessageComponent("hello world"))).toContain("hello world");
    const a = new AssistantMessageComponent(assistant({}));
    const shown = text(a, 40);
    expect(shown).toContain("let me think");
    expect(shown).toContain("Title");
    expect(shown).toContain("some text here");
    a.setHideThinkingBlock(true);
    const hidden = text(a, 40);
    expect(hidden).not.toContain("let me think");
    expect(hidden).toContain("Thinking...");
    a.setHiddenThinkingLabel("(reasoning)");
    expect(text(a, 40)).toContain("(reasoning)");
    const failed = new AssistantMessageComponent(
      assistant({ content: [{ type: "text", text: "partial" }], stopReason: "error", errorMessage: "boom" }),
    );
    expect(text(failed)).toContain("boom");
    // Narrow widths wrap rather than overflow.
    lines(new AssistantMessageComponent(assistant({ content: [{ type: "text", text: "word ".repeat(60) }] })), 12);
  });

  it("collapses summaries and skills to one line and shows them whole when expanded, like pi", () => {
    const compaction = {
      role: "compactionSummary",
      summary: "Summary text",
      tokensBefore: 12345,
      timestamp: 0,
    } as const;
    const branch = { role: "branchSummary", summary: "We did X", fromId: "abc", timestamp: 0 } as const;
    const skill = { name: "deploy", location: "/x/SKILL.md", content: "Do the deploy", userMessage: undefined };
    const cases: Array<[Component & { setExpanded(e: boolean): void }, Component & { setExpanded(e: boolean): void }]> =
      [
        [new CompactionSummaryMessageComponent(compaction), new pi.CompactionSummaryMessageComponent(compaction)],
        [new BranchSummaryMessageComponent(branch), new pi.BranchSummaryMessageComponent(branch)],
        [new SkillInvocationMessageComponent(skill), new pi.SkillInvocationMessageComponent(skill)],
      ];
    for (const [ours, theirs] of cases) {
      const words = (c: Component) =>
        text(c)
          .replace(/\([^)]*to expand\)/, "")
          .split(/\s+/)
          .filter(Boolean);
      expect(words(ours)).toEqual(words(theirs));
      ours.setExpanded(true);
      theirs.setExpanded(true);
      expect(words(ours)).toEqual(words(theirs));
    }
    expect(text(new CompactionSummaryMessageComponent(compaction))).toContain("Compacted from 12,345 tokens");
  });

  it("lets an extension's renderer draw its custom message, with the default when it returns nothing", () => {
    const message = { role: "custom", customType: "note", content: "custom **content**", display: true, timestamp: 0 };
    const seen: boolean[] = [];
    const c = new CustomMessageComponent(message as never, (m, options, theme) => {
      seen.push(options.expanded);
      return new Text(theme.fg("accent", `drawn: ${m.customType}`), 0, 0);
    });
    expect(text(c)).toContain("drawn: note");
    c.setExpanded(true);
    expect(seen).toEqual([false, true]);
    const fallback = text(new CustomMessageComponent(message as never, () => undefined, getMarkdownTheme()));
    expect(fallback).toContain("[note]");
    expect(fallback).toContain("custom content");
  });

  it("draws a border the width of the view", () => {
    expect(lines(new DynamicBorder(), 10)).toEqual([strip(new pi.DynamicBorder().render(10)[0]!)]);
  });
});

describe("tool components", () => {
  it("shows a tool call, its result collapsed, and all of it when expanded", () => {
    const t = new ToolExecutionComponent("read", "t1", { path: "a.txt" }, {}, undefined, host, process.cwd());
    expect(text(t)).toContain("read a.txt");
    t.markExecutionStarted();
    const output = Array.from({ length: 20 }, (_, i) => `line${i + 1}`).join("\n");
    t.updateResult({ content: [{ type: "text", text: output }], isError: false });
    const collapsed = text(t);
    expect(collapsed).toContain("line1");
    expect(collapsed).not.toContain("line20");
    expect(collapsed).toMatch(/more lines/);
    t.setExpanded(true);
    expect(text(t)).toContain("line20");
  });

  it("uses a tool definition's renderResult in place of the default body", () => {
    const seen: Array<{ expanded: boolean; isPartial: boolean }> = [];
    const def = {
      renderResult: (r: { content: Array<{ text?: string }> }, o: { expanded: boolean; isPartial: boolean }) => {
        seen.push(o);
        return new Text(`custom: ${r.content[0]?.text}`, 0, 0);
      },
    };
    const t = new ToolExecutionComponent("weather", "t2", { city: "Oslo" }, {}, def, host, process.cwd());
    t.updateResult({ content: [{ type: "text", text: "sunny" }], isError: false }, true);
    expect(text(t)).toContain("custom: sunny");
    expect(text(t)).toContain("weather");
    expect(seen.at(-1)).toEqual({ expanded: false, isPartial: true });
  });

  it("streams a user shell command and reports its exit code", () => {
    const b = new BashExecutionComponent("ls -la", host);
    b.appendOutput("a\n");
    b.appendOutput("b\n");
    expect(text(b)).toContain("ls -la");
    expect(text(b)).toContain("b");
    b.setComplete(1, false);
    expect(text(b)).toContain("(exit 1)");
    expect(b.getOutput()).toBe("a\nb\n");
    expect(b.getCommand()).toBe("ls -la");
  });
});

describe("pickers and dialogs", () => {
  it("picks a thinking level with the same keys as pi", async () => {
    const pick = (C: typeof ThinkingSelectorComponent | typeof pi.ThinkingSelectorComponent) =>
      new Promise<string>((resolve) => {
        const s = new C("low", ["off", "low", "high"], resolve, () => resolve("cancelled"));
        s.getSelectList().handleInput(DOWN);
        s.getSelectList().handleInput(ENTER);
      });
    expect(await pick(ThinkingSelectorComponent)).toBe(await pick(pi.ThinkingSelectorComponent));
    expect(await pick(ThinkingSelectorComponent)).toBe("high");
  });

  it("answers an extension's select once, and cancels it on timeout", async () => {
    const picked = await new Promise<string>((resolve) => {
      const s = new ExtensionSelectorComponent("Pick one", ["alpha", "beta"], resolve, () => resolve("cancelled"));
      expect(text(s)).toContain("Pick one");
      s.handleInput(DOWN);
      s.handleInput(ENTER);
    });
    expect(picked).toBe("beta");
    const timedOut = await new Promise<string>((resolve) => {
      new ExtensionSelectorComponent("Late", ["a"], resolve, () => resolve("cancelled"), { timeout: 50 });
    });
    expect(timedOut).toBe("cancelled");
  });

  it("takes text in an extension's input, and Esc cancels", async () => {
    const typed = await new Promise<string>((resolve) => {
      const i = new ExtensionInputComponent("Name?", undefined, resolve, () => resolve("cancelled"));
      for (const ch of "hi") i.handleInput(ch);
      i.handleInput(ENTER);
    });
    expect(typed).toBe("hi");
    const cancelled = await new Promise<string>((resolve) => {
      new ExtensionInputComponent("Name?", undefined, resolve, () => resolve("cancelled")).handleInput("\x1b");
    });
    expect(cancelled).toBe("cancelled");
  });

  it("forks from a user message chosen in the list", async () => {
    const id = await new Promise<string>((resolve) => {
      const s = new UserMessageSelectorComponent(
        [
          { id: "1", text: "first msg" },
          { id: "2", text: "second" },
        ],
        resolve,
        () => resolve("cancelled"),
        "1",
      );
      expect(text(s)).toContain("first msg");
      s.getMessageList().handleInput(DOWN);
      s.getMessageList().handleInput(ENTER);
    });
    expect(id).toBe("2");
  });

  it("reports a settings change through its callback with the value's type", () => {
    const changes: unknown[] = [];
    const noop = () => {};
    const callbacks = new Proxy({} as Record<string, unknown>, {
      get: (_t, name) => (name === "onAutoCompactChange" ? (v: boolean) => changes.push(v) : noop),
    });
    const config = {
      autoCompact: true,
      showImages: true,
      imageWidthCells: 60,
      autoResizeImages: true,
      blockImages: false,
      enableSkillCommands: true,
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      transport: "sse",
      thinkingLevel: "low",
      availableThinkingLevels: ["off", "low"],
      currentTheme: "dark",
      availableThemes: ["dark", "light"],
      hideThinkingBlock: false,
      collapseChangelog: false,
      enableInstallTelemetry: false,
      doubleEscapeAction: "tree",
      treeFilterMode: "default",
      showHardwareCursor: false,
      editorPaddingX: 1,
      autocompleteMaxVisible: 5,
      quietStartup: false,
      clearOnShrink: false,
      showTerminalProgress: false,
      warnings: {},
    } as const;
    const s = new SettingsSelectorComponent(
      { ...config, availableThinkingLevels: ["off", "low"], availableThemes: ["dark", "light"] },
      callbacks as never,
    );
    expect(text(s, 70)).toContain("Auto-compact");
    s.handleInput(ENTER);
    expect(changes).toEqual([false]);
  });

  it("routes app keys in the custom editor before editing keys", () => {
    const tui = { requestRender() {}, terminal: { rows: 30, columns: 80 } } as unknown as TUI;
    const e = new CustomEditor(tui, editorTheme, new KeybindingsManager());
    const calls: string[] = [];
    e.onAction("app.tools.expand", () => calls.push("expand"));
    e.onEscape = () => calls.push("escape");
    e.onCtrlD = () => calls.push("ctrl+d");
    e.handleInput("\x04");
    e.handleInput("\x0f");
    e.handleInput("\x1b");
    for (const ch of "hi") e.handleInput(ch);
    e.handleInput("\x04");
    expect(calls).toEqual(["ctrl+d", "expand", "escape"]);
    expect(e.getText()).toBe("hi");
    // A user binding moves the action to other keys.
    const moved = new CustomEditor(tui, editorTheme, new KeybindingsManager({ "app.tools.expand": "ctrl+e" }));
    moved.onAction("app.tools.expand", () => calls.push("moved"));
    moved.handleInput("\x05");
    expect(calls.at(-1)).toBe("moved");
  });
});
