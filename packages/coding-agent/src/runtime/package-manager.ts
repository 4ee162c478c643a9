/**
 * pi's `PackageManager`: packages bundle extensions, skills, prompt templates and themes. A source is a local
 * folder, `npm:<spec>` (installed with npm under `<agentDir>/packages/npm`) or `git:<url>` (cloned under
 * `<agentDir>/packages/git`). The configured sources are the `packages` setting (user scope). A package lists
 * all its resources in package.json (`tiller` or `pi` key: `{ extensions, skills, prompts, themes }`); without
 * that key the folders of those names are used.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { SettingsManager } from "../settings/settings-manager.js";

export interface PathMetadata {
  source: string;
  scope: "user" | "project" | "temporary";
  origin: "package" | "top-level";
  baseDir?: string;
}

export interface ResolvedResource {
  path: string;
  enabled: boolean;
  metadata: PathMetadata;
}

export interface ResolvedPaths {
  extensions: ResolvedResource[];
  skills: ResolvedResource[];
  prompts: ResolvedResource[];
  themes: ResolvedResource[];
}

export type MissingSourceAction = "install" | "skip" | "error";

export interface ProgressEvent {
  type: "start" | "progress" | "complete" | "error";
  action: "install" | "remove" | "update" | "clone" | "pull";
  source: string;
  message?: string;
}
export type ProgressCallback = (event: ProgressEvent) => void;

export interface PackageUpdate {
  source: string;
  displayName: string;
  type: "npm" | "git";
  scope: "user" | "project";
}

export interface ConfiguredPackage {
  source: string;
  scope: "user" | "project";
  filtered: boolean;
  installedPath?: string;
}

export interface PackageManager {
  resolve(onMissing?: (source: string) => Promise<MissingSourceAction>): Promise<ResolvedPaths>;
  install(source: string, options?: { local?: boolean }): Promise<void>;
  installAndPersist(source: string, options?: { local?: boolean }): Promise<void>;
  remove(source: string, options?: { local?: boolean }): Promise<void>;
  removeAndPersist(source: string, options?: { local?: boolean }): Promise<boolean>;
  update(source?: string): Promise<void>;
  listConfiguredPackages(): ConfiguredPackage[];
  resolveExtensionSources(
    sources: string[],
    options?: { local?: boolean; temporary?: boolean },
  ): Promise<ResolvedPaths>;
  addSourceToSettings(source: string, options?: { local?: boolean }): boolean;
  removeSourceFromSettings(source: string, options?: { local?: boolean }): boolean;
  setProgressCallback(callback: ProgressCallback | undefined): void;
  getInstalledPath(source: string, scope: "user" | "project"): string | undefined;
}

const KINDS = ["extensions", "skills", "prompts", "themes"] as const;
type Kind = (typeof KINDS)[number];

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolvePromise()
        : reject(new Error(`${command} ${args.join(" ")} failed (${code}): ${stderr.trim()}`)),
    );
  });
}

/** `npm:@scope/name@1.2` → `@scope/name`. */
function npmName(spec: string): string {
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

function gitDirName(url: string): string {
  return url
    .replace(/^git:/, "")
    .replace(/^[a-z]+:\/\//, "")
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_");
}

export class DefaultPackageManager implements PackageManager {
  private progress: ProgressCallback | undefined;
  private readonly cwd: string;
  private readonly agentDir: string;
  private readonly settingsManager: SettingsManager;

  constructor(options: { cwd: string; agentDir: string; settingsManager: SettingsManager }) {
    this.cwd = options.cwd;
    this.agentDir = options.agentDir;
    this.settingsManager = options.settingsManager;
  }

  setProgressCallback(callback: ProgressCallback | undefined): void {
    this.progress = callback;
  }

  private configured(): string[] {
    const raw = this.settingsManager.get().packages;
    if (!Array.isArray(raw)) return [];
    return raw
      .map((p) => (typeof p === "string" ? p : (p as { source?: unknown })?.source))
      .filter((s): s is string => typeof s === "string" && s.length > 0);
  }

  private kind(source: string): "npm" | "git" | "local" {
    if (source.startsWith("npm:")) return "npm";
    if (source.startsWith("git:") || /^https?:\/\/.+\.git$/.test(source)) return "git";
    return "local";
  }

  private localPath(source: string): string {
    const p = source.startsWith("~/") ? join(homedir(), source.slice(2)) : source;
    return isAbsolute(p) ? p : resolve(this.cwd, p);
  }

  getInstalledPath(source: string, _scope: "user" | "project" = "user"): string | undefined {
    const kind = this.kind(source);
    const path =
      kind === "npm"
        ? join(this.agentDir, "packages", "npm", "node_modules", npmName(source.slice(4)))
        : kind === "git"
          ? join(this.agentDir, "packages", "git", gitDirName(source))
          : this.localPath(source);
    return existsSync(path) ? path : undefined;
  }

  addSourceToSettings(source: string, options: { local?: boolean } = {}): boolean {
    if (options.local) throw new Error("project-scoped packages are not supported: omit `local`");
    const list = this.configured();
    if (list.includes(source)) return false;
    this.settingsManager.set("packages", [...list, source]);
    return true;
  }

  removeSourceFromSettings(source: string, options: { local?: boolean } = {}): boolean {
    if (options.local) throw new Error("project-scoped packages are not supported: omit `local`");
    const list = this.configured();
    if (!list.includes(source)) return false;
    this.settingsManager.set(
      "packages",
      list.filter((s) => s !== source),
    );
    return true;
  }

  listConfiguredPackages(): ConfiguredPackage[] {
    return this.configured().map((source) => {
      const installedPath = this.getInstalledPath(source, "user");
      return { source, scope: "user", filtered: false, ...(installedPath ? { installedPath } : {}) };
    });
  }

  async install(source: string, _options: { local?: boolean } = {}): Promise<void> {
    const kind = this.kind(source);
    const emit = (type: ProgressEvent["type"], message?: string) =>
      this.progress?.({ type, action: kind === "git" ? "clone" : "install", source, ...(message ? { message } : {}) });
    emit("start");
    try {
      if (kind === "local") {
        if (!existsSync(this.localPath(source))) throw new Error(`package folder not found: ${this.localPath(source)}`);
      } else if (kind === "npm") {
        const dir = join(this.agentDir, "packages", "npm");
        await run("npm", ["install", "--no-audit", "--no-fund", "--prefix", dir, source.slice(4)], this.cwd);
      } else {
        const dir = join(this.agentDir, "packages", "git", gitDirName(source));
        if (!existsSync(dir)) await run("git", ["clone", "--depth", "1", source.replace(/^git:/, ""), dir], this.cwd);
      }
      emit("complete");
    } catch (err) {
      emit("error", (err as Error).message);
      throw err;
    }
  }

  async installAndPersist(source: string, options: { local?: boolean } = {}): Promise<void> {
    await this.install(source, options);
    this.addSourceToSettings(source, options);
  }

  async remove(source: string, _options: { local?: boolean } = {}): Promise<void> {
    const kind = this.kind(source);
    // A local folder is the user's own: removing the package never deletes it.
    if (kind === "local") return;
    const path = this.getInstalledPath(source, "user");
    this.progress?.({ type: "start", action: "remove", source });
    if (path) rmSync(path, { recursive: true, force: true });
    this.progress?.({ type: "complete", action: "remove", source });
  }

  async removeAndPersist(source: string, options: { local?: boolean } = {}): Promise<boolean> {
    await this.remove(source, options);
    return this.removeSourceFromSettings(source, options);
  }

  async update(source?: string): Promise<void> {
    for (const s of source ? [source] : this.configured()) {
      const kind = this.kind(s);
      if (kind === "npm") await this.install(s);
      else if (kind === "git") {
        const dir = this.getInstalledPath(s, "user");
        if (dir) await run("git", ["pull", "--ff-only"], dir);
        else await this.install(s);
      }
    }
  }

  /** Tiller does not query registries or remotes for updates: always empty (`update()` fetches unconditionally). */
  async checkForAvailableUpdates(): Promise<PackageUpdate[]> {
    return [];
  }

  async resolve(onMissing?: (source: string) => Promise<MissingSourceAction>): Promise<ResolvedPaths> {
    return this.resolveSources(this.configured(), "user", onMissing);
  }

  resolveExtensionSources(
    sources: string[],
    options: { local?: boolean; temporary?: boolean } = {},
  ): Promise<ResolvedPaths> {
    return this.resolveSources(sources, options.temporary ? "temporary" : options.local ? "project" : "user");
  }

  private async resolveSources(
    sources: string[],
    scope: PathMetadata["scope"],
    onMissing?: (source: string) => Promise<MissingSourceAction>,
  ): Promise<ResolvedPaths> {
    const out: ResolvedPaths = { extensions: [], skills: [], prompts: [], themes: [] };
    for (const source of sources) {
      let dir = this.getInstalledPath(source, "user");
      if (!dir) {
        const action = onMissing ? await onMissing(source) : "skip";
        if (action === "error") throw new Error(`package not installed: ${source}`);
        if (action === "skip") continue;
        await this.install(source);
        dir = this.getInstalledPath(source, "user");
        if (!dir) continue;
      }
      const metadata: PathMetadata = { source, scope, origin: "package", baseDir: dir };
      // A plain extension file given as a source is itself the extension.
      if (statSync(dir).isFile()) {
        out.extensions.push({ path: dir, enabled: true, metadata: { ...metadata, origin: "top-level" } });
        continue;
      }
      const manifest = this.manifest(dir);
      for (const kind of KINDS) {
        // A manifest is the complete list; without one the conventional folders are used.
        const entries = manifest ? (manifest[kind] ?? []) : existsSync(join(dir, kind)) ? [kind] : [];
        for (const rel of entries) out[kind].push({ path: resolve(dir, rel), enabled: true, metadata });
      }
    }
    return out;
  }

  private manifest(dir: string): Partial<Record<Kind, string[]>> | undefined {
    const file = join(dir, "package.json");
    if (!existsSync(file)) return undefined;
    try {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      const m = (pkg.tiller ?? pkg.pi) as Record<string, unknown> | undefined;
      if (!m || typeof m !== "object") return undefined;
      const out: Partial<Record<Kind, string[]>> = {};
      for (const kind of KINDS) {
        const v = m[kind];
        if (Array.isArray(v)) out[kind] = v.filter((x): x is string => typeof x === "string");
      }
      return out;
    } catch {
      return undefined;
    }
  }
}
