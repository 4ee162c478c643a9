/**
 * The user-interface part of an extension's context (pi's `ExtensionUIContext`), and the answer a host without a
 * UI gives: dialogs resolve at once as dismissed (`undefined` / `false`), display calls do nothing, `notify` goes
 * where the host says (stderr in the CLI). The members that take terminal-UI components (pi-tui's `Component`,
 * `TUI`) are pi's; a host without a terminal UI ignores them as pi's does.
 */
import type { Component, EditorComponent, EditorTheme, OverlayHandle, OverlayOptions, TUI } from "@mariozechner/pi-tui";
import type { KeybindingsManager } from "../cli/tui/pi/keybindings.js";
import { currentTheme, type Theme } from "../cli/tui/pi/theme.js";
import type { AutocompleteProviderFactory, ReadonlyFooterDataProvider } from "../cli/tui/pi/types.js";

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

/** A component an extension hands the UI; `dispose` is called when the UI drops it. */
export type ExtensionComponent = Component & { dispose?(): void };

/** Makes the editor component that replaces the built-in one (pi's `EditorFactory`). */
export type EditorFactory = (tui: TUI, theme: EditorTheme, keybindings: KeybindingsManager) => EditorComponent;

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
  /** Lines (or a component) shown above or below the editor; undefined removes the widget. */
  setWidget(key: string, content: string[] | undefined, options?: ExtensionWidgetOptions): void;
  setWidget(
    key: string,
    content: ((tui: TUI, theme: Theme) => ExtensionComponent) | undefined,
    options?: ExtensionWidgetOptions,
  ): void;
  /** A footer component in place of the built-in one; undefined restores it. */
  setFooter(
    factory: ((tui: TUI, theme: Theme, footerData: ReadonlyFooterDataProvider) => ExtensionComponent) | undefined,
  ): void;
  /** A header component (shown at start-up, above the chat); undefined restores the built-in one. */
  setHeader(factory: ((tui: TUI, theme: Theme) => ExtensionComponent) | undefined): void;
  setTitle(title: string): void;
  /**
   * Shows `factory`'s component with keyboard focus until it calls `done`, and resolves with `done`'s result;
   * without a terminal UI it resolves with undefined at once (pi's behaviour).
   */
  custom<T>(
    factory: (
      tui: TUI,
      theme: Theme,
      keybindings: KeybindingsManager,
      done: (result: T) => void,
    ) => ExtensionComponent | Promise<ExtensionComponent>,
    options?: {
      overlay?: boolean;
      overlayOptions?: OverlayOptions | (() => OverlayOptions);
      onHandle?: (handle: OverlayHandle) => void;
    },
  ): Promise<T>;
  pasteToEditor(text: string): void;
  setEditorText(text: string): void;
  getEditorText(): string;
  /** Stacks autocomplete behaviour on top of the built-in provider. */
  addAutocompleteProvider(factory: AutocompleteProviderFactory): void;
  /** A custom editor component; undefined restores the built-in editor. */
  setEditorComponent(factory: EditorFactory | undefined): void;
  getEditorComponent(): EditorFactory | undefined;
  /** The theme in use. */
  readonly theme: Theme;
  getAllThemes(): { name: string; path: string | undefined }[];
  /** A theme by name without switching to it; undefined when there is none. */
  getTheme(name: string): Theme | undefined;
  setTheme(theme: string | Theme): { success: boolean; error?: string };
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
    setFooter: () => {},
    setHeader: () => {},
    setTitle: () => {},
    // Nothing to show it on: resolves as dismissed, as pi's context without a UI.
    custom: async <T>() => undefined as T,
    pasteToEditor: () => {},
    setEditorText: () => {},
    getEditorText: () => "",
    addAutocompleteProvider: () => {},
    setEditorComponent: () => {},
    getEditorComponent: () => undefined,
    get theme() {
      return currentTheme();
    },
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: "UI not available" }),
    getToolsExpanded: () => false,
    setToolsExpanded: () => {},
  };
}
