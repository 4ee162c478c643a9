/**
 * `SettingsManager`: global `$TILLER_HOME/settings.json` merged under the project's `.tiller/settings.json`, over
 * the defaults. A file that is missing is empty; a file that does not parse, or a key of the wrong type, is
 * reported in `errors` (naming the file and key) and ignored, so a typo never stops the agent. Writes go to the
 * global file, validated first.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { getTillerHome, getTillerPaths } from "../home.js";
import { DEFAULT_SETTINGS, mergeSettings, type PackageSource, type Settings, validateSettings } from "./schema.js";

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}

function readJsonFile(path: string, errors: string[]): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    errors.push(`${path}: cannot read (${(err as Error).message})`);
    return {};
  }
  if (text.trim() === "") return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    errors.push(`${path}: invalid JSON (${(err as Error).message})`);
    return {};
  }
  const { value, errors: problems } = validateSettings(raw);
  for (const p of problems) errors.push(`${path}: ${p}`);
  return value;
}

export class SettingsManager {
  private settings: Settings = DEFAULT_SETTINGS;
  private global: Record<string, unknown> = {};
  private project: Record<string, unknown> = {};
  /** Problems found while loading, one per file/key. */
  errors: string[] = [];

  private constructor(
    readonly globalPath: string | undefined,
    readonly projectPath: string | undefined,
    overrides: Record<string, unknown> = {},
  ) {
    this.overrides = overrides;
    this.reload();
  }
  private overrides: Record<string, unknown>;

  /** Global settings of `home` merged with `<cwd>/.tiller/settings.json`. */
  static create(cwd: string = process.cwd(), home: string = getTillerHome()): SettingsManager {
    return new SettingsManager(getTillerPaths(home).settings, join(cwd, ".tiller", "settings.json"));
  }

  /** Settings that touch no file (tests, embedding). */
  static inMemory(settings: Partial<Settings> = {}): SettingsManager {
    return new SettingsManager(undefined, undefined, settings as Record<string, unknown>);
  }

  /** Re-reads both files. */
  reload(): void {
    const errors: string[] = [];
    this.global = this.globalPath ? readJsonFile(this.globalPath, errors) : {};
    this.project = this.projectPath ? readJsonFile(this.projectPath, errors) : {};
    const { value: overrides, errors: overrideErrors } = validateSettings(this.overrides);
    for (const e of overrideErrors) errors.push(`settings: ${e}`);
    this.errors = errors;
    this.settings = mergeSettings(
      mergeSettings(mergeSettings(DEFAULT_SETTINGS as Record<string, unknown>, this.global), this.project),
      overrides,
    ) as Settings;
  }

  /** The merged settings (defaults < global < project < in-memory overrides). */
  get(): Settings {
    return this.settings;
  }

  /**
   * Sets top-level `key` in the global file (or in memory for `inMemory`). Throws `SettingsError` naming the key
   * when the value is invalid; the file is then left untouched.
   */
  set(key: string, value: unknown): void {
    const { errors } = validateSettings({ [key]: value });
    if (errors.length > 0) throw new SettingsError(errors.join("; "));
    if (!this.globalPath) {
      this.overrides = mergeSettings(this.overrides, { [key]: value });
      this.reload();
      return;
    }
    const errs: string[] = [];
    const current = readJsonFile(this.globalPath, errs);
    const next = { ...current, [key]: value };
    mkdirSync(dirname(this.globalPath), { recursive: true });
    const tmp = `${this.globalPath}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
    renameSync(tmp, this.globalPath);
    this.reload();
  }
  // ---- pi's accessors (SettingsManager of pi-coding-agent 0.73), over get() and set() ----

  /** The global file's settings as written (validated, without defaults). */
  getGlobalSettings(): Partial<Settings> {
    return { ...this.global };
  }
  /** The project file's settings as written (validated, without defaults). */
  getProjectSettings(): Partial<Settings> {
    return { ...this.project };
  }
  /** Merges `overrides` over both files for this process only (never written). */
  applyOverrides(overrides: Partial<Settings>): void {
    this.overrides = mergeSettings(this.overrides, overrides as Record<string, unknown>);
    this.reload();
  }
  /** Writes are synchronous here: nothing is pending. */
  async flush(): Promise<void> {}
  /** Returns and clears the problems found while loading. */
  drainErrors(): SettingsError[] {
    const out = this.errors.map((m) => new SettingsError(m));
    this.errors = [];
    return out;
  }

  /** Sets `key.field` in the global file, keeping the object's other fields as written there. */
  private setField(key: string, field: string, value: unknown): void {
    const current = this.globalPath ? this.global[key] : this.overrides[key];
    const base = current && typeof current === "object" && !Array.isArray(current) ? current : {};
    this.set(key, { ...(base as Record<string, unknown>), [field]: value });
  }
  private list(key: string): string[] {
    const v = this.settings[key];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
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
}
