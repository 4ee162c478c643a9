/**
 * pi's dialogs for extensions and login, and its application editor: a pick-one list (Tiller's `Selector`), a
 * one-line input and a multi-line editor (pi-tui's `Input`/`Editor`, as Tiller's own UI uses them), each with
 * an optional timeout; the login dialog that shows a URL and asks for a code; and `CustomEditor`, the editor
 * that routes application keys (Esc, Ctrl+D, configured actions, extension shortcuts) before editing keys.
 */
import {
  Container,
  Editor,
  type EditorOptions,
  type EditorTheme,
  Input,
  matchesKey,
  Text,
  type TUI,
} from "@mariozechner/pi-tui";
import { Selector } from "../selector.js";
import { editorTheme } from "../theme.js";
import { type KeybindingsManager, keyText } from "./keybindings.js";
import { currentTheme } from "./theme.js";
import type { AppKeybinding } from "./types.js";

/** Options of the extension dialogs: `timeout` (ms) cancels the dialog when nobody answers in time. */
export interface ExtensionDialogOptions {
  tui?: { requestRender(force?: boolean): void };
  timeout?: number;
}

const isCancel = (data: string) => matchesKey(data, "escape") || matchesKey(data, "ctrl+c");

/** A dialog answered once: the first of submit, cancel or timeout wins; later ones are ignored. */
class OnceDialog extends Container {
  private timer: NodeJS.Timeout | undefined;
  private answered = false;
  private _focused = false;

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    if (this.focusTarget) this.focusTarget.focused = value;
  }
  /** The child that shows the cursor while the dialog has focus. */
  protected focusTarget: { focused: boolean } | undefined;

  protected startTimeout(timeout: number | undefined, onTimeout: () => void): void {
    if (!timeout || timeout <= 0) return;
    this.timer = setTimeout(() => this.answer(onTimeout), timeout);
    this.timer.unref?.();
  }

  protected answer(fn: () => void): void {
    if (this.answered) return;
    this.answered = true;
    this.dispose();
    fn();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export class ExtensionSelectorComponent extends OnceDialog {
  private selector: Selector;

  constructor(
    title: string,
    options: string[],
    onSelect: (option: string) => void,
    onCancel: () => void,
    opts: ExtensionDialogOptions = {},
  ) {
    super();
    this.selector = new Selector(
      title,
      options.map((o) => ({ value: o, label: o })),
    );
    this.selector.done.then((v) => this.answer(() => (v === undefined ? onCancel() : onSelect(v))));
    this.addChild(this.selector);
    this.startTimeout(opts.timeout, onCancel);
  }

  handleInput(keyData: string): void {
    this.selector.handleInput(keyData);
  }
}

export class ExtensionInputComponent extends OnceDialog {
  private input = new Input();

  constructor(
    title: string,
    _placeholder: string | undefined,
    onSubmit: (value: string) => void,
    onCancel: () => void,
    opts: ExtensionDialogOptions = {},
  ) {
    super();
    const t = currentTheme();
    this.focusTarget = this.input;
    this.input.onSubmit = (value) => this.answer(() => onSubmit(value));
    this.input.onEscape = () => this.answer(onCancel);
    this.addChild(new Text("", 0, 0));
    this.addChild(new Text(t.bold(title), 1, 0));
    this.addChild(this.input);
    this.addChild(new Text(t.fg("muted", `enter submit · ${keyText("tui.select.cancel")} cancel`), 1, 0));
    this.startTimeout(opts.timeout, onCancel);
  }

  handleInput(keyData: string): void {
    if (isCancel(keyData)) this.input.onEscape?.();
    else this.input.handleInput(keyData);
  }
}

export class ExtensionEditorComponent extends OnceDialog {
  private editor: Editor;

  constructor(
    tui: TUI,
    _keybindings: KeybindingsManager,
    title: string,
    prefill: string | undefined,
    onSubmit: (value: string) => void,
    private onCancelEdit: () => void,
    options?: EditorOptions,
  ) {
    super();
    const t = currentTheme();
    this.editor = new Editor(tui, editorTheme, options ?? { paddingX: 1 });
    this.focusTarget = this.editor;
    if (prefill) this.editor.setText(prefill);
    this.editor.onSubmit = (text) => this.answer(() => onSubmit(text));
    this.addChild(new Text("", 0, 0));
    this.addChild(new Text(t.bold(title), 1, 0));
    this.addChild(this.editor);
    this.addChild(
      new Text(t.fg("muted", `enter submit · ctrl+j new line · ${keyText("tui.select.cancel")} cancel`), 1, 0),
    );
  }

  handleInput(keyData: string): void {
    if (isCancel(keyData)) this.answer(this.onCancelEdit);
    // Ctrl+J: a new line in every terminal (Shift+Enter needs the kitty protocol), as in Tiller's editor.
    else if (keyData === "\n") this.editor.insertTextAtCursor("\n");
    else this.editor.handleInput(keyData);
  }
}

/**
 * The login dialog: shows the provider's URL and instructions, asks for a code or a pasted redirect URL, and
 * reports progress. Esc cancels: pending prompts reject, `signal` aborts and `onComplete(false)` is called.
 */
export class LoginDialogComponent extends OnceDialog {
  private controller = new AbortController();
  private lines: Text[] = [];
  private input: Input | undefined;
  private pending: { resolve: (v: string) => void; reject: (e: Error) => void } | undefined;

  constructor(
    private tui: { requestRender(force?: boolean): void },
    providerId: string,
    private onComplete: (success: boolean, message?: string) => void,
    providerNameOverride?: string,
    titleOverride?: string,
  ) {
    super();
    const t = currentTheme();
    this.addChild(new Text("", 0, 0));
    this.addChild(new Text(t.bold(titleOverride ?? `Log in to ${providerNameOverride ?? providerId}`), 1, 0));
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private say(text: string): void {
    const line = new Text(text, 1, 0);
    this.lines.push(line);
    this.addChild(line);
    this.tui.requestRender();
  }

  showAuth(url: string, instructions?: string): void {
    const t = currentTheme();
    this.say(`Open this URL in a browser:\n${t.fg("mdLink", url)}`);
    if (instructions) this.say(t.fg("muted", instructions));
  }

  showManualInput(prompt: string): Promise<string> {
    return this.showPrompt(prompt);
  }

  showPrompt(message: string, _placeholder?: string): Promise<string> {
    this.say(message);
    if (this.input) this.removeChild(this.input);
    const input = new Input();
    input.focused = this.focused;
    this.input = input;
    this.focusTarget = input;
    this.addChild(input);
    this.tui.requestRender();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      input.onSubmit = (value) => {
        this.pending = undefined;
        this.removeChild(input);
        this.input = undefined;
        resolve(value);
      };
    });
  }

  showInfo(lines: string[]): void {
    for (const l of lines) this.say(l);
  }

  showWaiting(message: string): void {
    this.say(currentTheme().fg("muted", message));
  }

  showProgress(message: string): void {
    this.say(currentTheme().fg("muted", message));
  }

  handleInput(data: string): void {
    if (isCancel(data)) {
      this.controller.abort();
      this.pending?.reject(new Error("Login cancelled"));
      this.pending = undefined;
      this.answer(() => this.onComplete(false, "Login cancelled"));
      return;
    }
    this.input?.handleInput(data);
  }
}

/**
 * The application editor: extension shortcuts first, then the configured app actions (`onAction`), Esc
 * (`onEscape`) and Ctrl+D on an empty editor (`onCtrlD`), image paste; every other key edits the text.
 */
export class CustomEditor extends Editor {
  actionHandlers = new Map<AppKeybinding, () => void>();
  onEscape?: () => void;
  onCtrlD?: () => void;
  onPasteImage?: () => void;
  /** Handler for extension-registered shortcuts. Returns true if handled. */
  onExtensionShortcut?: (data: string) => boolean;
  private readonly bindings: Pick<KeybindingsManager, "matches">;

  constructor(tui: TUI, theme: EditorTheme, keybindings: KeybindingsManager, options?: EditorOptions) {
    super(tui, theme, options);
    this.bindings = keybindings;
  }

  /** Runs `handler` when the keys of `action` are pressed. */
  onAction(action: AppKeybinding, handler: () => void): void {
    this.actionHandlers.set(action, handler);
  }

  override handleInput(data: string): void {
    if (this.onExtensionShortcut?.(data)) return;
    const matches = (a: AppKeybinding) =>
      this.bindings.matches(data, a as Parameters<KeybindingsManager["matches"]>[1]);
    if (this.onPasteImage && matches("app.clipboard.pasteImage")) {
      this.onPasteImage();
      return;
    }
    // Esc with the autocomplete list open closes the list (the editor's own handling), not the run.
    if (matches("app.interrupt") && this.onEscape && !this.isShowingAutocomplete()) {
      this.onEscape();
      return;
    }
    if (matches("app.exit") && this.getText() === "") {
      if (this.onCtrlD) this.onCtrlD();
      else this.actionHandlers.get("app.exit")?.();
      return;
    }
    for (const [action, handler] of this.actionHandlers) {
      if (action !== "app.exit" && matches(action)) {
        handler();
        return;
      }
    }
    super.handleInput(data);
  }
}
