/**
 * pi-coding-agent 0.73.1's terminal-UI types, for programs written against pi's interactive components. Tiller's
 * components (this folder) take and return these; each states the contract pi documents.
 */

import type { AutocompleteProvider, Component } from "@mariozechner/pi-tui";
import type { ThinkingLevel } from "@tiller/agent";
import type { ImageContent, Transport } from "@tiller/ai";
import type { CustomMessage } from "../../../session/messages.js";
import type { WarningSettings } from "../../../settings/schema.js";
import type { Theme } from "./theme.js";

/** A foreground role of a theme. */
export type ThemeColor =
  | "accent"
  | "border"
  | "borderAccent"
  | "borderMuted"
  | "success"
  | "error"
  | "warning"
  | "muted"
  | "dim"
  | "text"
  | "thinkingText"
  | "userMessageText"
  | "customMessageText"
  | "customMessageLabel"
  | "toolTitle"
  | "toolOutput"
  | "mdHeading"
  | "mdLink"
  | "mdLinkUrl"
  | "mdCode"
  | "mdCodeBlock"
  | "mdCodeBlockBorder"
  | "mdQuote"
  | "mdQuoteBorder"
  | "mdHr"
  | "mdListBullet"
  | "toolDiffAdded"
  | "toolDiffRemoved"
  | "toolDiffContext"
  | "syntaxComment"
  | "syntaxKeyword"
  | "syntaxFunction"
  | "syntaxVariable"
  | "syntaxString"
  | "syntaxNumber"
  | "syntaxType"
  | "syntaxOperator"
  | "syntaxPunctuation"
  | "thinkingOff"
  | "thinkingMinimal"
  | "thinkingLow"
  | "thinkingMedium"
  | "thinkingHigh"
  | "thinkingXhigh"
  | "bashMode";

/** A background role of a theme. */
export type ThemeBg =
  | "selectedBg"
  | "userMessageBg"
  | "customMessageBg"
  | "toolPendingBg"
  | "toolSuccessBg"
  | "toolErrorBg";

/** How hex colours are sent: as 24-bit SGR, or as the nearest of the 256 palette. */
export type ThemeColorMode = "truecolor" | "256color";

/** An application action with a configurable key (`app.interrupt` = Esc, `app.tools.expand` = Ctrl+O, …). */
export type AppKeybinding =
  | "app.interrupt"
  | "app.clear"
  | "app.exit"
  | "app.suspend"
  | "app.thinking.cycle"
  | "app.model.cycleForward"
  | "app.model.cycleBackward"
  | "app.model.select"
  | "app.tools.expand"
  | "app.thinking.toggle"
  | "app.session.toggleNamedFilter"
  | "app.editor.external"
  | "app.message.followUp"
  | "app.message.dequeue"
  | "app.clipboard.pasteImage"
  | "app.session.new"
  | "app.session.tree"
  | "app.session.fork"
  | "app.session.resume"
  | "app.tree.foldOrUp"
  | "app.tree.unfoldOrDown"
  | "app.tree.editLabel"
  | "app.tree.toggleLabelTimestamp"
  | "app.session.togglePath"
  | "app.session.toggleSort"
  | "app.session.rename"
  | "app.session.delete"
  | "app.session.deleteNoninvasive"
  | "app.models.save"
  | "app.models.enableAll"
  | "app.models.clearAll"
  | "app.models.toggleProvider"
  | "app.models.reorderUp"
  | "app.models.reorderDown"
  | "app.tree.filter.default"
  | "app.tree.filter.noTools"
  | "app.tree.filter.userOnly"
  | "app.tree.filter.labeledOnly"
  | "app.tree.filter.all"
  | "app.tree.filter.cycleForward"
  | "app.tree.filter.cycleBackward";

/** How a custom message is to be drawn. */
export interface MessageRenderOptions {
  /** Whether the message view is expanded (Ctrl+O). */
  expanded: boolean;
}

/**
 * Draws an extension's custom message; undefined = the default rendering. Declared as a method so that pi's
 * renderers, typed with pi's `Theme` class (nominal: private fields), are accepted: Tiller calls them with its
 * `Theme`, which has every public member of pi's.
 */
export type MessageRenderer<T = unknown> = {
  render(message: CustomMessage<T>, options: MessageRenderOptions, theme: Theme): Component | undefined;
}["render"];

/** How a tool result is to be drawn. */
export interface ToolRenderResultOptions {
  /** Whether the result view is expanded. */
  expanded: boolean;
  /** Whether this is a partial (streaming) result. */
  isPartial: boolean;
}

/** A raw terminal input listener: `consume` drops the input, `data` replaces it. */
export type TerminalInputHandler = (data: string) => { consume?: boolean; data?: string } | undefined;

/** The working indicator shown while the agent streams. */
export interface WorkingIndicatorOptions {
  /** Animation frames; an empty array hides the indicator. Frames are drawn verbatim. */
  frames?: string[];
  /** Milliseconds per frame. */
  intervalMs?: number;
}

/** Wraps the editor's current autocomplete provider with more behaviour. */
export type AutocompleteProviderFactory = (current: AutocompleteProvider) => AutocompleteProvider;

/** What the footer shows besides session stats: git branch, extension statuses, provider count. */
export interface ReadonlyFooterDataProvider {
  /** The current git branch; null outside a repository, "detached" on a detached HEAD. */
  getGitBranch(): string | null;
  /** Status texts extensions set (`ctx.ui.setStatus`), by key. */
  getExtensionStatuses(): ReadonlyMap<string, string>;
  /** Providers that have usable models. */
  getAvailableProviderCount(): number;
  /** Called when the git branch changes; returns the unsubscribe function. */
  onBranchChange(callback: () => void): () => void;
}

/** Options of a tool call block. */
export interface ToolExecutionOptions {
  /** Show image results inline (Tiller shows a note with type, size and dimensions). */
  showImages?: boolean;
  /** Width of inline images in cells. */
  imageWidthCells?: number;
}

/** Options of `renderDiff`. */
export interface RenderDiffOptions {
  /** The file the diff is of (kept for pi's signature; not shown). */
  filePath?: string;
}

type QueueMode = "all" | "one-at-a-time";
type DoubleEscapeAction = "fork" | "tree" | "none";
type TreeFilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

/** The values the settings selector shows. */
export interface SettingsConfig {
  autoCompact: boolean;
  showImages: boolean;
  imageWidthCells: number;
  autoResizeImages: boolean;
  blockImages: boolean;
  enableSkillCommands: boolean;
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  transport: Transport;
  thinkingLevel: ThinkingLevel;
  availableThinkingLevels: ThinkingLevel[];
  currentTheme: string;
  availableThemes: string[];
  hideThinkingBlock: boolean;
  collapseChangelog: boolean;
  enableInstallTelemetry: boolean;
  doubleEscapeAction: DoubleEscapeAction;
  treeFilterMode: TreeFilterMode;
  showHardwareCursor: boolean;
  editorPaddingX: number;
  autocompleteMaxVisible: number;
  quietStartup: boolean;
  clearOnShrink: boolean;
  showTerminalProgress: boolean;
  warnings: WarningSettings;
}

/** Called by the settings selector when the user changes a value (one callback per setting). */
export interface SettingsCallbacks {
  onAutoCompactChange: (enabled: boolean) => void;
  onShowImagesChange: (enabled: boolean) => void;
  onImageWidthCellsChange: (width: number) => void;
  onAutoResizeImagesChange: (enabled: boolean) => void;
  onBlockImagesChange: (blocked: boolean) => void;
  onEnableSkillCommandsChange: (enabled: boolean) => void;
  onSteeringModeChange: (mode: QueueMode) => void;
  onFollowUpModeChange: (mode: QueueMode) => void;
  onTransportChange: (transport: Transport) => void;
  onThinkingLevelChange: (level: ThinkingLevel) => void;
  onThemeChange: (theme: string) => void;
  onThemePreview?: (theme: string) => void;
  onHideThinkingBlockChange: (hidden: boolean) => void;
  onCollapseChangelogChange: (collapsed: boolean) => void;
  onEnableInstallTelemetryChange: (enabled: boolean) => void;
  onDoubleEscapeActionChange: (action: DoubleEscapeAction) => void;
  onTreeFilterModeChange: (mode: TreeFilterMode) => void;
  onShowHardwareCursorChange: (enabled: boolean) => void;
  onEditorPaddingXChange: (padding: number) => void;
  onAutocompleteMaxVisibleChange: (maxVisible: number) => void;
  onQuietStartupChange: (enabled: boolean) => void;
  onClearOnShrinkChange: (enabled: boolean) => void;
  onShowTerminalProgressChange: (enabled: boolean) => void;
  onWarningsChange: (warnings: WarningSettings) => void;
  onCancel: () => void;
}

/** Options of `InteractiveMode`. */
export interface InteractiveModeOptions {
  /** Providers whose credentials were migrated (shown as a warning). */
  migratedProviders?: string[];
  /** Shown when the session's model could not be restored. */
  modelFallbackMessage?: string;
  /** Sent as soon as the UI is up. */
  initialMessage?: string;
  /** Images attached to the initial message. */
  initialImages?: ImageContent[];
  /** Sent one after another after the initial message. */
  initialMessages?: string[];
  /** Show the full startup listing (Tiller's startup is one line either way). */
  verbose?: boolean;
}

/**
 * The order of the session picker (pi's `SortMode`): "threaded" shows forks under the session they came from,
 * newest first at each level (a flat list by relevance while searching); "recent" newest first; "relevance" best
 * search match first, ties newest first.
 */
export type SessionSortMode = "threaded" | "recent" | "relevance";

/** Which sessions the picker lists (pi's `NameFilter`): every one, or only those given a name. */
export type SessionNameFilter = "all" | "named";
