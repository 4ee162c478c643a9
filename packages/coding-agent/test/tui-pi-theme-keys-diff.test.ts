/**
 * pi's theme, keybinding-hint and diff functions on Tiller's terminal UI, compared with pi-coding-agent 0.73.1
 * run side by side: the same colour codes for the same theme values, the same languages for the same paths, the
 * same diff text, and keys that follow keybindings.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { setKeybindings } from "@mariozechner/pi-tui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { theme as tillerTheme } from "../src/cli/tui/theme.js";
import {
  getLanguageFromPath,
  getMarkdownTheme,
  getSelectListTheme,
  getSettingsListTheme,
  highlightCode,
  initTheme,
  KeybindingsManager,
  keyHint,
  keyText,
  rawKeyHint,
  renderDiff,
  Theme,
  type ThemeColor,
} from "../src/index.js";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const INVERSE = /\x1b\[7m([^\x1b]*)\x1b\[27m/g;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-pi-tui-"));
  pi.initTheme("dark");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  initTheme("dark");
});

describe("Theme", () => {
  it("sends the same SGR codes as pi's for hex, 256-colour and default values", () => {
    const fg = { accent: "#ff8800", error: 196, text: "" } as Record<ThemeColor, string | number>;
    const bg = { selectedBg: "#00ff00" } as Record<"selectedBg", string>;
    for (const mode of ["truecolor", "256color"] as const) {
      const ours = new Theme(fg, bg as never, mode);
      const theirs = new pi.Theme(fg, bg as never, mode);
      expect(ours.getFgAnsi("accent")).toBe(theirs.getFgAnsi("accent"));
      expect(ours.fg("error", "x")).toBe(theirs.fg("error", "x"));
      expect(ours.bg("selectedBg", "z")).toBe(theirs.bg("selectedBg", "z"));
      expect(strip(ours.fg("text", "plain"))).toBe("plain");
      expect(ours.getColorMode()).toBe(mode);
    }
    expect(new Theme(fg, bg as never, "256color").fg("accent", "x")).toBe("\x1b[38;5;208mx\x1b[39m");
  });

  it("rejects a bad colour when built and an unknown role when used, like pi", () => {
    expect(() => new Theme({ accent: "bogus" } as never, {} as never, "256color")).toThrow(
      "Invalid color value: bogus",
    );
    const t = new Theme({ accent: 1 } as never, {} as never, "256color");
    expect(() => t.fg("nope" as ThemeColor, "x")).toThrow("Unknown theme color: nope");
  });

  it("initTheme switches the pi-facing theme and Tiller's own components together", () => {
    initTheme("light");
    expect(tillerTheme.mode).toBe("light");
    const light = keyHint("app.interrupt", "abort");
    initTheme("dark");
    expect(tillerTheme.mode).toBe("dark");
    const dark = keyHint("app.interrupt", "abort");
    expect(strip(light)).toBe(strip(dark));
    // An unknown name falls back to dark, as in pi.
    initTheme("no-such-theme");
    expect(tillerTheme.mode).toBe("dark");
  });

  it("gives markdown, list and settings styles in the theme's colours", () => {
    initTheme("dark");
    const md = getMarkdownTheme();
    expect(strip(md.heading("Title"))).toBe("Title");
    expect(md.heading("Title")).not.toBe("Title");
    expect(md.highlightCode?.("const x = 1;", "ts").length).toBe(1);
    const list = getSelectListTheme();
    expect(strip(list.selectedText("row"))).toBe("row");
    expect(list.selectedText("row")).toContain("\x1b[1m");
    const settings = getSettingsListTheme();
    expect(settings.value("on", true)).not.toBe(settings.value("on", false));
  });
});

describe("highlightCode and getLanguageFromPath", () => {
  it("highlights per line with the text intact, plain for an unknown language", () => {
    initTheme("dark");
    const code = "const x = 1; // one\nfunction f() { return 'a'; }";
    const ours = highlightCode(code, "typescript");
    const theirs = pi.highlightCode(code, "typescript");
    expect(ours.map(strip)).toEqual(theirs.map(strip));
    expect(ours[0]).toContain("\x1b[");
    expect(highlightCode("just text", "no-such-lang")).toEqual(["just text"]);
  });

  it("maps file paths to the languages pi maps them to", () => {
    const paths = ["a.ts", "b.py", "Dockerfile", "x.rs", "y.sh", "z.unknown", "Makefile", "q.md", "r.json"];
    paths.push("s.yml", "t.go", "c.h", "k.kt", "x.tsx", "x.jsx", "x.mjs", "dir.v2/file", "noext", "A.JAVA");
    expect(paths.map(getLanguageFromPath)).toEqual(paths.map(pi.getLanguageFromPath));
  });
});

describe("keyText, keyHint, rawKeyHint", () => {
  it("prints a binding's keys, and follows keybindings.json once the manager is installed", () => {
    expect(keyText("tui.select.cancel")).toBe("escape/ctrl+c");
    expect(keyText("app.tools.expand")).toBe("ctrl+o");
    writeFileSync(join(dir, "keybindings.json"), JSON.stringify({ "app.tools.expand": ["ctrl+e", "f2"] }));
    const km = KeybindingsManager.create(dir);
    expect(km.getKeys("app.tools.expand" as never)).toEqual(["ctrl+e", "f2"]);
    expect(km.matches("\x05", "app.tools.expand" as never)).toBe(true);
    expect(km.getEffectiveConfig()["app.interrupt"]).toBe("escape");
    setKeybindings(km);
    try {
      expect(keyText("app.tools.expand")).toBe("ctrl+e/f2");
      expect(strip(keyHint("app.tools.expand", "expand"))).toBe("ctrl+e/f2 expand");
      writeFileSync(join(dir, "keybindings.json"), JSON.stringify({ "app.tools.expand": "ctrl+x" }));
      km.reload();
      expect(keyText("app.tools.expand")).toBe("ctrl+x");
    } finally {
      setKeybindings(new KeybindingsManager());
    }
    expect(strip(rawKeyHint("esc", "abort"))).toBe(strip(pi.rawKeyHint("esc", "abort")));
  });

  it("reports a malformed keybindings.json with its path", () => {
    writeFileSync(join(dir, "keybindings.json"), "{ not json");
    expect(() => KeybindingsManager.create(dir)).toThrow(/keybindings\.json: not valid JSON/);
    writeFileSync(join(dir, "keybindings.json"), JSON.stringify({ "app.exit": 5 }));
    expect(() => KeybindingsManager.create(dir)).toThrow(/"app.exit" must be a key or a list of keys/);
  });
});

describe("renderDiff", () => {
  it("shows pi's numbered diffs with the same text as pi, coloured per line", () => {
    initTheme("dark");
    const diff =
      "-1 const a = 1;\n+1 const a = 2;\n 2 x\n+3 y\n-4 p\n-5 q\n+4 r\n     ...\nnot a diff line\n+7   indented";
    expect(strip(renderDiff(diff))).toBe(strip(pi.renderDiff(diff)));
    const lines = renderDiff(diff).split("\n");
    expect(lines[0]).toContain("\x1b[38;5;1m");
    expect(lines[1]).toContain("\x1b[38;5;2m");
    expect(lines[2]).toContain("\x1b[38;5;8m");
    // Tabs are expanded as in the rest of Tiller's UI (pi leaves them in lines it does not parse).
    expect(renderDiff("\tstray")).not.toContain("\t");
  });

  it("marks only the changed words of a one-line change, never the indentation", () => {
    const out = renderDiff("-3     return total + tax;\n+3     return total - discount;").split("\n");
    expect([...out[0]!.matchAll(INVERSE)].map((m) => m[1])).toEqual(["+", "tax"]);
    expect([...out[1]!.matchAll(INVERSE)].map((m) => m[1])).toEqual(["-", "discount"]);
    expect(strip(out[1]!)).toBe("+3     return total - discount;");
    // Several lines replaced: no word marks.
    expect(renderDiff("-1 a b\n-2 c\n+1 a x")).not.toMatch(INVERSE);
  });

  it("reads unified diffs (Tiller's edit tool) too", () => {
    const out = renderDiff("--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line").split("\n");
    expect(out.map(strip)).toEqual(["--- a/f.ts", "+++ b/f.ts", "@@ -1,2 +1,2 @@", " keep", "-old line", "+new line"]);
    expect([...out[4]!.matchAll(INVERSE)].map((m) => m[1])).toEqual(["old"]);
  });
});
