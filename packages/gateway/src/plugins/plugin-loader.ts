/**
 * Finds and loads plugins: every `.ts`/`.mts`/`.js`/`.mjs` file or folder (with a package.json or an index file) in
 * `$TILLER_HOME/plugins/`, then each path in `plugins.load` of tiller.json (`["./p.ts"]` or `{ "paths": [...] }`,
 * relative to $TILLER_HOME). TypeScript plugins are imported through tsx's API, loaded only when one exists.
 * A plugin that fails to load is reported in `registry.errors` and skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { HookLogger } from "./hook-runner.js";
import { type PluginApi, PluginRegistry } from "./plugin-registry.js";

const SCRIPT_EXTS = [".ts", ".mts", ".js", ".mjs"];
const TS_EXTS = [".ts", ".mts", ".cts"];

export interface LoadPluginsOptions {
  /** $TILLER_HOME. */
  home: string;
  /** The raw tiller.json object (reads `plugins.load`, `plugins.entries.<id>.config`, `plugins.entries.<id>.enabled`). */
  config?: Record<string, unknown>;
  logger?: HookLogger & { info(message: string): void };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The entry file of a plugin path (a file, or a folder with package.json `main`/`exports` or an index file). */
export function resolvePluginEntry(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const st = statSync(path);
  if (st.isFile()) return SCRIPT_EXTS.includes(extname(path)) || extname(path) === ".cts" ? path : undefined;
  if (!st.isDirectory()) return undefined;
  const pkgFile = join(path, "package.json");
  if (existsSync(pkgFile)) {
    try {
      const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as Obj;
      const tiller = isObj(pkg.tiller) ? pkg.tiller : {};
      const exp = pkg.exports;
      const candidates = [
        typeof tiller.plugin === "string" ? tiller.plugin : undefined,
        typeof exp === "string" ? exp : undefined,
        isObj(exp) && typeof exp["."] === "string" ? exp["."] : undefined,
        isObj(exp) && isObj(exp["."]) && typeof (exp["."] as Obj).import === "string"
          ? ((exp["."] as Obj).import as string)
          : undefined,
        typeof pkg.main === "string" ? pkg.main : undefined,
      ];
      for (const c of candidates) {
        if (c && existsSync(join(path, c))) return join(path, c);
      }
    } catch {
      // Fall through to index files; a broken package.json is reported when no entry is found.
    }
  }
  for (const ext of SCRIPT_EXTS) {
    const index = join(path, `index${ext}`);
    if (existsSync(index)) return index;
  }
  return undefined;
}

function packageName(path: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as Obj;
    return typeof pkg.name === "string" ? pkg.name : undefined;
  } catch {
    return undefined;
  }
}

let tsImporter: ((url: string, parent: string) => Promise<unknown>) | undefined;

/** Imports a plugin entry; TypeScript goes through tsx's `tsImport`, imported lazily on first need. */
export async function importPluginModule(entry: string): Promise<unknown> {
  const url = pathToFileURL(entry).href;
  if (TS_EXTS.includes(extname(entry))) {
    if (!tsImporter) {
      const api = (await import("tsx/esm/api")) as {
        tsImport: (specifier: string, parentURL: string) => Promise<unknown>;
      };
      tsImporter = api.tsImport;
    }
    return tsImporter(url, import.meta.url);
  }
  return import(url);
}

/** Finds `register` and an optional id in a plugin module's exports. */
export function pluginShape(mod: unknown): { register?: (api: PluginApi) => unknown; id?: string } {
  if (!isObj(mod) && typeof mod !== "function") return {};
  const m = mod as Obj;
  const def = m.default;
  // tsx may wrap CommonJS-looking modules: default.default.
  const candidates: unknown[] = [def, isObj(def) ? def.default : undefined, m];
  for (const c of candidates) {
    if (typeof c === "function") return { register: c as (api: PluginApi) => unknown };
    if (isObj(c) && typeof c.register === "function") {
      return {
        register: (c.register as (api: PluginApi) => unknown).bind(c),
        id: typeof c.id === "string" ? c.id : undefined,
      };
    }
  }
  return {};
}

/** Plugin paths in discovery order: $home/plugins entries (sorted by name), then `plugins.load`. */
export function discoverPluginPaths(home: string, config: Obj = {}): string[] {
  const out: string[] = [];
  const dir = join(home, "plugins");
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory() || SCRIPT_EXTS.includes(extname(name))) {
        if (!name.endsWith(".d.ts")) out.push(full);
      }
    }
  }
  const plugins = isObj(config.plugins) ? config.plugins : {};
  const load = plugins.load;
  const list = Array.isArray(load) ? load : isObj(load) && Array.isArray(load.paths) ? load.paths : [];
  for (const p of list) {
    if (typeof p === "string" && p.length > 0) out.push(resolve(home, p));
  }
  return [...new Set(out)];
}

/** Loads every discovered plugin into a fresh registry. Never throws for a bad plugin. */
export async function loadPlugins(options: LoadPluginsOptions): Promise<PluginRegistry> {
  const config = options.config ?? {};
  const registry = new PluginRegistry(options.logger);
  const plugins = isObj(config.plugins) ? config.plugins : {};
  const entries = isObj(plugins.entries) ? plugins.entries : {};
  for (const path of discoverPluginPaths(options.home, config)) {
    const entry = resolvePluginEntry(path);
    if (!entry) {
      const error = existsSync(path) ? "no entry file (package.json main/exports or index.ts/js)" : "not found";
      registry.errors.push({ source: path, error });
      options.logger?.warn(`[plugins] ${path}: ${error}; skipped`);
      continue;
    }
    let mod: unknown;
    try {
      mod = await importPluginModule(entry);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      registry.errors.push({ source: path, error: `import failed: ${error}` });
      (options.logger ?? console).warn(`[plugins] ${path}: import failed: ${error}; skipped`);
      continue;
    }
    const shape = pluginShape(mod);
    if (!shape.register) {
      registry.errors.push({ source: path, error: "the module exports no register(api) function" });
      (options.logger ?? console).warn(`[plugins] ${path}: no register(api) export; skipped`);
      continue;
    }
    const isDir = statSync(path).isDirectory();
    const stem = basename(path, extname(path));
    const id = shape.id ?? (isDir ? (packageName(path) ?? stem) : stem);
    const entryConf = isObj(entries[id]) ? (entries[id] as Obj) : {};
    if (entryConf.enabled === false) continue;
    await registry.register(id, path, shape.register, isObj(entryConf.config) ? entryConf.config : {});
  }
  return registry;
}
