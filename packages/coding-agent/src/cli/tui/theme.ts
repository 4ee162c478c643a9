/**
 * Colours for the terminal UI: plain SGR sequences (no colour library to load).
 *
 * A theme is a set of style functions built for one palette (dark or light background) and one colour setting.
 * `NO_COLOR` (https://no-color.org) turns colours off; bold, italic, underline and inverse stay, since they are
 * not colours and carry meaning (headings, emphasis, the selected row). The active theme is chosen once at
 * start-up from `NO_COLOR` and `COLORFGBG` (set by xterm, rxvt, iTerm2, Konsole: "fg;bg", bg 7 or 15 = light), and
 * can be replaced with `setTheme` (the `theme` setting).
 */
import type { EditorTheme, SelectListTheme } from "@mariozechner/pi-tui";

export type ThemeMode = "dark" | "light";
type Style = (s: string) => string;

/** Every style the UI uses. Markdown, tool blocks, diffs and the highlighter read only these. */
export interface Theme {
  mode: ThemeMode;
  color: boolean;
  bold: Style;
  dim: Style;
  italic: Style;
  underline: Style;
  strike: Style;
  inverse: Style;
  red: Style;
  green: Style;
  yellow: Style;
  blue: Style;
  magenta: Style;
  cyan: Style;
  gray: Style;
  /** Markdown roles. */
  md: {
    heading: Style;
    code: Style;
    codeBorder: Style;
    link: Style;
    linkUrl: Style;
    quoteBorder: Style;
    quote: Style;
    hr: Style;
    bullet: Style;
    tableBorder: Style;
  };
  /** Diff lines. */
  diff: { added: Style; removed: Style; hunk: Style; context: Style };
  /** highlight.js scopes (the part after `hljs-`, first segment) to styles; unknown scopes print plain. */
  syntax: Record<string, Style>;
}

export interface ThemeOptions {
  mode?: ThemeMode;
  color?: boolean;
}

/** Picks dark or light from `COLORFGBG` ("15;0" = light text on black = dark); dark when unknown. */
export function detectThemeMode(env: NodeJS.ProcessEnv = process.env): ThemeMode {
  const bg = env.COLORFGBG?.split(";").pop();
  if (bg === undefined || bg === "") return "dark";
  const n = Number(bg);
  return n === 7 || n === 15 ? "light" : "dark";
}

export function createTheme(options: ThemeOptions = {}): Theme {
  const mode = options.mode ?? "dark";
  const color = options.color ?? true;
  const attr =
    (open: string, close: string): Style =>
    (s) =>
      `\x1b[${open}m${s}\x1b[${close}m`;
  const fg = (code: string): Style => (color ? (s) => `\x1b[${code}m${s}\x1b[39m` : (s) => s);
  const light = mode === "light";
  // Light backgrounds wash out yellow and bright colours: use the darker variants there.
  const red = fg("31");
  const green = fg("32");
  const yellow = fg(light ? "33" : "93");
  const blue = fg(light ? "34" : "94");
  const magenta = fg(light ? "35" : "95");
  const cyan = fg(light ? "36" : "96");
  const gray = fg("90");
  const bold = attr("1", "22");
  const dim = color ? attr("2", "22") : (s: string) => s;
  const italic = attr("3", "23");
  const underline = attr("4", "24");
  const t: Theme = {
    mode,
    color,
    bold,
    dim,
    italic,
    underline,
    strike: attr("9", "29"),
    inverse: attr("7", "27"),
    red,
    green,
    yellow,
    blue,
    magenta,
    cyan,
    gray,
    md: {
      heading: (s) => bold(cyan(s)),
      code: yellow,
      codeBorder: gray,
      link: (s) => underline(blue(s)),
      linkUrl: gray,
      quoteBorder: gray,
      quote: italic,
      hr: gray,
      bullet: cyan,
      tableBorder: gray,
    },
    diff: { added: green, removed: red, hunk: cyan, context: (s) => s },
    syntax: {
      keyword: magenta,
      built_in: cyan,
      type: cyan,
      literal: blue,
      number: blue,
      string: green,
      regexp: red,
      symbol: blue,
      comment: gray,
      quote: gray,
      doctag: gray,
      meta: gray,
      title: blue,
      function: blue,
      class: yellow,
      attr: yellow,
      attribute: yellow,
      property: cyan,
      variable: red,
      params: (s) => s,
      "template-variable": red,
      "selector-tag": magenta,
      "selector-class": yellow,
      name: magenta,
      tag: gray,
      section: (s) => bold(blue(s)),
      bullet: cyan,
      emphasis: italic,
      strong: bold,
      link: underline,
      addition: green,
      deletion: red,
      subst: (s) => s,
    },
  };
  return t;
}

/** The theme in use. Components read it at render time, so `setTheme` + invalidate restyles everything. */
export let theme: Theme = createTheme({ mode: detectThemeMode(), color: !process.env.NO_COLOR });

export function setTheme(next: Theme): void {
  theme = next;
}

/** Short names for the active theme's base styles (kept for components that only need a colour). */
export const c = {
  bold: (s: string) => theme.bold(s),
  dim: (s: string) => theme.dim(s),
  italic: (s: string) => theme.italic(s),
  underline: (s: string) => theme.underline(s),
  strike: (s: string) => theme.strike(s),
  inverse: (s: string) => theme.inverse(s),
  red: (s: string) => theme.red(s),
  green: (s: string) => theme.green(s),
  yellow: (s: string) => theme.yellow(s),
  blue: (s: string) => theme.blue(s),
  magenta: (s: string) => theme.magenta(s),
  cyan: (s: string) => theme.cyan(s),
  gray: (s: string) => theme.gray(s),
};

export const selectListTheme: SelectListTheme = {
  selectedPrefix: c.cyan,
  selectedText: (s) => c.bold(c.cyan(s)),
  description: c.gray,
  scrollInfo: c.gray,
  noMatch: c.gray,
};

export const editorTheme: EditorTheme = {
  borderColor: c.gray,
  selectList: selectListTheme,
};
