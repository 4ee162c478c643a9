/**
 * What plugins register: hook handlers and tools. A plugin module exports `register(api)` (as default export, as a
 * named export, or as a method of a default-exported object) and calls `api.on(...)` / `api.registerTool(...)`.
 */
import type { AgentTool } from "@tiller/agent";
import { type HookLogger, HookRunner } from "./hook-runner.js";
import {
  type ErasedHookHandler,
  PLUGIN_HOOK_NAMES,
  type PluginHookHandler,
  type PluginHookName,
  type PluginHookRegistration,
} from "./hook-types.js";

const consoleLogger = {
  info: (m: string) => console.log(m),
  warn: (m: string) => console.warn(m),
};

/** The object a plugin's `register` receives. */
export interface PluginApi {
  /** The plugin's id (its `id` field, package name, or file name). */
  readonly id: string;
  /** The plugin's entry in `plugins.entries.<id>.config` of tiller.json, or `{}`. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly logger: HookLogger & { info(message: string): void };
  /** Registers a handler; higher `priority` runs first (default 0). Unknown hook names throw. */
  on<K extends PluginHookName>(hookName: K, handler: PluginHookHandler<K>, options?: { priority?: number }): void;
  /** Adds a tool to every agent's tool set (still subject to tool policy). */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  registerTool(tool: AgentTool<any>): void;
}

/** A loaded plugin and where it came from. */
export interface PluginRecord {
  id: string;
  source: string;
  hookCount: number;
  toolNames: string[];
}

/** A plugin failed to load or to register: it is skipped, the gateway keeps running. */
export interface PluginLoadError {
  source: string;
  error: string;
}

/** All plugins' registrations; `createHookRunner()` builds the runner the run pipeline uses. */
export class PluginRegistry {
  readonly plugins: PluginRecord[] = [];
  readonly hooks: PluginHookRegistration[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  readonly tools: AgentTool<any>[] = [];
  readonly errors: PluginLoadError[] = [];

  constructor(private readonly logger: HookLogger & { info(message: string): void } = consoleLogger) {}

  /**
   * Calls `register(api)` for one plugin. Registrations made before a throw are discarded so a half-registered
   * plugin never runs.
   */
  async register(
    id: string,
    source: string,
    register: (api: PluginApi) => unknown,
    config: Record<string, unknown> = {},
  ): Promise<PluginRecord | undefined> {
    if (this.plugins.some((p) => p.id === id)) {
      this.errors.push({ source, error: `duplicate plugin id "${id}" (already loaded from another path)` });
      this.logger.warn(`[plugins] ${source}: duplicate plugin id "${id}"; skipped`);
      return undefined;
    }
    const hooks: PluginHookRegistration[] = [];
    // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
    const tools: AgentTool<any>[] = [];
    const logger = this.logger;
    const api: PluginApi = {
      id,
      config,
      logger: {
        info: (m) => logger.info(`[plugin ${id}] ${m}`),
        warn: (m) => logger.warn(`[plugin ${id}] ${m}`),
        debug: (m) => logger.debug?.(`[plugin ${id}] ${m}`),
      },
      on(hookName, handler, options) {
        if (!(PLUGIN_HOOK_NAMES as readonly string[]).includes(hookName)) {
          throw new Error(`unknown hook "${String(hookName)}" (known: ${PLUGIN_HOOK_NAMES.join(", ")})`);
        }
        if (typeof handler !== "function") throw new Error(`handler for ${hookName} is not a function`);
        const priority = options?.priority ?? 0;
        if (typeof priority !== "number" || !Number.isFinite(priority)) {
          throw new Error(`priority for ${hookName} must be a finite number`);
        }
        hooks.push({ pluginId: id, hookName, handler: handler as ErasedHookHandler, priority });
      },
      registerTool(tool) {
        if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") {
          throw new Error("registerTool needs a tool with a name and an execute function");
        }
        tools.push(tool);
      },
    };
    try {
      await register(api);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.errors.push({ source, error });
      this.logger.warn(`[plugins] ${source}: register failed: ${error}; plugin skipped`);
      return undefined;
    }
    this.hooks.push(...hooks);
    this.tools.push(...tools);
    const record: PluginRecord = { id, source, hookCount: hooks.length, toolNames: tools.map((t) => t.name) };
    this.plugins.push(record);
    return record;
  }

  createHookRunner(logger: HookLogger = this.logger): HookRunner {
    return new HookRunner(this.hooks, logger);
  }
}
