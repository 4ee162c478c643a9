/**
 * The inline approval prompt of the terminal UI: while a tool call waits for a decision, the panel shows what
 * will run — for exec approvals the command exactly as it will run, control characters made visible — and
 * `y` allows it once, `n` denies it, `a` allows it always. Requests are asked one at a time, oldest first; one
 * decided elsewhere (timeout, abort) leaves the queue by itself.
 */
import type { Component } from "@mariozechner/pi-tui";
import { APPROVAL_DECISIONS, type ApprovalDecision, type PendingApproval } from "@tiller/agent";
import type { TillerSessionEvent } from "../../agent-session/events.js";
import { c } from "./theme.js";

const KEYS: Record<string, ApprovalDecision> = { y: "allow-once", n: "deny", a: "allow-always" };
const LABELS: Record<ApprovalDecision, string> = {
  "allow-once": "y allow once",
  deny: "n deny",
  "allow-always": "a always",
};

/** Control characters (ESC, CR, …) as visible escapes, so the terminal shows the text instead of obeying it. */
export function visible(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** Hard-wraps a line at `width` columns, keeping every character (a command must read exactly as it runs). */
function hardWrap(line: string, width: number): string[] {
  if (width <= 0 || line.length <= width) return [line];
  const out: string[] = [];
  for (let i = 0; i < line.length; i += width) out.push(line.slice(i, i + width));
  return out;
}

class PromptView implements Component {
  constructor(private approval: PendingApproval) {}

  invalidate(): void {}

  render(width: number): string[] {
    const { request, toolCall } = this.approval;
    const meta = request.meta as { kind?: string; command?: string; cwd?: string } | undefined;
    const lines = ["", ` ${c.yellow("⚠")} ${c.bold(visible(request.title))}`];
    const inner = Math.max(10, width - 5);
    if (meta?.kind === "exec" && typeof meta.command === "string") {
      for (const [i, line] of meta.command.split("\n").entries()) {
        for (const [j, piece] of hardWrap(visible(line), inner).entries()) {
          lines.push(`   ${i === 0 && j === 0 ? c.cyan("$") : " "} ${piece}`);
        }
      }
      if (meta.cwd) lines.push(c.gray(`     in ${visible(meta.cwd)}`));
    } else {
      lines.push(`   ${toolCall.name} ${visible(JSON.stringify(this.approval.args))}`.slice(0, width));
      if (request.description) for (const p of hardWrap(visible(request.description), inner)) lines.push(`   ${p}`);
    }
    const offered = request.decisions ?? APPROVAL_DECISIONS;
    lines.push(`   ${offered.map((d) => c.bold(LABELS[d])).join(c.gray(" · "))}`);
    return lines;
  }
}

/** Queues approval requests and turns keys into decisions. `decide` is `Agent.resolveApproval`. */
export class ApprovalPrompts {
  private queue: PendingApproval[] = [];
  private view: PromptView | undefined;

  constructor(
    private decide: (id: string, decision: ApprovalDecision) => void,
    private onChange: () => void,
  ) {}

  /** Feed every session event (`subscribe(…, { tillerEvents: true })`); changes the queue on approval events. */
  handle(event: TillerSessionEvent): void {
    if (event.type === "tool_approval_request") {
      this.queue.push(event.approval);
      this.refresh();
    } else if (event.type === "tool_approval_end") {
      const id = event.approval.id;
      const before = this.queue.length;
      this.queue = this.queue.filter((a) => a.id !== id);
      if (this.queue.length !== before) this.refresh();
    }
  }

  /** The prompt to show in the panel, if a request waits. */
  panel(): Component[] {
    return this.view ? [this.view] : [];
  }

  get active(): boolean {
    return this.queue.length > 0;
  }

  /** Consumes the key while a prompt is shown (other keys are ignored, not typed into the editor). */
  handleInput(data: string): boolean {
    const current = this.queue[0];
    if (!current) return false;
    const decision = KEYS[data.toLowerCase()];
    const offered = current.request.decisions ?? APPROVAL_DECISIONS;
    if (decision && offered.includes(decision)) {
      this.queue.shift();
      this.refresh();
      this.decide(current.id, decision);
    }
    return true;
  }

  private refresh(): void {
    const head = this.queue[0];
    this.view = head ? new PromptView(head) : undefined;
    this.onChange();
  }
}
