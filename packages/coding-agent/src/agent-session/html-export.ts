/**
 * The current branch of a session as one self-contained HTML page (pi's `/export`): static markup and inline
 * CSS, no scripts; every text from the session is escaped, so a transcript cannot inject markup into the page.
 * Thinking, tool arguments and the system prompt fold away in `<details>`.
 */

import { existsSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, TextContent } from "@tiller/ai";
import type { SessionManager } from "../session/session-manager.js";
import type { SessionEntry } from "../session/types.js";
import { escapeMarkup } from "../util/escape-markup.js";

const esc = escapeMarkup;

const block = (cls: string, title: string, body: string) =>
  `<section class="${cls}"><h2>${esc(title)}</h2>${body}</section>`;
const pre = (text: string) => `<pre>${esc(text)}</pre>`;
const fold = (summary: string, body: string) => `<details><summary>${esc(summary)}</summary>${body}</details>`;

function contentHtml(content: string | ReadonlyArray<TextContent | ImageContent>): string {
  if (typeof content === "string") return pre(content);
  return content
    .map((b) =>
      b.type === "text" ? pre(b.text) : `<img alt="image" src="data:${esc(b.mimeType)};base64,${esc(b.data)}">`,
    )
    .join("");
}

function messageHtml(m: AgentMessage): string {
  switch (m.role) {
    case "user":
      return block("user", "User", contentHtml(m.content));
    case "assistant": {
      const parts = m.content.map((b) => {
        if (b.type === "text") return pre(b.text);
        if (b.type === "thinking") return fold("Thinking", pre(b.thinking));
        return fold(`Tool call: ${b.name}`, pre(JSON.stringify(b.arguments, null, 2)));
      });
      if (m.stopReason === "error" || m.stopReason === "aborted")
        parts.push(`<p class="error">${esc(m.errorMessage ?? m.stopReason)}</p>`);
      return block("assistant", `Assistant (${m.provider}/${m.model})`, parts.join(""));
    }
    case "toolResult":
      return block(m.isError ? "tool error" : "tool", `Tool result: ${m.toolName}`, contentHtml(m.content));
    case "bashExecution":
      return block("bash", `$ ${m.command}`, pre(m.output) + `<p>exit code ${m.exitCode ?? "none"}</p>`);
    case "custom":
      return m.display ? block("custom", `[${m.customType}]`, contentHtml(m.content)) : "";
    default:
      return "";
  }
}

function entryHtml(e: SessionEntry): string {
  switch (e.type) {
    case "message":
      return messageHtml(e.message);
    case "custom_message":
      return e.display ? block("custom", `[${e.customType}]`, contentHtml(e.content)) : "";
    case "compaction":
      return block("summary", `Compaction summary (${e.tokensBefore} tokens before)`, pre(e.summary));
    case "branch_summary":
      return block("summary", "Summary of another branch", pre(e.summary));
    case "model_change":
      return `<p class="note">Model: ${esc(`${e.provider}/${e.modelId}`)}</p>`;
    case "thinking_level_change":
      return `<p class="note">Thinking level: ${esc(e.thinkingLevel)}</p>`;
    default:
      return "";
  }
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-left:4px solid #ccc;margin:1rem 0;padding:.25rem 1rem}h2{font-size:.85rem;margin:.25rem 0;color:#555}
.user{border-color:#3b82f6}.assistant{border-color:#10b981}.tool{border-color:#a855f7}.error{color:#b91c1c}
.tool.error{border-color:#b91c1c}.bash{border-color:#f59e0b}.summary{border-color:#64748b}.note{color:#777;font-size:.8rem}
pre{white-space:pre-wrap;word-break:break-word;margin:.25rem 0}img{max-width:100%}`;

/**
 * Writes the session's current branch as HTML to `outputPath` (default: `tiller-session-<file name>.html` in the
 * process cwd) and returns the path. Throws for an in-memory session and for one with nothing written yet.
 */
export function exportBranchToHtml(sm: SessionManager, systemPrompt: string, outputPath?: string): string {
  const file = sm.getSessionFile();
  if (!file) throw new Error("Cannot export in-memory session to HTML");
  if (!existsSync(file)) throw new Error("Nothing to export yet - start a conversation first");
  const header = sm.getHeader();
  const title = sm.getSessionName() ?? `Session ${header.id}`;
  const body = sm
    .getBranch()
    .map(entryHtml)
    .filter((h) => h !== "")
    .join("\n");
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${STYLE}</style></head>
<body><h1>${esc(title)}</h1>
<p class="note">${esc(header.cwd)} · started ${esc(header.timestamp)}</p>
${systemPrompt ? fold("System prompt", pre(systemPrompt)) : ""}
${body}
</body></html>
`;
  const path = resolve(outputPath ?? `tiller-session-${basename(file, ".jsonl")}.html`);
  writeFileSync(path, html, { mode: 0o600 });
  return path;
}
