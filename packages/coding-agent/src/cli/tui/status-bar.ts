/** The two lines under the editor: what the agent is doing, and model · thinking · usage. */
import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { AgentSession } from "../../agent-session/index.js";
import { c } from "./theme.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface StatusInfo {
  model: string;
  thinking: string;
  tokens?: number;
  cost?: number;
  /** Estimated tokens in the context now, and the model's window. */
  context?: { tokens: number; window: number };
  session?: string;
}

export class StatusLine implements Component {
  private working = false;
  private label = "";
  private frame = 0;
  private queued = { steer: 0, followUp: 0 };
  private timer: NodeJS.Timeout | undefined;
  private onTick: () => void;

  constructor(onTick: () => void) {
    this.onTick = onTick;
  }

  setWorking(working: boolean, label = "working"): void {
    this.working = working;
    this.label = label;
    if (working && !this.timer) {
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % SPINNER.length;
        this.onTick();
      }, 100);
      this.timer.unref?.();
    } else if (!working && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  setQueued(steer: number, followUp: number): void {
    this.queued = { steer, followUp };
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const q: string[] = [];
    if (this.queued.steer) q.push(`${this.queued.steer} steering`);
    if (this.queued.followUp) q.push(`${this.queued.followUp} follow-up`);
    const queued = q.length ? c.yellow(` [queued: ${q.join(", ")}]`) : "";
    const line = this.working
      ? `${c.cyan(SPINNER[this.frame]!)} ${this.label}…${queued} ${c.gray("Enter steer · Alt+Enter follow-up · Esc abort")}`
      : `${c.gray("Enter send · /help commands · Ctrl+D quit")}${queued}`;
    return [truncateToWidth(` ${line}`, width, "…")];
  }
}

export class InfoLine implements Component {
  private info: StatusInfo = { model: "", thinking: "" };

  set(info: Partial<StatusInfo>): void {
    this.info = { ...this.info, ...info };
  }

  invalidate(): void {}

  render(width: number): string[] {
    const parts = [this.info.model, `thinking ${this.info.thinking}`];
    const ctx = this.info.context;
    if (ctx && ctx.window > 0) {
      const pct = Math.round((ctx.tokens / ctx.window) * 100);
      const text = `ctx ${formatTokens(ctx.tokens)}/${formatTokens(ctx.window)} (${pct}%)`;
      parts.push(pct >= 90 ? c.red(text) : pct >= 70 ? c.yellow(text) : text);
    }
    if (this.info.tokens) parts.push(`${formatTokens(this.info.tokens)} tokens`);
    if (this.info.cost) parts.push(`$${this.info.cost.toFixed(4)}`);
    if (this.info.session) parts.push(this.info.session);
    return [truncateToWidth(` ${parts.map((p) => c.gray(p)).join(c.gray(" · "))}`, width, "…")];
  }
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** What the info line shows for a session: model, thinking level, usage, context fill, session id. */
export function sessionStatusInfo(session: AgentSession): StatusInfo {
  let tokens: number | undefined;
  let cost: number | undefined;
  let context: { tokens: number; window: number } | undefined;
  try {
    const stats = session.getSessionStats();
    tokens = stats.tokens.total;
    cost = stats.cost;
    const usage = session.getContextUsage();
    context = { tokens: usage.tokens, window: usage.contextWindow };
  } catch {
    // stats are cosmetic
  }
  return {
    model: `${session.model.provider}/${session.model.id}`,
    thinking: session.thinkingLevel,
    ...(tokens !== undefined ? { tokens } : {}),
    ...(cost !== undefined ? { cost } : {}),
    ...(context ? { context } : {}),
    session: session.sessionFile ? session.sessionId.slice(0, 8) : "not saved",
  };
}
