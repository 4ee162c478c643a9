/**
 * `SettingsManager`: pi's settings API over the settings files (settings-files.ts: global under the project, over
 * the defaults, validated). The agent's settings are here; the terminal UI's are in ui-settings.ts.
 */
import { join } from "node:path";
import type { Transport } from "@tiller/ai";
import { getTillerHome, getTillerPaths } from "../home.js";
import type { PackageSource, Settings, ThinkingBudgetsSettings, WarningSettings } from "./schema.js";
import { UiSettings } from "./ui-settings.js";

export { SettingsError } from "./settings-files.js";

export class SettingsManager extends UiSettings {
  /** Global settings of `home` merged with `<cwd>/.tiller/settings.json`. */
  static create(cwd: string = process.cwd(), home: string = getTillerHome()): SettingsManager {
    return new SettingsManager(getTillerPaths(home).settings, join(cwd, ".tiller", "settings.json"));
  }

  /** Settings that touch no file (tests, embedding). */
  static inMemory(settings: Partial<Settings> = {}): SettingsManager {
    return new SettingsManager(undefined, undefined, settings as Record<string, unknown>);
  }

  getSessionDir(): string | undefined {
    return this.settings.sessionDir;
  }
  getDefaultProvider(): string | undefined {
    return this.settings.defaultProvider;
  }
  getDefaultModel(): string | undefined {
    return this.settings.defaultModel;
  }
  setDefaultProvider(provider: string): void {
    this.set("defaultProvider", provider);
  }
  setDefaultModel(modelId: string): void {
    this.set("defaultModel", modelId);
  }
  setDefaultModelAndProvider(provider: string, modelId: string): void {
    this.set("defaultProvider", provider);
    this.set("defaultModel", modelId);
  }
  getSteeringMode(): "all" | "one-at-a-time" {
    return this.settings.steeringMode;
  }
  setSteeringMode(mode: "all" | "one-at-a-time"): void {
    this.set("steeringMode", mode);
  }
  getFollowUpMode(): "all" | "one-at-a-time" {
    return this.settings.followUpMode;
  }
  setFollowUpMode(mode: "all" | "one-at-a-time"): void {
    this.set("followUpMode", mode);
  }
  getDefaultThinkingLevel(): Settings["defaultThinkingLevel"] {
    return this.settings.defaultThinkingLevel;
  }
  setDefaultThinkingLevel(level: NonNullable<Settings["defaultThinkingLevel"]>): void {
    this.set("defaultThinkingLevel", level);
  }
  getCompactionEnabled(): boolean {
    return this.settings.compaction.enabled;
  }
  setCompactionEnabled(enabled: boolean): void {
    this.setField("compaction", "enabled", enabled);
  }
  getCompactionReserveTokens(): number {
    return this.settings.compaction.reserveTokens;
  }
  getCompactionKeepRecentTokens(): number {
    return this.settings.compaction.keepRecentTokens;
  }
  getCompactionSettings(): { enabled: boolean; reserveTokens: number; keepRecentTokens: number } {
    const c = this.settings.compaction;
    return { enabled: c.enabled, reserveTokens: c.reserveTokens, keepRecentTokens: c.keepRecentTokens };
  }
  getRetryEnabled(): boolean {
    return this.settings.retry.enabled;
  }
  setRetryEnabled(enabled: boolean): void {
    this.setField("retry", "enabled", enabled);
  }
  getRetrySettings(): { enabled: boolean; maxRetries: number; baseDelayMs: number } {
    const r = this.settings.retry;
    return { enabled: r.enabled, maxRetries: r.maxRetries, baseDelayMs: r.baseDelayMs };
  }
  getShellPath(): string | undefined {
    const v = this.settings.shellPath;
    return typeof v === "string" ? v : undefined;
  }
  setShellPath(path: string | undefined): void {
    this.set("shellPath", path);
  }
  /** Prepended (with a newline) to every command the user runs through `AgentSession.executeBash`. */
  getShellCommandPrefix(): string | undefined {
    const v = this.settings.shellCommandPrefix;
    return typeof v === "string" ? v : undefined;
  }
  setShellCommandPrefix(prefix: string | undefined): void {
    this.set("shellCommandPrefix", prefix);
  }
  getPackages(): PackageSource[] {
    const v = this.settings.packages;
    return Array.isArray(v) ? (v as PackageSource[]) : [];
  }
  setPackages(packages: PackageSource[]): void {
    this.set("packages", packages);
  }
  getExtensionPaths(): string[] {
    return this.list("extensions");
  }
  setExtensionPaths(paths: string[]): void {
    this.set("extensions", paths);
  }
  getSkillPaths(): string[] {
    return this.list("skills");
  }
  setSkillPaths(paths: string[]): void {
    this.set("skills", paths);
  }
  getPromptTemplatePaths(): string[] {
    return this.list("prompts");
  }
  setPromptTemplatePaths(paths: string[]): void {
    this.set("prompts", paths);
  }

  setProjectPackages(packages: PackageSource[]): void {
    this.setProject("packages", packages);
  }
  setProjectExtensionPaths(paths: string[]): void {
    this.setProject("extensions", paths);
  }
  setProjectSkillPaths(paths: string[]): void {
    this.setProject("skills", paths);
  }
  setProjectPromptTemplatePaths(paths: string[]): void {
    this.setProject("prompts", paths);
  }
  /** Model patterns `--models` would give (pi's scoped models); undefined when not set. */
  getEnabledModels(): string[] | undefined {
    return Array.isArray(this.settings.enabledModels) ? this.list("enabledModels") : undefined;
  }
  setEnabledModels(patterns: string[] | undefined): void {
    this.set("enabledModels", patterns);
  }
  getEnableSkillCommands(): boolean {
    return this.flag(true, "enableSkillCommands");
  }
  setEnableSkillCommands(enabled: boolean): void {
    this.set("enableSkillCommands", enabled);
  }
  /** Stored for pi's settings file; Tiller sends no install telemetry either way. */
  getEnableInstallTelemetry(): boolean {
    return this.flag(true, "enableInstallTelemetry");
  }
  setEnableInstallTelemetry(enabled: boolean): void {
    this.set("enableInstallTelemetry", enabled);
  }
  /** The npm command (argv) for package installs; undefined: `npm`. */
  getNpmCommand(): string[] | undefined {
    return Array.isArray(this.settings.npmCommand) ? this.list("npmCommand") : undefined;
  }
  setNpmCommand(command: string[] | undefined): void {
    this.set("npmCommand", command ? [...command] : undefined);
  }
  getTransport(): Transport {
    const v = this.text("transport");
    return v === "sse" || v === "websocket" || v === "websocket-cached" ? v : "auto";
  }
  setTransport(transport: Transport): void {
    this.set("transport", transport);
  }
  getThinkingBudgets(): ThinkingBudgetsSettings | undefined {
    const v = this.pick("thinkingBudgets");
    return v && typeof v === "object" && !Array.isArray(v) ? { ...(v as ThinkingBudgetsSettings) } : undefined;
  }
  getWarnings(): WarningSettings {
    const v = this.pick("warnings");
    return v && typeof v === "object" && !Array.isArray(v) ? { ...(v as WarningSettings) } : {};
  }
  setWarnings(warnings: WarningSettings): void {
    this.set("warnings", { ...warnings });
  }
  /** Branch summaries (tree navigation): tokens kept free for the answer, and whether to skip the prompt. */
  getBranchSummarySettings(): { reserveTokens: number; skipPrompt: boolean } {
    return {
      reserveTokens: this.int(16384, "branchSummary", "reserveTokens"),
      skipPrompt: this.getBranchSummarySkipPrompt(),
    };
  }
  getBranchSummarySkipPrompt(): boolean {
    return this.flag(false, "branchSummary", "skipPrompt");
  }
  /** The provider client's own timeout and retries (`retry.provider`), below the session's retry. */
  getProviderRetrySettings(): { timeoutMs?: number; maxRetries?: number; maxRetryDelayMs: number } {
    const timeoutMs = this.pick("retry", "provider", "timeoutMs");
    const maxRetries = this.pick("retry", "provider", "maxRetries");
    return {
      ...(typeof timeoutMs === "number" ? { timeoutMs } : {}),
      ...(typeof maxRetries === "number" ? { maxRetries } : {}),
      maxRetryDelayMs: this.int(60_000, "retry", "provider", "maxRetryDelayMs"),
    };
  }
}
