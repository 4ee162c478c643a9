/**
 * pi's terminal-UI settings (theme, images, editor, changelog, tree filter, …): read with pi's defaults and
 * written to the global settings file as pi writes them, so a pi settings file means the same here. A value of
 * the wrong type in the file reads as the default. pi also reads `PI_CLEAR_ON_SHRINK` / `PI_HARDWARE_CURSOR`
 * from the environment; Tiller takes these from the settings only.
 */
import { SettingsFiles } from "./settings-files.js";

export type DoubleEscapeAction = "fork" | "tree" | "none";
export type TreeFilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";
const TREE_FILTER_MODES: readonly TreeFilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, Math.floor(n)));

export class UiSettings extends SettingsFiles {
  /** The merged value at `path` (undefined when absent). */
  protected pick(...path: string[]): unknown {
    let v: unknown = this.settings;
    for (const k of path) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[k];
    }
    return v;
  }
  protected flag(fallback: boolean, ...path: string[]): boolean {
    const v = this.pick(...path);
    return typeof v === "boolean" ? v : fallback;
  }
  protected text(...path: string[]): string | undefined {
    const v = this.pick(...path);
    return typeof v === "string" ? v : undefined;
  }
  protected int(fallback: number, ...path: string[]): number {
    const v = this.pick(...path);
    return typeof v === "number" && Number.isFinite(v) ? v : fallback;
  }

  getTheme(): string | undefined {
    return this.text("theme");
  }
  setTheme(theme: string): void {
    this.set("theme", theme);
  }
  getThemePaths(): string[] {
    return this.list("themes");
  }
  setThemePaths(paths: string[]): void {
    this.set("themes", paths);
  }
  setProjectThemePaths(paths: string[]): void {
    this.setProject("themes", paths);
  }
  getQuietStartup(): boolean {
    return this.flag(false, "quietStartup");
  }
  setQuietStartup(quiet: boolean): void {
    this.set("quietStartup", quiet);
  }
  getCollapseChangelog(): boolean {
    return this.flag(false, "collapseChangelog");
  }
  setCollapseChangelog(collapse: boolean): void {
    this.set("collapseChangelog", collapse);
  }
  getLastChangelogVersion(): string | undefined {
    return this.text("lastChangelogVersion");
  }
  setLastChangelogVersion(version: string): void {
    this.set("lastChangelogVersion", version);
  }
  getHideThinkingBlock(): boolean {
    return this.flag(false, "hideThinkingBlock");
  }
  setHideThinkingBlock(hide: boolean): void {
    this.set("hideThinkingBlock", hide);
  }
  getShowHardwareCursor(): boolean {
    return this.flag(false, "showHardwareCursor");
  }
  setShowHardwareCursor(enabled: boolean): void {
    this.set("showHardwareCursor", enabled);
  }
  /** Rows of the autocomplete list: 5 by default, stored within 3–20. */
  getAutocompleteMaxVisible(): number {
    return this.int(5, "autocompleteMaxVisible");
  }
  setAutocompleteMaxVisible(maxVisible: number): void {
    this.set("autocompleteMaxVisible", clamp(maxVisible, 3, 20));
  }
  /** Horizontal editor padding: 0 by default, stored within 0–3. */
  getEditorPaddingX(): number {
    return this.int(0, "editorPaddingX");
  }
  setEditorPaddingX(padding: number): void {
    this.set("editorPaddingX", clamp(padding, 0, 3));
  }
  getDoubleEscapeAction(): DoubleEscapeAction {
    const v = this.text("doubleEscapeAction");
    return v === "fork" || v === "none" ? v : "tree";
  }
  setDoubleEscapeAction(action: DoubleEscapeAction): void {
    this.set("doubleEscapeAction", action);
  }
  /** An unknown mode in the file reads as "default". */
  getTreeFilterMode(): TreeFilterMode {
    const v = this.text("treeFilterMode");
    return TREE_FILTER_MODES.find((m) => m === v) ?? "default";
  }
  setTreeFilterMode(mode: TreeFilterMode): void {
    this.set("treeFilterMode", mode);
  }
  getCodeBlockIndent(): string {
    return this.text("markdown", "codeBlockIndent") ?? "  ";
  }
  getClearOnShrink(): boolean {
    return this.flag(false, "terminal", "clearOnShrink");
  }
  setClearOnShrink(enabled: boolean): void {
    this.setField("terminal", "clearOnShrink", enabled);
  }
  getShowImages(): boolean {
    return this.flag(true, "terminal", "showImages");
  }
  setShowImages(show: boolean): void {
    this.setField("terminal", "showImages", show);
  }
  getShowTerminalProgress(): boolean {
    return this.flag(false, "terminal", "showTerminalProgress");
  }
  setShowTerminalProgress(enabled: boolean): void {
    this.setField("terminal", "showTerminalProgress", enabled);
  }
  /** Width of inline images in terminal cells: 60 by default, at least 1. */
  getImageWidthCells(): number {
    return Math.max(1, Math.floor(this.int(60, "terminal", "imageWidthCells")));
  }
  setImageWidthCells(width: number): void {
    this.setField("terminal", "imageWidthCells", Math.max(1, Math.floor(width)));
  }
  getImageAutoResize(): boolean {
    return this.flag(true, "images", "autoResize");
  }
  setImageAutoResize(enabled: boolean): void {
    this.setField("images", "autoResize", enabled);
  }
  getBlockImages(): boolean {
    return this.flag(false, "images", "blockImages");
  }
  setBlockImages(blocked: boolean): void {
    this.setField("images", "blockImages", blocked);
  }
}
