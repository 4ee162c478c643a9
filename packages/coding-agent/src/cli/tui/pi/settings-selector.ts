/**
 * pi's settings selector: every setting of `SettingsConfig` as a row of pi-tui's `SettingsList` (Enter or Space
 * cycles the value), each change reported through its `SettingsCallbacks` entry with the value's own type.
 */
import { Container, type SettingItem, SettingsList, Text } from "@mariozechner/pi-tui";
import type { ThinkingLevel } from "@tiller/agent";
import type { Transport } from "@tiller/ai";
import { getSettingsListTheme } from "./theme.js";
import type { SettingsCallbacks, SettingsConfig } from "./types.js";

const onOff = (b: boolean) => (b ? "on" : "off");

/** A row: its values as text, and how a chosen text becomes the callback's argument. */
interface Row {
  item: SettingItem;
  apply: (value: string) => void;
}

function rows(config: SettingsConfig, cb: SettingsCallbacks): Row[] {
  const toggle = (id: string, label: string, value: boolean, set: (v: boolean) => void, description?: string): Row => ({
    item: { id, label, currentValue: onOff(value), values: ["on", "off"], ...(description ? { description } : {}) },
    apply: (v) => set(v === "on"),
  });
  const choice = <T extends string>(
    id: string,
    label: string,
    value: T,
    values: readonly T[],
    set: (v: T) => void,
  ) => ({
    item: { id, label, currentValue: value, values: [...values] },
    apply: (v: string) => set(v as T),
  });
  const number = (id: string, label: string, value: number, values: number[], set: (v: number) => void): Row => ({
    item: {
      id,
      label,
      currentValue: String(value),
      values: [...new Set([...values, value])].sort((a, b) => a - b).map(String),
    },
    apply: (v) => set(Number(v)),
  });
  const queue = ["one-at-a-time", "all"] as const;
  return [
    toggle(
      "autoCompact",
      "Auto-compact",
      config.autoCompact,
      cb.onAutoCompactChange,
      "Summarize old turns near the context limit",
    ),
    toggle("showImages", "Show images", config.showImages, cb.onShowImagesChange),
    number(
      "imageWidthCells",
      "Image width (cells)",
      config.imageWidthCells,
      [40, 60, 80, 120],
      cb.onImageWidthCellsChange,
    ),
    toggle("autoResizeImages", "Resize images", config.autoResizeImages, cb.onAutoResizeImagesChange),
    toggle("blockImages", "Block images", config.blockImages, cb.onBlockImagesChange, "Never send images to the model"),
    toggle("enableSkillCommands", "Skill commands", config.enableSkillCommands, cb.onEnableSkillCommandsChange),
    choice("steeringMode", "Steering delivery", config.steeringMode, queue, cb.onSteeringModeChange),
    choice("followUpMode", "Follow-up delivery", config.followUpMode, queue, cb.onFollowUpModeChange),
    choice<Transport>(
      "transport",
      "Transport",
      config.transport,
      ["sse", "websocket", "websocket-cached", "auto"],
      cb.onTransportChange,
    ),
    choice<ThinkingLevel>(
      "thinkingLevel",
      "Thinking level",
      config.thinkingLevel,
      config.availableThinkingLevels,
      cb.onThinkingLevelChange,
    ),
    choice("theme", "Theme", config.currentTheme, config.availableThemes, cb.onThemeChange),
    toggle("hideThinkingBlock", "Hide thinking", config.hideThinkingBlock, cb.onHideThinkingBlockChange),
    toggle("collapseChangelog", "Short changelog", config.collapseChangelog, cb.onCollapseChangelogChange),
    toggle(
      "enableInstallTelemetry",
      "Install telemetry",
      config.enableInstallTelemetry,
      cb.onEnableInstallTelemetryChange,
    ),
    choice(
      "doubleEscapeAction",
      "Double Esc",
      config.doubleEscapeAction,
      ["tree", "fork", "none"],
      cb.onDoubleEscapeActionChange,
    ),
    choice(
      "treeFilterMode",
      "Tree filter",
      config.treeFilterMode,
      ["default", "no-tools", "user-only", "labeled-only", "all"],
      cb.onTreeFilterModeChange,
    ),
    toggle("showHardwareCursor", "Hardware cursor", config.showHardwareCursor, cb.onShowHardwareCursorChange),
    number("editorPaddingX", "Editor padding", config.editorPaddingX, [0, 1, 2, 3], cb.onEditorPaddingXChange),
    number(
      "autocompleteMaxVisible",
      "Autocomplete rows",
      config.autocompleteMaxVisible,
      [3, 5, 8, 10, 15],
      cb.onAutocompleteMaxVisibleChange,
    ),
    toggle("quietStartup", "Quiet startup", config.quietStartup, cb.onQuietStartupChange),
    toggle("clearOnShrink", "Clear on shrink", config.clearOnShrink, cb.onClearOnShrinkChange),
    toggle("showTerminalProgress", "Terminal progress", config.showTerminalProgress, cb.onShowTerminalProgressChange),
    {
      item: {
        id: "warnings.anthropicExtraUsage",
        label: "Warn: Anthropic extra usage",
        currentValue: onOff(config.warnings.anthropicExtraUsage !== false),
        values: ["on", "off"],
      },
      apply: (v) => cb.onWarningsChange({ ...config.warnings, anthropicExtraUsage: v === "on" }),
    },
  ];
}

export class SettingsSelectorComponent extends Container {
  private list: SettingsList;

  constructor(config: SettingsConfig, callbacks: SettingsCallbacks) {
    super();
    const all = rows(config, callbacks);
    const byId = new Map(all.map((r) => [r.item.id, r]));
    this.list = new SettingsList(
      all.map((r) => r.item),
      12,
      getSettingsListTheme(),
      (id, value) => {
        byId.get(id)?.apply(value);
        // The theme preview follows the cursor in pi; here it follows the chosen value.
        if (id === "theme") callbacks.onThemePreview?.(value);
      },
      callbacks.onCancel,
    );
    this.addChild(new Text("", 0, 0));
    this.addChild(new Text("Settings", 1, 0));
    this.addChild(this.list);
  }

  handleInput(data: string): void {
    this.list.handleInput(data);
  }

  getSettingsList(): SettingsList {
    return this.list;
  }
}
