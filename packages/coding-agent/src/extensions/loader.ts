import { existsSync, readdirSync, statSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createEventBus, type EventBus } from "../event-bus.js";
import { createExtensionRuntime } from "./extension-runtime.js";
import { errorOf } from "./instantiate.js";
import { ExtensionRunner, errorText, instantiateExtension, type LoadedExtension } from "./runner.js";
import type { ExtensionError, ExtensionFactory } from "./types.js";

const EXTENSIONS = new Set([".ts", ".mts", ".js", ".mjs", ".cjs"]);
const TS = new Set([".ts", ".mts", ".cts"]);

export interface LoadExtensionsOptions {
  cwd: string;
  /** Tiller home; `<home>/extensions` is scanned. Omit to skip the user folder. */
  tillerHome?: string;
  /** Explicit files or folders (`--extension`), loaded after the discovered ones. */
  paths?: readonly string[];
  /** Skip `<home>/extensions` and `<cwd>/.tiller/extensions` (explicit paths still load). */
  noDiscovery?: boolean;
  /** Factories given in code (tests, embedders). */
  factories?: ReadonlyArray<{ name: string; factory: ExtensionFactory }>;
  /** The `events` bus the extensions share (default: a new one). */
  eventBus?: EventBus;
}

/**
 * Finds extension modules: each `.ts`/`.js` file directly inside an extensions folder, or a sub-folder with an
 * `index.ts`/`index.js`. Folders that do not exist are skipped.
 */
export function discoverExtensionFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    if (name.startsWith(".") || name.endsWith(".d.ts")) continue;
    const full = join(dir, name);
    let isDir = false;
    try {
      isDir = statSync(full).isDirectory();
    } catch {
      continue;
    }
    if (isDir) {
      const index = ["index.ts", "index.mts", "index.js", "index.mjs"].map((n) => join(full, n)).find(existsSync);
      if (index) out.push(index);
    } else if (EXTENSIONS.has(extname(name))) {
      out.push(full);
    }
  }
  return out;
}

type TsImport = (specifier: string, parent: string) => Promise<Record<string, unknown>>;
let tsImportPromise: Promise<TsImport> | undefined;

/** tsx's loader is only pulled in when a TypeScript extension exists (it costs start-up time). */
function getTsImport(): Promise<TsImport> {
  tsImportPromise ??= import("tsx/esm/api").then(
    (m) => m.tsImport as unknown as TsImport,
    (err: unknown) => {
      tsImportPromise = undefined;
      throw new Error(
        `TypeScript extensions need the "tsx" package (npm install tsx), or compile the extension to .js (${errorText(err)})`,
      );
    },
  );
  return tsImportPromise;
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (TS.has(extname(file))) {
    const tsImport = await getTsImport();
    return tsImport(url, import.meta.url);
  }
  return (await import(url)) as Record<string, unknown>;
}

function pickFactory(mod: Record<string, unknown>): ExtensionFactory | undefined {
  let candidate: unknown = mod.default;
  // A CommonJS module imported from ESM (or through tsx) can come back as { default: { default: fn } }.
  if (
    candidate &&
    typeof candidate === "object" &&
    typeof (candidate as { default?: unknown }).default === "function"
  ) {
    candidate = (candidate as { default: unknown }).default;
  }
  return typeof candidate === "function" ? (candidate as ExtensionFactory) : undefined;
}

/**
 * Loads extensions from `<tillerHome>/extensions`, `<cwd>/.tiller/extensions`, then `paths`, and runs each factory.
 * Nothing here throws: a module that fails to import, exports no factory, or whose factory throws becomes an
 * `ExtensionError` and the others still load.
 */
export async function loadExtensions(options: LoadExtensionsOptions): Promise<ExtensionRunner> {
  const cwd = resolve(options.cwd);
  const files: string[] = [];
  if (!options.noDiscovery) {
    if (options.tillerHome) files.push(...discoverExtensionFiles(join(options.tillerHome, "extensions")));
    files.push(...discoverExtensionFiles(join(cwd, ".tiller", "extensions")));
  }
  const errors: ExtensionError[] = [];
  for (const p of options.paths ?? []) {
    const full = resolve(cwd, p);
    let isDir = false;
    try {
      isDir = statSync(full).isDirectory();
    } catch {
      errors.push({ extensionPath: full, event: "load", error: "file not found" });
      continue;
    }
    if (isDir) {
      const found = discoverExtensionFiles(full);
      // A folder given explicitly may itself be one extension (with index.ts) or a folder of them.
      const index = ["index.ts", "index.js", "index.mjs"].map((n) => join(full, n)).find(existsSync);
      files.push(...(index ? [index] : found));
    } else {
      files.push(full);
    }
  }
  const loaded: LoadedExtension[] = [];
  const shared = { runtime: createExtensionRuntime(), events: options.eventBus ?? createEventBus() };
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    let factory: ExtensionFactory | undefined;
    try {
      factory = pickFactory(await importModule(file));
    } catch (err) {
      errors.push(errorOf(file, "load", err));
      continue;
    }
    if (!factory) {
      errors.push({ extensionPath: file, event: "load", error: "module has no default-exported function" });
      continue;
    }
    const r = await instantiateExtension(file, factory, cwd, shared);
    if (r.extension) loaded.push(r.extension);
    if (r.error) errors.push(r.error);
  }
  for (const { name, factory } of options.factories ?? []) {
    const r = await instantiateExtension(name, factory, cwd, shared);
    if (r.extension) loaded.push(r.extension);
    if (r.error) errors.push(r.error);
  }
  return new ExtensionRunner(loaded, errors, shared.runtime);
}
