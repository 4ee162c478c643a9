/**
 * The user-interface part of an extension's context (pi's `ExtensionUIContext`, without the members that hand
 * out terminal-UI components: those come with the TUI), and the answer a host without a UI gives: dialogs
 * resolve at once as dismissed (`undefined` / `false`), display calls do nothing, `notify` goes where the host
 * says (stderr in the CLI).
 */

/** Options of a dialog: an abort signal or a timeout dismisses it (it then resolves as dismissed). */
export interface ExtensionUIDialogOptions {
  signal?: AbortSignal;
  /** Milliseconds until the dialog dismisses itself. */
  timeout?: number;
}

/** Where a widget is shown. */
export type WidgetPlacement = "aboveEditor" | "belowEditor";

export interface ExtensionWidgetOptions {
  /** Default "aboveEditor". */
  placement?: WidgetPlacement;
}

export type NotifyLevel = "info" | "warning" | "error";

/** pi's UI context as far as it needs no terminal-UI component types. */
export interface ExtensionUIContext {
  /** Lets the user pick one of `options`; undefined when dismissed (always, without a UI). */
  select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  /** Asks yes/no; false when dismissed (always, without a UI). */
  confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean>;
  /** Asks for a line of text; undefined when dismissed (always, without a UI). */
  input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  /** Multi-line text editing; undefined when dismissed (always, without a UI). */
  editor(title: string, prefill?: string): Promise<string | undefined>;
  notify(message: string, type?: NotifyLevel): void;
  /** Raw terminal input (interactive terminal only); returns the unsubscribe function. */
  onTerminalInput(handler: (data: string) => { consume?: boolean; data?: string } | undefined): () => void;
  setStatus(key: string, text: string | undefined): void;
  setWorkingMessage(message?: string): void;
  setWorkingVisible(visible: boolean): void;
  setWorkingIndicator(options?: { frames?: string[]; intervalMs?: number }): void;
  setHiddenThinkingLabel(label?: string): void;
  /** Lines shown above or below the editor; undefined removes the widget. */
  setWidget(key: string, content: string[] | undefined, options?: ExtensionWidgetOptions): void;
  setTitle(title: string): void;
  pasteToEditor(text: string): void;
  setEditorText(text: string): void;
  getEditorText(): string;
  getAllThemes(): { name: string; path: string | undefined }[];
  getToolsExpanded(): boolean;
  setToolsExpanded(expanded: boolean): void;
}

/**
 * The UI context of a host without a UI (print and RPC modes, the SDK), answering as pi's does: dialogs are
 * dismissed, the editor is empty, tools are collapsed, display calls do nothing. Unlike pi's, `notify` is not
 * dropped: it calls `notify` (the CLI writes it to stderr, RPC mode sends a `notification`).
 */
export function createNoUIContext(
  notify: (message: string, level: NotifyLevel) => void = () => {},
): ExtensionUIContext {
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    notify: (message, type = "info") => notify(message, type),
    onTerminalInput: () => () => {},
    setStatus: () => {},
    setWorkingMessage: () => {},
    setWorkingVisible: () => {},
    setWorkingIndicator: () => {},
    setHiddenThinkingLabel: () => {},
    setWidget: () => {},
    setTitle: () => {},
    pasteToEditor: () => {},
    setEditorText: () => {},
    getEditorText: () => "",
    getAllThemes: () => [],
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
  };
}
