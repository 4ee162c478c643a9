/**
 * Gateway (internal) hooks: event-driven scripts in `$TILLER_HOME/hooks/` (and `hooks.load.paths` of tiller.json).
 * A hook is either a folder with `HOOK.md` (frontmatter `events: ["agent:bootstrap", "command:new"]`, or a one-line
 * JSON `metadata: {"tiller":{"events":[...]}}`) and a `handler.ts|js|mjs` (or `index.*`) whose default export is
 * `async (event) => void`; or a single module exporting `events` and a default handler.
 *
 * Events: `agent:bootstrap` (context.bootstrapFiles is mutable: add, remove or replace files before the prompt is
 * final), `command:new`, `command:reset`, `command:stop` (handlers may push strings to `event.messages` to reply to
 * the user), plus `gateway:startup`, `session:compact:before|after`, `message:received|sent`. A handler registered
 * for a type (`command`) receives every action of that type. Handlers run in order; a throwing one is logged and
 * skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { parseFrontmatter } from "@tiller/coding-agent";
import { importPluginModule } from "../plugins/plugin-loader.js";

export interface InternalHookEvent {
  /** `agent`, `command`, `session`, `gateway`, `message`. */
  type: string;
  /** `bootstrap`, `new`, `reset`, `stop`, … */
  action: string;
  sessionKey?: string;
  timestamp: number;
  /** Handlers push text here to reply to the user (command hooks). */
  messages: string[];
  context: Record<string, unknown>;
}

export type InternalHookHandler = (event: InternalHookEvent) => void | Promise<void>;

export interface InternalHookRecord {
  name: string;
  source: string;
  events: string[];
}

export interface InternalHookLogger {
  warn(message: string): void;
}

const SCRIPT_EXTS = [".ts", ".mts", ".js", ".mjs"];

/** Registered gateway hooks, keyed by `type` or `type:action`. */
export class InternalHookRegistry {
  private readonly handlers = new Map<string, { name: string; handler: InternalHookHandler }[]>();
  readonly hooks: InternalHookRecord[] = [];
  readonly errors: { source: string; error: string }[] = [];

  constructor(private readonly logger: InternalHookLogger = { warn: (m) => console.warn(m) }) {}

  register(eventKey: string, handler: InternalHookHandler, name = "anonymous"): void {
    const list = this.handlers.get(eventKey) ?? [];
    list.push({ name, handler });
    this.handlers.set(eventKey, list);
  }

  has(type: string, action: string): boolean {
    return (this.handlers.get(type)?.length ?? 0) + (this.handlers.get(`${type}:${action}`)?.length ?? 0) > 0;
  }

  /** Runs the handlers of `type`, then those of `type:action`, in registration order. Never throws. */
  async trigger(event: InternalHookEvent): Promise<InternalHookEvent> {
    const list = [
      ...(this.handlers.get(event.type) ?? []),
      ...(this.handlers.get(`${event.type}:${event.action}`) ?? []),
    ];
    for (const { name, handler } of list) {
      try {
        await handler(event);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        this.logger.warn(`[hooks] ${event.type}:${event.action} hook ${name} failed: ${msg}; skipped`);
      }
    }
    return event;
  }
}

/** Builds an event with the common fields filled in. */
export function createInternalHookEvent(
  type: string,
  action: string,
  context: Record<string, unknown> = {},
  sessionKey?: string,
): InternalHookEvent {
  return { type, action, sessionKey, timestamp: Date.now(), messages: [], context };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Event keys from HOOK.md frontmatter: `events` (JSON array or comma list) or `metadata.tiller.events`. */
export function parseHookEvents(hookMd: string): string[] {
  const { attributes } = parseFrontmatter(hookMd);
  const fromList = (raw: string | undefined): string[] => {
    if (!raw) return [];
    const t = raw.trim();
    if (t.startsWith("[")) {
      try {
        const arr = JSON.parse(t) as unknown;
        return Array.isArray(arr) ? arr.filter((e): e is string => typeof e === "string") : [];
      } catch {
        return [];
      }
    }
    return t
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  };
  const direct = fromList(attributes.events);
  if (direct.length > 0) return direct;
  if (attributes.metadata) {
    try {
      const meta = JSON.parse(attributes.metadata) as Obj;
      const t = isObj(meta.tiller) ? meta.tiller : isObj(meta.openclaw) ? meta.openclaw : {};
      if (Array.isArray(t.events)) return t.events.filter((e): e is string => typeof e === "string");
    } catch {
      return [];
    }
  }
  return [];
}

function findHandlerFile(dir: string): string | undefined {
  for (const stem of ["handler", "index"]) {
    for (const ext of SCRIPT_EXTS) {
      const f = join(dir, `${stem}${ext}`);
      if (existsSync(f)) return f;
    }
  }
  return undefined;
}

function handlerOf(mod: unknown): InternalHookHandler | undefined {
  if (!isObj(mod)) return undefined;
  const d = mod.default;
  if (typeof d === "function") return d as InternalHookHandler;
  if (isObj(d) && typeof d.default === "function") return d.default as InternalHookHandler;
  if (typeof mod.handler === "function") return mod.handler as InternalHookHandler;
  return undefined;
}

export interface LoadInternalHooksOptions {
  home: string;
  /** The raw tiller.json object (`hooks.load.paths`, `hooks.entries.<name>.enabled`). */
  config?: Record<string, unknown>;
  logger?: InternalHookLogger;
}

/** Loads every hook folder/module under `$home/hooks` and `hooks.load.paths`. Bad hooks are reported, not fatal. */
export async function loadInternalHooks(options: LoadInternalHooksOptions): Promise<InternalHookRegistry> {
  const logger = options.logger ?? { warn: (m: string) => console.warn(m) };
  const registry = new InternalHookRegistry(logger);
  const cfg = isObj(options.config?.hooks) ? (options.config?.hooks as Obj) : {};
  const load = isObj(cfg.load) ? cfg.load : {};
  const entries = isObj(cfg.entries) ? cfg.entries : {};
  const paths: string[] = [];
  const dir = join(options.home, "hooks");
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (!name.startsWith(".") && name !== "node_modules") paths.push(join(dir, name));
    }
  }
  if (Array.isArray(load.paths)) {
    for (const p of load.paths) if (typeof p === "string") paths.push(resolve(options.home, p));
  }
  for (const path of paths) {
    const fail = (error: string) => {
      registry.errors.push({ source: path, error });
      logger.warn(`[hooks] ${path}: ${error}; skipped`);
    };
    if (!existsSync(path)) {
      fail("not found");
      continue;
    }
    const isDir = statSync(path).isDirectory();
    if (!isDir && !SCRIPT_EXTS.includes(extname(path))) continue;
    const name = isDir ? basename(path) : basename(path, extname(path));
    const entry = entries[name];
    if (isObj(entry) && entry.enabled === false) continue;
    let file = path;
    let events: string[] = [];
    if (isDir) {
      const hookMd = join(path, "HOOK.md");
      if (existsSync(hookMd)) events = parseHookEvents(readFileSync(hookMd, "utf8"));
      const handlerFile = findHandlerFile(path);
      if (!handlerFile) {
        fail("no handler.ts/js or index.ts/js");
        continue;
      }
      file = handlerFile;
    }
    let mod: unknown;
    try {
      mod = await importPluginModule(file);
    } catch (err) {
      fail(`import failed: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const handler = handlerOf(mod);
    if (isObj(mod) && Array.isArray(mod.events) && events.length === 0) {
      events = mod.events.filter((e): e is string => typeof e === "string");
    }
    if (!handler) {
      fail("no default-exported handler function");
      continue;
    }
    if (events.length === 0) {
      fail("declares no events (HOOK.md `events: [...]` or `export const events`)");
      continue;
    }
    for (const key of events) registry.register(key, handler, name);
    registry.hooks.push({ name, source: path, events });
  }
  return registry;
}
