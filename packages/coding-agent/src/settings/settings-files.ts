/**
 * The settings files behind `SettingsManager`: global `$TILLER_HOME/settings.json` merged under the project's `.tiller/settings.json`, over
 * the defaults. A file that is missing is empty; a file that does not parse, or a key of the wrong type, is
 * reported in `errors` (naming the file and key) and ignored, so a typo never stops the agent. Writes go to the
 * global file, validated first.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_SETTINGS, mergeSettings, type Settings, validateSettings } from "./schema.js";

/** A settings problem; `scope` and `error` are pi's `SettingsError` fields (the error is this one). */
export class SettingsError extends Error {
  constructor(
    message: string,
    readonly scope: "global" | "project" = "global",
  ) {
    super(message);
    this.name = "SettingsError";
  }
  get error(): Error {
    return this;
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

/** The settings files, merged and validated; writes go through `set`. pi's accessors live in the subclasses. */
export class SettingsFiles {
  protected settings: Settings = DEFAULT_SETTINGS;
  private global: Record<string, unknown> = {};
  private project: Record<string, unknown> = {};
  /** Problems found while loading, one per file/key. */
  errors: string[] = [];

  protected constructor(
    readonly globalPath: string | undefined,
    readonly projectPath: string | undefined,
    overrides: Record<string, unknown> = {},
  ) {
    this.overrides = overrides;
    this.load();
  }
  private overrides: Record<string, unknown>;

  /** Re-reads both files. Done when it returns; the promise is pi's signature (`await` works). */
  reload(): Promise<void> {
    this.load();
    return Promise.resolve();
  }

  private load(): void {
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
    this.write(this.globalPath, key, value);
  }

  /** As `set`, in the project's file (`<cwd>/.tiller/settings.json`; in memory for `inMemory`). */
  setProject(key: string, value: unknown): void {
    this.write(this.projectPath, key, value);
  }

  private write(path: string | undefined, key: string, value: unknown): void {
    const { errors } = validateSettings({ [key]: value });
    if (errors.length > 0) throw new SettingsError(errors.join("; "));
    if (!path) {
      this.overrides = mergeSettings(this.overrides, { [key]: value });
      this.load();
      return;
    }
    const errs: string[] = [];
    const current = readJsonFile(path, errs);
    const next = { ...current, [key]: value };
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
    renameSync(tmp, path);
    this.load();
  }
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
    this.load();
  }
  /** Writes are synchronous here: nothing is pending. */
  async flush(): Promise<void> {}
  /** Returns and clears the problems found while loading. */
  drainErrors(): SettingsError[] {
    const project = this.projectPath;
    const out = this.errors.map(
      (m) => new SettingsError(m, project !== undefined && m.startsWith(`${project}:`) ? "project" : "global"),
    );
    this.errors = [];
    return out;
  }

  /** Sets `key.field` in the global file, keeping the object's other fields as written there. */
  protected setField(key: string, field: string, value: unknown): void {
    const current = this.globalPath ? this.global[key] : this.overrides[key];
    const base = current && typeof current === "object" && !Array.isArray(current) ? current : {};
    this.set(key, { ...(base as Record<string, unknown>), [field]: value });
  }
  protected list(key: string): string[] {
    const v = this.settings[key];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  }
}
