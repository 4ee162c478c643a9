/**
 * Markdown for assistant text: marked with raw HTML escaped (model output never becomes markup), links
 * limited to http(s)/mailto, and fenced code highlighted by highlight.js (a core with common languages, to
 * keep the bundle small) inside a block that carries a copy button (wired by delegation in the transcript).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdownLang from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";

const LANGUAGES = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown: markdownLang,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, fn] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, fn);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "mjs", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SAFE_URL = /^(https?:|mailto:|#)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    code({ text, lang }) {
      const language = (lang ?? "").trim().split(/\s+/, 1)[0] ?? "";
      const known = language && hljs.getLanguage(language);
      const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHtml(text);
      const label = known ? escapeHtml(language) : "text";
      return (
        `<div class="code-block"><div class="code-head"><span>${label}</span>` +
        `<button type="button" class="copy" data-copy aria-label="Copy code">Copy</button></div>` +
        `<pre><code class="hljs">${body}</code></pre></div>`
      );
    },
    link({ href, title, tokens }) {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href)) return text;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${t} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image({ text }) {
      // No remote images (the page works offline and loads nothing from elsewhere): show the alt text.
      return escapeHtml(text);
    },
  },
});

/** Renders Markdown to HTML that is safe to assign to innerHTML. */
export function renderMarkdown(src: string): string {
  return marked.parse(src, { async: false }) as string;
}
