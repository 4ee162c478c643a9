/**
 * pi's `Theme` class and theme functions, over Tiller's palette (../theme.ts).
 *
 * A pi theme maps named roles (`accent`, `toolDiffAdded`, …) to colours (hex `#rrggbb`, a 256-colour index, or
 * "" for the terminal default). Tiller ships the two palettes its own UI uses, "dark" and "light", expressed as
 * 256-colour indices 0–15 (the terminal's own 16 colours, so they follow its colour scheme like Tiller's UI does).
 * `initTheme` switches both: the pi-facing theme and the one Tiller's components read, so a program mixing pi
 * components and Tiller's sees one palette. `NO_COLOR` leaves roles uncoloured (attributes stay), as in Tiller.
 */
import type { EditorTheme, MarkdownTheme, SelectListTheme, SettingsListTheme } from "@mariozechner/pi-tui";
import type { SourceInfo } from "../../../extensions/source-info.js";
import { highlightLines } from "../markdown/highlight.js";
import { createTheme, setTheme as setTillerTheme, theme as tillerTheme } from "../theme.js";
import type { ThemeBg, ThemeColor, ThemeColorMode } from "./types.js";

const FG_ROLES = [
  "accent",
  "border",
  "borderAccent",
  "borderMuted",
  "success",
  "error",
  "warning",
  "muted",
  "dim",
  "text",
  "thinkingText",
  "userMessageText",
  "customMessageText",
  "customMessageLabel",
  "toolTitle",
  "toolOutput",
  "mdHeading",
  "mdLink",
  "mdLinkUrl",
  "mdCode",
  "mdCodeBlock",
  "mdCodeBlockBorder",
  "mdQuote",
  "mdQuoteBorder",
  "mdHr",
  "mdListBullet",
  "toolDiffAdded",
  "toolDiffRemoved",
  "toolDiffContext",
  "syntaxComment",
  "syntaxKeyword",
  "syntaxFunction",
  "syntaxVariable",
  "syntaxString",
  "syntaxNumber",
  "syntaxType",
  "syntaxOperator",
  "syntaxPunctuation",
  "thinkingOff",
  "thinkingMinimal",
  "thinkingLow",
  "thinkingMedium",
  "thinkingHigh",
  "thinkingXhigh",
  "bashMode",
] as const satisfies readonly ThemeColor[];

/** SGR parameters of a colour value; undefined = leave the text as it is. */
function sgr(value: string | number, mode: ThemeColorMode, layer: 38 | 48): string | undefined {
  if (value === "") return undefined;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new Error(`Invalid color value: ${value}`);
    return `${layer};5;${value}`;
  }
  const m = /^#([0-9a-f]{6})$/i.exec(value);
  if (!m) throw new Error(`Invalid color value: ${value}`);
  const n = Number.parseInt(m[1]!, 16);
  const [r, g, b] = [n >> 16, (n >> 8) & 255, n & 255];
  if (mode === "truecolor") return `${layer};2;${r};${g};${b}`;
  return `${layer};5;${nearest256(r, g, b)}`;
}

/** The closest colour of the 6×6×6 cube or the grey ramp (indices 16–255) to an RGB value. */
function nearest256(r: number, g: number, b: number): number {
  const steps = [0, 95, 135, 175, 215, 255];
  const q = (v: number) => steps.reduce((best, s, i) => (Math.abs(s - v) < Math.abs(steps[best]! - v) ? i : best), 0);
  const [qr, qg, qb] = [q(r), q(g), q(b)];
  const cube = 16 + 36 * qr + 6 * qg + qb;
  const cubeDist = (steps[qr]! - r) ** 2 + (steps[qg]! - g) ** 2 + (steps[qb]! - b) ** 2;
  const grey = Math.min(23, Math.max(0, Math.round(((r + g + b) / 3 - 8) / 10)));
  const gv = 8 + 10 * grey;
  const greyDist = (gv - r) ** 2 + (gv - g) ** 2 + (gv - b) ** 2;
  return greyDist < cubeDist ? 232 + grey : cube;
}

/**
 * pi's theme: style functions per role. Its state lives in closures, not in private fields, so that pi's own
 * `Theme` (whose fields are private) and this one have the same public surface and a pi-typed program can pass
 * either where the other is expected.
 */
export class Theme {
  readonly name?: string;
  readonly sourcePath?: string;
  sourceInfo?: SourceInfo;
  readonly fg: (color: ThemeColor, text: string) => string;
  readonly bg: (color: ThemeBg, text: string) => string;
  readonly getFgAnsi: (color: ThemeColor) => string;
  readonly getBgAnsi: (color: ThemeBg) => string;
  readonly getColorMode: () => ThemeColorMode;

  constructor(
    fgColors: Record<ThemeColor, string | number>,
    bgColors: Record<ThemeBg, string | number>,
    mode: ThemeColorMode,
    options: { name?: string; sourcePath?: string; sourceInfo?: SourceInfo } = {},
  ) {
    if (options.name !== undefined) this.name = options.name;
    if (options.sourcePath !== undefined) this.sourcePath = options.sourcePath;
    if (options.sourceInfo !== undefined) this.sourceInfo = options.sourceInfo;
    // Resolved once: a bad colour fails here, at load, not in the middle of a frame.
    const fgAnsi = new Map<string, string>();
    const bgAnsi = new Map<string, string>();
    for (const [k, v] of Object.entries(fgColors)) {
      const p = sgr(v, mode, 38);
      fgAnsi.set(k, p ? `\x1b[${p}m` : "");
    }
    for (const [k, v] of Object.entries(bgColors)) {
      const p = sgr(v, mode, 48);
      bgAnsi.set(k, p ? `\x1b[${p}m` : "");
    }
    const lookup = (map: Map<string, string>, key: string, kind: string) => {
      const a = map.get(key);
      if (a === undefined) throw new Error(`Unknown theme ${kind}: ${key}`);
      return a;
    };
    this.getFgAnsi = (color) => lookup(fgAnsi, color, "color");
    this.getBgAnsi = (color) => lookup(bgAnsi, color, "background color");
    this.fg = (color, text) => {
      const a = lookup(fgAnsi, color, "color");
      return a ? `${a}${text}\x1b[39m` : text;
    };
    this.bg = (color, text) => {
      const a = lookup(bgAnsi, color, "background color");
      return a ? `${a}${text}\x1b[49m` : text;
    };
    this.getColorMode = () => mode;
  }

  bold(text: string): string {
    return `\x1b[1m${text}\x1b[22m`;
  }
  italic(text: string): string {
    return `\x1b[3m${text}\x1b[23m`;
  }
  underline(text: string): string {
    return `\x1b[4m${text}\x1b[24m`;
  }
  inverse(text: string): string {
    return `\x1b[7m${text}\x1b[27m`;
  }
  strikethrough(text: string): string {
    return `\x1b[9m${text}\x1b[29m`;
  }

  /** The editor border colour for a thinking level (brighter as the level rises). */
  getThinkingBorderColor(level: "off" | "minimal" | "low" | "medium" | "high" | "xhigh"): (str: string) => string {
    const role: Record<typeof level, ThemeColor> = {
      off: "thinkingOff",
      minimal: "thinkingMinimal",
      low: "thinkingLow",
      medium: "thinkingMedium",
      high: "thinkingHigh",
      xhigh: "thinkingXhigh",
    };
    return (s) => this.fg(role[level], s);
  }

  getBashModeBorderColor(): (str: string) => string {
    return (s) => this.fg("bashMode", s);
  }
}

// Terminal colour indices (0–15): Tiller's palette (../theme.ts) uses bright variants on dark backgrounds and
// plain ones on light backgrounds, where bright yellow and cyan wash out.
const RED = 1;
const GREEN = 2;
const GRAY = 8;
function palette(light: boolean) {
  const yellow = light ? 3 : 11;
  const blue = light ? 4 : 12;
  const magenta = light ? 5 : 13;
  const cyan = light ? 6 : 14;
  const fg: Record<ThemeColor, string | number> = {
    accent: cyan,
    border: GRAY,
    borderAccent: cyan,
    borderMuted: GRAY,
    success: GREEN,
    error: RED,
    warning: yellow,
    muted: GRAY,
    dim: GRAY,
    text: "",
    thinkingText: GRAY,
    userMessageText: "",
    customMessageText: "",
    customMessageLabel: magenta,
    toolTitle: "",
    toolOutput: GRAY,
    mdHeading: cyan,
    mdLink: blue,
    mdLinkUrl: GRAY,
    mdCode: yellow,
    mdCodeBlock: "",
    mdCodeBlockBorder: GRAY,
    mdQuote: "",
    mdQuoteBorder: GRAY,
    mdHr: GRAY,
    mdListBullet: cyan,
    toolDiffAdded: GREEN,
    toolDiffRemoved: RED,
    toolDiffContext: GRAY,
    syntaxComment: GRAY,
    syntaxKeyword: magenta,
    syntaxFunction: blue,
    syntaxVariable: RED,
    syntaxString: GREEN,
    syntaxNumber: blue,
    syntaxType: cyan,
    syntaxOperator: "",
    syntaxPunctuation: "",
    thinkingOff: GRAY,
    thinkingMinimal: GRAY,
    thinkingLow: blue,
    thinkingMedium: cyan,
    thinkingHigh: magenta,
    thinkingXhigh: RED,
    bashMode: yellow,
  };
  const bg: Record<ThemeBg, string | number> = {
    selectedBg: light ? 7 : 236,
    userMessageBg: light ? 255 : 235,
    customMessageBg: light ? 254 : 236,
    toolPendingBg: light ? 254 : 236,
    toolSuccessBg: light ? 194 : 22,
    toolErrorBg: light ? 224 : 52,
  };
  return { fg, bg };
}

/** The names `initTheme` accepts. */
export const THEME_NAMES = ["dark", "light"] as const;

/** Tiller's "dark" or "light" palette as a pi theme; with `color: false` every role prints uncoloured. */
export function builtinTheme(name: (typeof THEME_NAMES)[number], color = !process.env.NO_COLOR): Theme {
  const { fg, bg } = palette(name === "light");
  const none = <K extends string>(r: Record<K, string | number>) =>
    Object.fromEntries(Object.keys(r).map((k) => [k, ""])) as Record<K, string>;
  return new Theme(color ? fg : none(fg), color ? bg : none(bg), "256color", { name });
}

let current: Theme = builtinTheme(tillerTheme.mode);

/** The pi theme in use (what the module-level `theme` of pi is). */
export function currentTheme(): Theme {
  return current;
}

/**
 * Selects the theme by name ("dark" or "light"; default: what Tiller detected from `COLORFGBG`) for pi-facing
 * code and Tiller's own components alike. An unknown name falls back to "dark", as pi does. `enableWatcher` is
 * accepted for pi's signature: Tiller's themes are built in, there is no file to watch.
 */
export function initTheme(themeName?: string, _enableWatcher?: boolean): void {
  const name = themeName === "light" || themeName === "dark" ? themeName : themeName ? "dark" : tillerTheme.mode;
  const color = !process.env.NO_COLOR;
  current = builtinTheme(name, color);
  setTillerTheme(createTheme({ mode: name, color }));
}

/** Code as highlighted lines, coloured by the active theme; an unknown or missing language prints plain. */
export function highlightCode(code: string, lang?: string): string[] {
  return highlightLines(code, lang, tillerTheme);
}

// File extensions whose highlight.js grammar is not named after them.
const EXT_LANG: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  rb: "ruby",
  rs: "rust",
  sh: "bash",
  zsh: "bash",
  bash: "bash",
  fish: "bash",
  yml: "yaml",
  md: "markdown",
  h: "c",
  hpp: "cpp",
  cc: "cpp",
  cxx: "cpp",
  cs: "csharp",
  kt: "kotlin",
  htm: "html",
  ps1: "powershell",
  psm1: "powershell",
  dockerfile: "dockerfile",
  makefile: "makefile",
  tf: "hcl",
  hcl: "hcl",
};

/** The highlight language of a file, from its extension (or its name: `Dockerfile`, `Makefile`). */
export function getLanguageFromPath(filePath: string): string | undefined {
  const base = filePath.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  const ext = (dot >= 0 ? base.slice(dot + 1) : base).toLowerCase();
  if (!ext) return undefined;
  if (EXT_LANG[ext]) return EXT_LANG[ext];
  return FG_KNOWN.has(ext) ? ext : undefined;
}

// Extensions that are also highlight.js language names, and languages one would expect a file to be.
const FG_KNOWN = new Set([
  "c",
  "cpp",
  "go",
  "java",
  "php",
  "swift",
  "scala",
  "lua",
  "perl",
  "r",
  "sql",
  "json",
  "yaml",
  "toml",
  "ini",
  "xml",
  "html",
  "css",
  "scss",
  "less",
  "graphql",
  "proto",
  "diff",
  "dart",
  "elixir",
  "erlang",
  "haskell",
  "ocaml",
  "clojure",
  "vim",
  "nix",
  "zig",
]);

/** pi-tui's markdown styles in the active theme's colours (with its highlighter for code blocks). */
export function getMarkdownTheme(): MarkdownTheme {
  const t = current;
  return {
    heading: (s) => t.fg("mdHeading", t.bold(s)),
    link: (s) => t.fg("mdLink", t.underline(s)),
    linkUrl: (s) => t.fg("mdLinkUrl", s),
    code: (s) => t.fg("mdCode", s),
    codeBlock: (s) => t.fg("mdCodeBlock", s),
    codeBlockBorder: (s) => t.fg("mdCodeBlockBorder", s),
    quote: (s) => t.fg("mdQuote", t.italic(s)),
    quoteBorder: (s) => t.fg("mdQuoteBorder", s),
    hr: (s) => t.fg("mdHr", s),
    listBullet: (s) => t.fg("mdListBullet", s),
    bold: (s) => t.bold(s),
    italic: (s) => t.italic(s),
    strikethrough: (s) => t.strikethrough(s),
    underline: (s) => t.underline(s),
    highlightCode,
  };
}

export function getSelectListTheme(): SelectListTheme {
  const t = current;
  return {
    selectedPrefix: (s) => t.fg("accent", s),
    selectedText: (s) => t.fg("accent", t.bold(s)),
    description: (s) => t.fg("muted", s),
    scrollInfo: (s) => t.fg("muted", s),
    noMatch: (s) => t.fg("muted", s),
  };
}

export function getSettingsListTheme(): SettingsListTheme {
  const t = current;
  return {
    label: (s, selected) => (selected ? t.fg("accent", s) : s),
    value: (s, selected) => (selected ? t.fg("accent", s) : t.fg("muted", s)),
    description: (s) => t.fg("dim", s),
    cursor: t.fg("accent", "→ "),
    hint: (s) => t.fg("dim", s),
  };
}

export function getEditorTheme(): EditorTheme {
  return { borderColor: (s) => current.fg("borderMuted", s), selectList: getSelectListTheme() };
}

/** Every foreground role (for tests and theme checks). */
export const THEME_COLORS: readonly ThemeColor[] = FG_ROLES;
