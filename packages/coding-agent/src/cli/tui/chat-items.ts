/** Transcript entries shown in the terminal UI: user turns, assistant replies (thinking + markdown), notices. */
import { type Component, Text, truncateToWidth } from "@mariozechner/pi-tui";
import { StreamingMarkdown } from "./markdown/streaming-markdown.js";
import { c } from "./theme.js";

/** A transcript entry; once `finished()` it is committed to the scrollback and never redrawn. */
export interface ChatItem extends Component {
  finished(): boolean;
  /** Forces the entry to its final state (e.g. the run ended before it completed). */
  finish(): void;
}

/** Text parts of a user message (string or content blocks). */
export function userText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: { type?: string; text?: string }) =>
      p.type === "text" ? (p.text ?? "") : p.type === "image" ? "[image]" : "",
    )
    .join("");
}

export class UserItem implements ChatItem {
  private text: Text;
  constructor(text: string, label = "you") {
    this.text = new Text(`${c.bold(c.green(`${label} ›`))} ${text}`, 1, 0);
  }
  finished(): boolean {
    return true;
  }
  finish(): void {}
  invalidate(): void {
    this.text.invalidate();
  }
  render(width: number): string[] {
    return ["", ...this.text.render(width)];
  }
}

export class NoticeItem implements ChatItem {
  private text: Text;
  constructor(message: string, level: "info" | "warning" | "error" = "info") {
    const color = level === "error" ? c.red : level === "warning" ? c.yellow : c.gray;
    this.text = new Text(color(message), 1, 0);
  }
  finished(): boolean {
    return true;
  }
  finish(): void {}
  invalidate(): void {
    this.text.invalidate();
  }
  render(width: number): string[] {
    return this.text.render(width);
  }
}

interface AssistantLike {
  content?: Array<{ type: string; text?: string; thinking?: string }>;
  stopReason?: string;
  errorMessage?: string;
}

/** The assistant's reply while it streams: thinking (dim) then markdown text. Tool calls are separate items. */
export class AssistantItem implements ChatItem {
  private thinking = new StreamingMarkdown({ paddingX: 1, lineStyle: (l) => c.dim(c.italic(l)) });
  private markdown = new StreamingMarkdown({ paddingX: 1 });
  private footer = new Text("", 1, 0);
  private hasThinking = false;
  private hasText = false;
  private done = false;
  private showThinking: boolean;
  /** Shown in place of hidden thinking (pi's hiddenThinkingLabel); none = hidden thinking takes no line. */
  private hiddenLabel: string | undefined;
  /** The last render; the view asks for it several times per frame. */
  private cache: { width: number; lines: string[] } | undefined;

  constructor(showThinking = true) {
    this.showThinking = showThinking;
  }

  /** Shows or hides the thinking text; hidden thinking shows `hiddenLabel` instead when given. */
  setThinkingDisplay(show: boolean, hiddenLabel?: string): void {
    this.showThinking = show;
    this.hiddenLabel = hiddenLabel;
    this.cache = undefined;
  }

  /** Takes the whole partial message; cheap to call per delta (rendering is deferred to the next frame). */
  update(message: AssistantLike): void {
    let thinking = "";
    let text = "";
    for (const part of message.content ?? []) {
      if (part.type === "thinking" && part.thinking) thinking += part.thinking;
      else if (part.type === "text" && part.text) text += part.text;
    }
    // /\S/ stops at the first visible character: no copy of the growing text per delta.
    this.hasThinking = /\S/.test(thinking);
    this.hasText = /\S/.test(text);
    if (this.hasThinking) this.thinking.setText(thinking.trimStart());
    if (this.hasText) this.markdown.setText(text.trimStart());
    this.cache = undefined;
  }

  end(message: AssistantLike): void {
    this.update(message);
    if (message.stopReason === "aborted") this.footer.setText(c.yellow("⏹ aborted"));
    else if (message.stopReason === "error") this.footer.setText(c.red(`✖ ${message.errorMessage ?? "error"}`));
    this.markdown.finish();
    this.thinking.finish();
    this.done = true;
    this.cache = undefined;
  }

  finished(): boolean {
    return this.done;
  }
  finish(): void {
    this.markdown.finish();
    this.thinking.finish();
    this.done = true;
    this.cache = undefined;
  }
  invalidate(): void {
    this.cache = undefined;
    this.thinking.invalidate();
    this.markdown.invalidate();
    this.footer.invalidate();
  }
  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const lines: string[] = [""];
    // Loops, not push(...spread): a reply can have more lines than a call can take arguments.
    if (this.hasThinking && this.showThinking) for (const l of this.thinking.render(width)) lines.push(l);
    else if (this.hasThinking && this.hiddenLabel)
      lines.push(truncateToWidth(` ${c.dim(c.italic(this.hiddenLabel))}`, width, "…"));
    if (this.hasText) for (const l of this.markdown.render(width)) lines.push(l);
    for (const l of this.footer.render(width)) lines.push(l);
    const out = lines.length === 1 ? [] : lines;
    this.cache = { width, lines: out };
    return out;
  }
}
