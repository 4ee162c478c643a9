/** pi-coding-agent 0.73.1's terminal-UI names, as adapters over Tiller's terminal UI (see each file). */
export { renderDiff } from "./diff.js";
export { KeybindingsManager, keyHint, keyText, rawKeyHint } from "./keybindings.js";
export {
  getLanguageFromPath,
  getMarkdownTheme,
  getSelectListTheme,
  getSettingsListTheme,
  highlightCode,
  initTheme,
  Theme,
} from "./theme.js";
export type {
  AppKeybinding,
  AutocompleteProviderFactory,
  InteractiveModeOptions,
  MessageRenderer,
  MessageRenderOptions,
  ReadonlyFooterDataProvider,
  RenderDiffOptions,
  SettingsCallbacks,
  SettingsConfig,
  TerminalInputHandler,
  ThemeBg,
  ThemeColor,
  ToolExecutionOptions,
  ToolRenderResultOptions,
  WorkingIndicatorOptions,
} from "./types.js";
