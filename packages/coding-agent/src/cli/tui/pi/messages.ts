/**
 * pi's transcript message components over Tiller's transcript items (../chat-items.ts) and streaming markdown:
 * user and assistant messages, extension (custom) messages, and the collapsible branch-summary, compaction and
 * skill blocks. Each is a pi-tui `Container`/`Box` holding Tiller's item, so it renders at any width and can be
 * placed in a pi-tui tree. Markdown is drawn by Tiller's renderer in the active theme; the `markdownTheme`
 * parameters are accepted for pi's signatures.
 */
import { Box, type Component, Container, type MarkdownTheme, Text } from "@mariozechner/pi-tui";
import type { AssistantMessage } from "@tiller/ai";
import type { ParsedSkillBlock } from "../../../context/skills.js";
import type { BranchSummaryMessage, CompactionSummaryMessage, CustomMessage } from "../../../session/messages.js";
import { AssistantItem, UserItem, userText } from "../chat-items.js";
import { StreamingMarkdown } from "../markdown/streaming-markdown.js";
import { keyText } from "./keybindings.js";
import { currentTheme } from "./theme.js";
import type { MessageRenderer } from "./types.js";

/** Finished markdown (the text will not grow): rendered once per width. */
export function markdownBlock(text: string, paddingX = 1): StreamingMarkdown {
  const md = new StreamingMarkdown({ paddingX });
  md.setText(text);
  md.finish();
  return md;
}

/** A user turn: Tiller's "you ›" line. */
export class UserMessageComponent extends Container {
  constructor(text: string, _markdownTheme?: MarkdownTheme) {
    super();
    this.addChild(new UserItem(text));
  }

  override render(width: number): string[] {
    return super.render(width);
  }
}

/** An assistant reply: thinking (dim) then markdown text, and an error or abort line. */
export class AssistantMessageComponent extends Container {
  private item = new AssistantItem();
  private hideThinking: boolean;
  private hiddenLabel: string;

  constructor(
    message?: AssistantMessage,
    hideThinkingBlock = false,
    _markdownTheme?: MarkdownTheme,
    hiddenThinkingLabel = "Thinking...",
  ) {
    super();
    this.hideThinking = hideThinkingBlock;
    this.hiddenLabel = hiddenThinkingLabel;
    this.item.setThinkingDisplay(!hideThinkingBlock, hiddenThinkingLabel);
    this.addChild(this.item);
    if (message) this.updateContent(message);
  }

  override invalidate(): void {
    super.invalidate();
  }

  setHideThinkingBlock(hide: boolean): void {
    this.hideThinking = hide;
    this.item.setThinkingDisplay(!hide, this.hiddenLabel);
  }

  setHiddenThinkingLabel(label: string): void {
    this.hiddenLabel = label;
    this.item.setThinkingDisplay(!this.hideThinking, label);
  }

  override render(width: number): string[] {
    return super.render(width);
  }

  /** The message so far, or complete: a message with a stop reason other than tool use is its final state. */
  updateContent(message: AssistantMessage): void {
    if (message.stopReason === "error" || message.stopReason === "aborted") this.item.end(message);
    else this.item.update(message);
  }
}

/** A collapsible block: a `[label]` line, then one summary line (collapsed) or the markdown body (expanded). */
abstract class CollapsibleBlock extends Box {
  private expanded = false;

  constructor() {
    super(1, 0);
  }

  protected abstract label(): string;
  protected abstract collapsed(): string;
  protected abstract body(): { title?: string; markdown: string };

  setExpanded(expanded: boolean): void {
    this.expanded = expanded;
    this.rebuild();
  }

  override invalidate(): void {
    super.invalidate();
    this.rebuild();
  }

  protected rebuild(): void {
    const t = currentTheme();
    this.clear();
    this.addChild(new Text("", 0, 0));
    const hint = t.fg("dim", ` (${keyText("app.tools.expand")} to expand)`);
    if (!this.expanded) {
      this.addChild(
        new Text(`${t.fg("customMessageLabel", t.bold(`[${this.label()}]`))} ${this.collapsed()}${hint}`, 0, 0),
      );
      return;
    }
    const { title, markdown } = this.body();
    this.addChild(new Text(t.fg("customMessageLabel", t.bold(`[${this.label()}]`)), 0, 0));
    if (title) this.addChild(new Text(t.bold(title), 0, 0));
    this.addChild(markdownBlock(markdown, 0));
  }
}

/** The summary of an abandoned branch, inserted when the user moved to another point of the tree. */
export class BranchSummaryMessageComponent extends CollapsibleBlock {
  constructor(
    private message: BranchSummaryMessage,
    _markdownTheme?: MarkdownTheme,
  ) {
    super();
    this.rebuild();
  }
  protected label(): string {
    return "branch";
  }
  protected collapsed(): string {
    return "Branch summary";
  }
  protected body() {
    return { title: "Branch Summary", markdown: this.message.summary };
  }
}

/** The summary that replaced older turns when the context was compacted. */
export class CompactionSummaryMessageComponent extends CollapsibleBlock {
  constructor(
    private message: CompactionSummaryMessage,
    _markdownTheme?: MarkdownTheme,
  ) {
    super();
    this.rebuild();
  }
  protected label(): string {
    return "compaction";
  }
  protected collapsed(): string {
    return `Compacted from ${this.message.tokensBefore.toLocaleString("en-US")} tokens`;
  }
  protected body() {
    return { title: this.collapsed(), markdown: this.message.summary };
  }
}

/** A skill the user invoked (`/skill:name`): its name, and its instructions when expanded. */
export class SkillInvocationMessageComponent extends CollapsibleBlock {
  constructor(
    private skillBlock: ParsedSkillBlock,
    _markdownTheme?: MarkdownTheme,
  ) {
    super();
    this.rebuild();
  }
  protected label(): string {
    return "skill";
  }
  protected collapsed(): string {
    return this.skillBlock.name;
  }
  protected body() {
    return { title: this.skillBlock.name, markdown: this.skillBlock.content };
  }
}

/**
 * A message an extension added. Its renderer, when it has one and returns a component, draws it; otherwise a
 * `[customType]` label and the content as markdown.
 */
export class CustomMessageComponent extends Container {
  private expandedView = false;
  private custom: Component | undefined;

  constructor(
    private message: CustomMessage<unknown>,
    private customRenderer?: MessageRenderer,
    _markdownTheme?: MarkdownTheme,
  ) {
    super();
    this.rebuild();
  }

  setExpanded(expanded: boolean): void {
    if (this.expandedView === expanded) return;
    this.expandedView = expanded;
    this.rebuild();
  }

  override invalidate(): void {
    super.invalidate();
    this.rebuild();
  }

  private rebuild(): void {
    this.clear();
    const t = currentTheme();
    if (this.customRenderer) {
      try {
        this.custom = this.customRenderer(this.message, { expanded: this.expandedView }, t);
      } catch {
        // A failing renderer falls back to the default rendering rather than breaking the transcript.
        this.custom = undefined;
      }
      if (this.custom) {
        this.addChild(this.custom);
        return;
      }
    }
    this.addChild(new Text("", 0, 0));
    this.addChild(new Text(t.fg("customMessageLabel", t.bold(`[${this.message.customType}]`)), 1, 0));
    this.addChild(markdownBlock(userText(this.message.content)));
  }
}
