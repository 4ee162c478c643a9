/** Inline Markdown (emphasis, code spans, links, images) from marked's tokens to one ANSI string. */
import type { Token, Tokens } from "marked";
import type { Theme } from "../theme.js";

export interface InlineOptions {
  theme: Theme;
  /** Emit OSC 8 hyperlinks (the terminal supports them); otherwise links print as `text (url)`. */
  hyperlinks: boolean;
}

const ENTITY = /&(?:lt|gt|amp|quot|#39|#x27|nbsp);/g;
const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
  "&quot;": '"',
  "&#39;": "'",
  "&#x27;": "'",
  "&nbsp;": " ",
};

export function decodeEntities(s: string): string {
  return s.includes("&") ? s.replace(ENTITY, (m) => ENTITIES[m] ?? m) : s;
}

/** Tabs as spaces: the terminal's tab stops would not match the width arithmetic. */
export function expandTabs(s: string): string {
  return s.includes("\t") ? s.replace(/\t/g, "    ") : s;
}

export function renderInline(tokens: readonly Token[] | undefined, o: InlineOptions): string {
  if (!tokens) return "";
  let out = "";
  for (const t of tokens) out += renderOne(t, o);
  return out;
}

function renderOne(t: Token, o: InlineOptions): string {
  const th = o.theme;
  switch (t.type) {
    case "text": {
      const tt = t as Tokens.Text;
      return tt.tokens ? renderInline(tt.tokens, o) : clean(tt.text);
    }
    case "escape":
      return (t as Tokens.Escape).text;
    case "strong":
      return th.bold(renderInline((t as Tokens.Strong).tokens, o));
    case "em":
      return th.italic(renderInline((t as Tokens.Em).tokens, o));
    case "del":
      return th.strike(renderInline((t as Tokens.Del).tokens, o));
    case "codespan":
      return th.md.code(clean((t as Tokens.Codespan).text));
    case "br":
      return "\n";
    case "link": {
      const l = t as Tokens.Link;
      const text = renderInline(l.tokens, o) || l.href;
      return link(text, l.href, o);
    }
    case "image": {
      const im = t as Tokens.Image;
      return th.gray(`[image: ${clean(im.text || im.href)}]`);
    }
    case "html":
      return th.gray(clean((t as Tokens.HTML).text));
    case "checkbox":
      return (t as Tokens.Checkbox).checked ? "☑ " : "☐ ";
    default:
      return "raw" in t ? clean(String(t.raw)) : "";
  }
}

function clean(s: string): string {
  return expandTabs(decodeEntities(s));
}

/**
 * A link. With OSC 8 each word gets its own open/close pair, so a link wrapped across lines never leaves a
 * hyperlink open at a line end (the renderer resets only SGR there).
 */
function link(text: string, href: string, o: InlineOptions): string {
  const styled = o.theme.md.link;
  if (o.hyperlinks && /^(https?|mailto|file):/i.test(href)) {
    return text
      .split(/( +)/)
      .map((w) => (w.trim() ? `\x1b]8;;${href}\x1b\\${styled(w)}\x1b]8;;\x1b\\` : w))
      .join("");
  }
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  if (plain === href || `mailto:${plain}` === href) return styled(text);
  return `${styled(text)} ${o.theme.md.linkUrl(`(${href})`)}`;
}
