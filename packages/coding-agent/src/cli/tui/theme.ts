/** Colours for the terminal UI: plain SGR sequences (no colour library to load). `NO_COLOR` turns them off. */
import type { EditorTheme, MarkdownTheme, SelectListTheme } from "@mariozechner/pi-tui";

const enabled = !process.env.NO_COLOR;
const sgr = (open: string, close: string) => (s: string) => (enabled ? `\x1b[${open}m${s}\x1b[${close}m` : s);

export const c = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strike: sgr("9", "29"),
  inverse: sgr("7", "27"),
  red: sgr("31", "39"),
  green: sgr("32", "39"),
  yellow: sgr("33", "39"),
  blue: sgr("34", "39"),
  magenta: sgr("35", "39"),
  cyan: sgr("36", "39"),
  gray: sgr("90", "39"),
};

export const markdownTheme: MarkdownTheme = {
  heading: (s) => c.bold(c.cyan(s)),
  link: c.underline,
  linkUrl: c.gray,
  code: c.yellow,
  codeBlock: (s) => s,
  codeBlockBorder: c.gray,
  quote: c.italic,
  quoteBorder: c.gray,
  hr: c.gray,
  listBullet: c.cyan,
  bold: c.bold,
  italic: c.italic,
  strikethrough: c.strike,
  underline: c.underline,
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
