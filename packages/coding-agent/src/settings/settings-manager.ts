/**
 * `SettingsManager`: global `$TILLER_HOME/settings.json` merged under the project's `.tiller/settings.json`, over
 * the defaults. A file that is missing is empty; a file that does not parse, or a key of the wrong type, is
 * reported in `errors` (naming the file and key) and ignored, so a typo never stops the agent. Writes go to the
 * global file, validated first.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { getTillerHome, getTillerPaths } from "../home.js";
import { DEFAULT_SETTINGS, mergeSettings, type Settings, validateSettings } from "./schema.js";

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
}
