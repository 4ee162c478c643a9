/**
 * pi's frame components: a border the width of the view, a bordered spinner for extension work, the footer
 * (Tiller's info line: model, thinking, usage, context fill, plus git branch and extension statuses), and
 * pi's "Armin says hi" easter egg (a short typewriter animation of Tiller's own).
 */
import { type Component, Container, matchesKey, truncateToWidth } from "@mariozechner/pi-tui";
import type { AgentSession } from "../../../agent-session/index.js";
import { InfoLine, sessionStatusInfo } from "../status-bar.js";
import { keyText } from "./keybindings.js";
import { currentTheme, type Theme } from "./theme.js";
import type { RenderHost } from "./tool-execution.js";
import type { ReadonlyFooterDataProvider } from "./types.js";

/** A horizontal rule across the whole width, in the given colour (default: the theme's border colour). */
export class DynamicBorder implements Component {
  constructor(private color: (str: string) => string = (s) => currentTheme().fg("border", s)) {}
  invalidate(): void {}
  render(width: number): string[] {
    return [this.color("─".repeat(Math.max(1, width)))];
  }
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A spinner line between two borders, for work an extension runs; Esc aborts it when it is cancellable. */
export class BorderedLoader extends Container {
  private controller = new AbortController();
  private abortHandler: (() => void) | undefined;
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private cancellable: boolean;

  constructor(
    private tui: RenderHost,
    private theme: Theme,
    private message: string,
    options: { cancellable?: boolean } = {},
  ) {
    super();
    this.cancellable = options.cancellable ?? true;
    const border = (s: string) => this.theme.fg("border", s);
    this.addChild(new DynamicBorder(border));
    this.addChild({ render: (w) => this.line(w), invalidate: () => {} });
    this.addChild(new DynamicBorder(border));
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % SPINNER.length;
      this.tui.requestRender();
    }, 80);
    this.timer.unref?.();
  }

  private line(width: number): string[] {
    const t = this.theme;
    const hint = this.cancellable ? t.fg("muted", ` (${keyText("tui.select.cancel")} to cancel)`) : "";
    return [truncateToWidth(` ${t.fg("accent", SPINNER[this.frame]!)} ${t.fg("text", this.message)}${hint}`, width)];
  }

  /** Aborted when the user cancels. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  set onAbort(fn: (() => void) | undefined) {
    this.abortHandler = fn;
  }

  handleInput(data: string): void {
    if (!this.cancellable) return;
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.controller.abort();
      this.dispose();
      this.abortHandler?.();
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The footer: Tiller's info line for the session, with the git branch and extension statuses after it. */
export class FooterComponent implements Component {
  private info = new InfoLine();
  private autoCompact = true;

  constructor(
    private session: AgentSession,
    private footerData: ReadonlyFooterDataProvider,
  ) {}

  setSession(session: AgentSession): void {
    this.session = session;
  }

  setAutoCompactEnabled(enabled: boolean): void {
    this.autoCompact = enabled;
  }

  invalidate(): void {}

  dispose(): void {}

  render(width: number): string[] {
    const t = currentTheme();
    // Read fresh on each frame: the footer is one line, and the stats are cached by the session.
    this.info.set(sessionStatusInfo(this.session));
    const lines = this.info.render(width);
    const extra: string[] = [];
    const branch = this.footerData.getGitBranch();
    if (branch) extra.push(`⎇ ${branch}`);
    if (!this.autoCompact) extra.push("auto-compact off");
    for (const status of this.footerData.getExtensionStatuses().values()) extra.push(status);
    if (extra.length) lines.push(truncateToWidth(` ${t.fg("muted", extra.join(" · "))}`, width, "…"));
    return lines;
  }
}

const ARMIN = ["  ( •_•)  ", "  ( •_•)>⌐■-■", "  (⌐■_■)  ", "", "  Armin says hi!"];

/** pi's easter egg: a few lines typed out one character per frame, then left on screen. */
export class ArminComponent implements Component {
  private shown = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly total = ARMIN.join("\n").length;

  constructor(private ui: RenderHost) {
    this.timer = setInterval(() => {
      this.shown++;
      if (this.shown >= this.total) this.dispose();
      this.ui.requestRender();
    }, 30);
    this.timer.unref?.();
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = currentTheme();
    const text = ARMIN.join("\n").slice(0, this.shown);
    return ["", ...text.split("\n").map((l) => truncateToWidth(t.fg("accent", l), width))];
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
