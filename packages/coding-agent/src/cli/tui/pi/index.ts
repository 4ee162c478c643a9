/** pi-coding-agent 0.73.1's terminal-UI names, as adapters over Tiller's terminal UI (see each file). */
export { ArminComponent, BorderedLoader, DynamicBorder, FooterComponent } from "./chrome.js";
export {
  CustomEditor,
  ExtensionEditorComponent,
  ExtensionInputComponent,
  ExtensionSelectorComponent,
  LoginDialogComponent,
} from "./dialogs.js";
export { renderDiff } from "./diff.js";
export { InteractiveMode } from "./interactive-mode.js";
export { KeybindingsManager, keyHint, keyText, rawKeyHint } from "./keybindings.js";
export {
  AssistantMessageComponent,
  BranchSummaryMessageComponent,
  CompactionSummaryMessageComponent,
  CustomMessageComponent,
  SkillInvocationMessageComponent,
  UserMessageComponent,
} from "./messages.js";
export {
  ModelSelectorComponent,
  OAuthSelectorComponent,
  ShowImagesSelectorComponent,
  ThemeSelectorComponent,
  ThinkingSelectorComponent,
  UserMessageSelectorComponent,
} from "./selectors.js";
export { SessionSelectorComponent } from "./session-selector.js";
export { SettingsSelectorComponent } from "./settings-selector.js";
export {
  getLanguageFromPath,
  getMarkdownTheme,
  getSelectListTheme,
  getSettingsListTheme,
  highlightCode,
  initTheme,
  Theme,
} from "./theme.js";
export { BashExecutionComponent, ToolExecutionComponent } from "./tool-execution.js";
export { TreeSelectorComponent } from "./tree-selector.js";
export type {
  AppKeybinding,
  AutocompleteProviderFactory,
  InteractiveModeOptions,
  MessageRenderer,
  MessageRenderOptions,
  ReadonlyFooterDataProvider,
  RenderDiffOptions,
  SessionNameFilter,
  SessionSortMode,
  SettingsCallbacks,
  SettingsConfig,
  TerminalInputHandler,
  ThemeBg,
  ThemeColor,
  ToolExecutionOptions,
  ToolRenderResultOptions,
  WorkingIndicatorOptions,
} from "./types.js";
