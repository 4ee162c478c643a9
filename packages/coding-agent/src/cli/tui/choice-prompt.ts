/**
 * An inline choice shown in the panel above the editor: a question, some context lines, and a row of options
 * with hotkeys — the seam for tool approvals and the MCP trust prompt. ←/→ (or ↑/↓, Tab) move, Enter chooses
 * the highlighted option, an option's key chooses it at once, Esc resolves with the `cancel` value.
 */
import { type Component, matchesKey, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { c } from "./theme.js";

export interface Choice {
  /** What `done` resolves with. */
  value: string;
  label: string;
  /** One printable character that picks this choice directly (shown in brackets). */
  key?: string;
}

export interface ChoiceRequest {
  question: string;
  /** Lines shown under the question (e.g. the command to approve), dimmed. */
  detail?: string[];
  choices: Choice[];
  /** Resolved on Esc; default: undefined. */
  cancel?: string;
  /** Highlighted first; default: the first choice. */
  selected?: string;
}

export class ChoicePrompt implements Component {
  private index: number;
  private resolve!: (value: string | undefined) => void;
  readonly done: Promise<string | undefined>;

  constructor(private request: ChoiceRequest) {
    if (request.choices.length === 0) throw new Error("a choice prompt needs at least one choice");
    this.index = Math.max(
      0,
      request.choices.findIndex((ch) => ch.value === request.selected),
    );
    this.done = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  handleInput(data: string): void {
    const n = this.request.choices.length;
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.resolve(this.request.cancel);
      return;
    }
    if (matchesKey(data, "enter")) {
      this.resolve(this.request.choices[this.index]!.value);
      return;
    }
    if (matchesKey(data, "left") || matchesKey(data, "up") || matchesKey(data, "shift+tab")) {
      this.index = (this.index + n - 1) % n;
      return;
    }
    if (matchesKey(data, "right") || matchesKey(data, "down") || matchesKey(data, "tab")) {
      this.index = (this.index + 1) % n;
      return;
    }
    const hit = this.request.choices.find((ch) => ch.key && ch.key.toLowerCase() === data.toLowerCase());
    if (hit) this.resolve(hit.value);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const lines = ["", ...wrapTextWithAnsi(` ${c.bold(c.yellow("?"))} ${c.bold(this.request.question)}`, width)];
    for (const d of this.request.detail ?? []) lines.push(truncateToWidth(`   ${c.gray(d)}`, width, "…"));
    const row = this.request.choices
      .map((ch, i) => {
        const text = ch.key ? `[${ch.key}] ${ch.label}` : ch.label;
        return i === this.index ? c.inverse(c.bold(` ${text} `)) : ` ${text} `;
      })
      .join(" ");
    lines.push(truncateToWidth(`   ${row}`, width, "…"));
    lines.push(truncateToWidth(c.gray("   ←→ move · Enter choose · Esc cancel"), width, "…"));
    return lines;
  }
}
