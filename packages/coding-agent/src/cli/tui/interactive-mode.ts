/**
 * The interactive terminal UI (default when stdin is a terminal). Enter sends; while the agent works Enter steers
 * and Alt+Enter queues a follow-up; Esc aborts; Ctrl+O expands tool output. Keys: the README's table.
 * Rendering: see live-renderer.ts (scrollback kept, no flicker).
 */
import {
  CombinedAutocompleteProvider,
  Editor,
  type KeyId,
  matchesKey,
  ProcessTerminal,
  type SelectItem,
  type SlashCommand,
  setKeybindings,
  type TUI,
} from "@mariozechner/pi-tui";
import type { ImageContent } from "@tiller/ai";
import { errorOf } from "../../extensions/instantiate.js";
import type { ExtensionShortcut } from "../../extensions/types.js";
import type { CliArgs } from "../args.js";
import { CliUsageError } from "../errors.js";
import { readVersion } from "../main.js";
import { type CliSetup, setupSession, shutdown, submit } from "../session-setup.js";
import { ApprovalPrompts } from "./approval-prompt.js";
import { type ChatItem, NoticeItem } from "./chat-items.js";
import { ChatView } from "./chat-view.js";
import { ChoicePrompt, type ChoiceRequest } from "./choice-prompt.js";
import { SessionEventHandler } from "./event-handler.js";
import { LiveRenderer } from "./live-renderer.js";
import { askMcpTrust } from "./mcp-trust-prompt.js";
import { KeybindingsManager, keyText, loadKeybindings } from "./pi/keybindings.js";
import type { AppKeybinding } from "./pi/types.js";
import { replayItems } from "./replay.js";
import { Selector, type SelectorOptions } from "./selector.js";
import { BUILTIN_COMMANDS, type CommandHost, runBuiltinCommand } from "./slash-commands.js";
import { InfoLine, StatusLine, sessionStatusInfo } from "./status-bar.js";
import { c, createTheme, editorTheme, setTheme, type ThemeMode } from "./theme.js";

export async function runInteractiveMode(args: CliArgs): Promise<number> {
  let handler: SessionEventHandler | undefined;
  const notify = (m: string, level: "info" | "warning" | "error" = "info") => handler?.notice(m, level);
  let setup: CliSetup;
  try {
    setup = await setupSession(args, { hasUI: true, canAskApprovals: true, notify, confirmMcpTrust: askMcpTrust });
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`tiller: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const first = args.messages.join(" ").trim();
  // keybindings.json in the Tiller home remaps the app and editor keys; a bad file is reported, not fatal.
  const { manager: keybindings, warning } = loadKeybindings();
  const notices = warning ? [{ message: warning, level: "warning" as const }] : [];
  setKeybindings(keybindings);
  return new InteractiveApp(setup, {
    keybindings,
    notices,
    resume: args.resume,
    initialMessages: first ? [{ text: first }] : [],
    exposeHandler: (h) => (handler = h),
    openSession: async (path, current) => {
      const next = await setupSession(
        { ...args, continue: false, session: path, messages: [] },
        { hasUI: true, canAskApprovals: true, notify: (m, l) => handler?.notice(m, l) },
      );
      await shutdown(current);
      return next;
    },
    close: shutdown,
  }).run();
}

/** How the app gets its sessions: from the CLI's arguments, or from an SDK runtime (pi's InteractiveMode). */
export interface InteractiveAppOptions {
  /** Open the `/resume` picker at start. */
  resume?: boolean;
  /** Sent in order once the UI is up. */
  initialMessages?: Array<{ text: string; images?: ImageContent[] }>;
  /** Shown as notices at start (after the setup's own notes). */
  notices?: Array<{ message: string; level: "info" | "warning" | "error" }>;
  exposeHandler?: (h: SessionEventHandler) => void;
  /** Replaces `current` with the session stored at `path` (shutting `current` down) and returns its setup. */
  openSession(path: string, current: CliSetup): Promise<CliSetup>;
  /** Ends the session when the user quits. */
  close(setup: CliSetup): Promise<void>;
  /** The keys of the app actions (Esc, Alt+Enter, Ctrl+C, Ctrl+O, Ctrl+D by default). */
  keybindings?: KeybindingsManager;
}

export class InteractiveApp implements CommandHost {
  setup: CliSetup;
  private renderer: LiveRenderer;
  private view: ChatView;
  private editor: Editor;
  private status: StatusLine;
  private info = new InfoLine();
  private handler: SessionEventHandler;
  /** A picker or inline choice in the panel; it takes the keyboard while shown. */
  private selector: Selector | ChoicePrompt | undefined;
  private approvals = new ApprovalPrompts(
    (id, decision) => this.setup.session.agent.resolveApproval(id, decision, { by: "tui" }),
    () => {
      this.layout();
      this.renderer.requestRender();
    },
  );
  private unsubscribe: (() => void) | undefined;
  private lastCtrlC = 0;
  private exit!: (code: number) => void;
  private keys: KeybindingsManager;
  /** Set by `nextInput`: the next submitted text goes to it instead of the agent. */
  private inputWaiter: ((text: string) => void) | undefined;
  /** The extensions' shortcuts, by lower-cased key id (built-in keys they may not take are left out). */
  private shortcuts = new Map<string, ExtensionShortcut>();

  constructor(
    setup: CliSetup,
    private options: InteractiveAppOptions,
  ) {
    this.setup = setup;
    this.keys = options.keybindings ?? new KeybindingsManager();
    applyThemeSetting(setup);
    this.view = new ChatView((lines) => this.renderer.commit(lines));
    this.renderer = new LiveRenderer(new ProcessTerminal(), this.view);
    // The editor only needs requestRender() and terminal.rows from its host.
    this.editor = new Editor(this.renderer as unknown as TUI, editorTheme, { paddingX: 1 });
    this.editor.focused = true;
    this.status = new StatusLine(() => this.renderer.requestRender());
    this.handler = new SessionEventHandler(
      this.view,
      this.status,
      () => this.renderer.requestRender(),
      () => this.refreshInfo(),
    );
    options.exposeHandler?.(this.handler);
    this.editor.onSubmit = (text) => this.onSubmit(text);
    this.layout();
  }

  run(): Promise<number> {
    return new Promise((resolve) => {
      this.exit = resolve;
      this.renderer.start((data) => this.onInput(data));
      const model = this.setup.session.model;
      this.view.add(
        new NoticeItem(
          `${c.bold("tiller")} ${readVersion()} · ${model.provider}/${model.id} · ${process.cwd()}\n` +
            "Enter send · Alt+Enter follow-up · Esc abort · Ctrl+O expand tools · /help",
        ),
      );
      for (const n of [...this.setup.notes, ...(this.options.notices ?? [])]) this.handler.notice(n.message, n.level);
      this.setup.extensions.onError((e) =>
        this.handler.notice(`extension ${e.extensionPath} (${e.event}): ${e.error}`, "error"),
      );
      this.attach();
      if (this.setup.session.messages.length > 0) this.showBranch();
      process.once("SIGTERM", () => this.quit());
      if (this.options.resume) {
        runBuiltinCommand(this, "resume", "").catch((err: unknown) =>
          this.handler.notice(err instanceof Error ? err.message : String(err), "error"),
        );
      }
      this.sendInitial(this.options.initialMessages ?? []);
      this.renderer.requestRender();
    });
  }

  /** The initial prompts, each once the previous run ended. */
  private async sendInitial(messages: Array<{ text: string; images?: ImageContent[] }>): Promise<void> {
    // One plain message is handled as if typed (built-in /commands included), as the CLI always did.
    if (messages.length === 1 && !messages[0]!.images) {
      this.onSubmit(messages[0]!.text, false);
      return;
    }
    for (const m of messages) {
      if (!m.text.trim()) continue;
      this.editor.addToHistory(m.text);
      try {
        await submit(this.setup, m.text, undefined, m.images);
      } catch (err) {
        this.handler.notice(err instanceof Error ? err.message : String(err), "error");
        return;
      }
    }
  }

  /** Resolves with the next text the user submits (which is then not sent to the agent). */
  nextInput(): Promise<string> {
    return new Promise((resolve) => {
      this.inputWaiter = resolve;
    });
  }

  /** Stops drawing and reading keys; the session stays open. */
  stopUi(): void {
    this.status.dispose();
    this.renderer.stop();
    this.unsubscribe?.();
  }

  private attach(): void {
    this.editor.setAutocompleteProvider(new CombinedAutocompleteProvider(this.slashCommands(), process.cwd(), null));
    this.unsubscribe?.();
    // Every event: the approval prompts take Tiller's approval events (the chat ignores what it does not draw).
    this.unsubscribe = this.setup.session.subscribe(
      (event) => {
        this.approvals.handle(event);
        return this.handler.handle(event);
      },
      { tillerEvents: true },
    );
    const { extensions } = this.setup;
    this.handler.messageRenderer = (customType) => extensions.getMessageRenderer(customType);
    this.shortcuts = extensions.getShortcuts(this.keys.getEffectiveConfig());
    for (const d of extensions.getShortcutDiagnostics()) this.handler.notice(d.message, "warning");
    this.refreshInfo();
  }

  /** Runs the extension shortcut bound to `data`, if any; a failing handler is reported as an extension error. */
  private runShortcut(data: string): boolean {
    for (const [key, shortcut] of this.shortcuts) {
      if (!matchesKey(data, key as KeyId)) continue;
      const { extensions } = this.setup;
      Promise.resolve()
        .then(() => shortcut.handler(extensions.createContext()))
        .catch((err: unknown) => extensions.emitError(errorOf(shortcut.extensionPath, `shortcut:${key}`, err)))
        .finally(() => this.renderer.requestRender());
      return true;
    }
    return false;
  }

  /** Built-in, extension, template and skill commands, offered by the editor after "/". */
  private slashCommands(): SlashCommand[] {
    const out: SlashCommand[] = Object.entries(BUILTIN_COMMANDS).map(([name, description]) => ({ name, description }));
    for (const [name, c] of this.setup.extensions.getCommands()) out.push({ name, description: c.description ?? "" });
    for (const t of this.setup.templates) out.push({ name: t.name, description: t.description });
    for (const sk of this.setup.skills) out.push({ name: `skill:${sk.name}`, description: sk.description });
    return out;
  }

  private layout(): void {
    this.view.setPanel([
      ...(this.selector ? [this.selector] : []),
      ...this.approvals.panel(),
      this.status,
      this.editor,
      this.info,
    ]);
  }

  private onInput(data: string): void {
    // A waiting approval takes the keys; Esc and Ctrl+C still abort the run (which ends the wait).
    const is = (action: AppKeybinding) =>
      this.keys.matches(data, action as Parameters<KeybindingsManager["matches"]>[1]);
    if (!is("app.interrupt") && !is("app.clear") && this.approvals.handleInput(data)) {
      this.renderer.requestRender();
      return;
    }
    if (this.selector) {
      this.selector.handleInput(data);
      this.renderer.requestRender();
      return;
    }
    if (this.runShortcut(data)) return;
    const { session } = this.setup;
    if (is("app.interrupt") && session.isStreaming) {
      session.abort().catch(() => {});
      this.handler.notice("aborting…", "warning");
      return;
    }
    if (is("app.message.followUp")) {
      const text = this.editor.getExpandedText().trim();
      if (!text) return;
      this.editor.setText("");
      this.editor.addToHistory(text);
      this.send(text, "followUp");
      return;
    }
    if (is("app.clear")) {
      if (this.editor.getText()) this.editor.setText("");
      else if (session.isStreaming) session.abort().catch(() => {});
      else if (Date.now() - this.lastCtrlC < 1500) this.quit();
      else this.handler.notice("press Ctrl+C again to quit");
      this.lastCtrlC = Date.now();
      this.renderer.requestRender();
      return;
    }
    if (data === "\n") {
      // Ctrl+J (LF; Enter sends CR): a new line in the editor, in every terminal (Shift+Enter needs the kitty
      // keyboard protocol, which tmux and many terminals do not pass on).
      this.editor.insertTextAtCursor("\n");
      this.renderer.requestRender();
      return;
    }
    if (is("app.tools.expand")) {
      this.toggleToolOutput();
      return;
    }
    if (is("app.exit") && !this.editor.getText()) {
      this.quit();
      return;
    }
    this.editor.handleInput(data);
    this.renderer.requestRender();
  }

  /** Text from the editor (`typed`) or the program's initial message; only typed text can go to `nextInput`. */
  private onSubmit(raw: string, typed = true): void {
    const text = raw.trim();
    if (!text) return;
    this.editor.addToHistory(text);
    const waiter = typed ? this.inputWaiter : undefined;
    if (waiter) {
      this.inputWaiter = undefined;
      waiter(text);
      return;
    }
    const m = /^\/([A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(text);
    if (m && BUILTIN_COMMANDS[m[1]!] !== undefined) {
      runBuiltinCommand(this, m[1]!, m[2] ?? "").catch((err: unknown) =>
        this.handler.notice(err instanceof Error ? err.message : String(err), "error"),
      );
      return;
    }
    this.send(text, this.setup.session.isStreaming ? "steer" : undefined);
  }

  private send(text: string, behavior: "steer" | "followUp" | undefined): void {
    submit(this.setup, text, behavior).then(
      (r) => {
        if (r.kind === "queued") {
          this.handler.notice(
            r.as === "steer" ? `steering: ${text} (delivered at the next tool boundary)` : `follow-up queued: ${text}`,
          );
        }
      },
      (err: unknown) => this.handler.notice(err instanceof Error ? err.message : String(err), "error"),
    );
  }

  // ---- CommandHost ----

  notice(message: string, level: "info" | "warning" | "error" = "info"): void {
    this.handler.notice(message, level);
  }

  async pick(title: string, items: SelectItem[], options?: string | SelectorOptions): Promise<string | undefined> {
    return this.showInPanel(new Selector(title, items, options));
  }

  /** An inline choice (approvals, MCP trust): resolves with the chosen value, or `cancel` on Esc. */
  choose(request: ChoiceRequest): Promise<string | undefined> {
    return this.showInPanel(new ChoicePrompt(request));
  }

  private async showInPanel(selector: Selector | ChoicePrompt): Promise<string | undefined> {
    this.selector = selector;
    this.layout();
    this.renderer.requestRender();
    try {
      return await selector.done;
    } finally {
      this.selector = undefined;
      this.layout();
      this.renderer.requestRender();
    }
  }

  /**
   * Ctrl+O: tool output expanded or collapsed for the calls still on screen and those to come. A finished call
   * is in the scrollback and cannot be redrawn: the last one is shown again, whole, below.
   */
  private toggleToolOutput(): void {
    const display = this.handler.toolDisplay;
    display.expanded = !display.expanded;
    const last = this.handler.lastTool;
    if (display.expanded && last?.finished() && this.view.pendingCount === 0) {
      const again: ChatItem = {
        render: (w) => last.render(w, true),
        invalidate: () => last.invalidate(),
        finished: () => true,
        finish: () => {},
      };
      this.view.add(again);
    }
    this.view.invalidate();
    const key = keyText("app.tools.expand");
    this.handler.notice(display.expanded ? `tool output expanded (${key} collapses)` : "tool output collapsed");
  }

  setEditorText(text: string): void {
    this.editor.setText(text);
    this.renderer.requestRender();
  }

  async openSession(path: string): Promise<void> {
    this.setup = await this.options.openSession(path, this.setup);
    this.attach();
    this.handler.notice(`resumed ${path}`);
    this.showBranch();
  }

  showBranch(): void {
    for (const item of replayItems(
      this.setup.session.messages,
      40,
      this.handler.toolDisplay,
      this.handler.messageRenderer,
    ))
      this.view.add(item);
    this.renderer.requestRender();
  }

  refreshInfo(): void {
    this.info.set(sessionStatusInfo(this.setup.session));
    this.renderer.requestRender();
  }

  quit(): void {
    this.stopUi();
    const { session } = this.setup;
    const done = () => {
      this.options.close(this.setup).finally(() => this.exit(0));
    };
    if (session.isStreaming) session.abort().then(done, done);
    else done();
  }
}

/** The `theme` setting ("dark" | "light") overrides the COLORFGBG guess; NO_COLOR still wins for colours. */
function applyThemeSetting(setup: CliSetup): void {
  const value = (setup.session.settingsManager.get() as { theme?: unknown }).theme;
  if (value === "dark" || value === "light") {
    setTheme(createTheme({ mode: value as ThemeMode, color: !process.env.NO_COLOR }));
  }
}
