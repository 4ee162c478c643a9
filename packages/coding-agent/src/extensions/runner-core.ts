import type { KeyId } from "@mariozechner/pi-tui";
import type { AgentTool } from "@tiller/agent";
import type { MessageRenderer } from "../cli/tui/pi/types.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { ExtensionProviderConfig } from "../models/models-json.js";
import type { ResourceDiagnostic } from "../runtime/resource-loader.js";
import type { ReadonlySessionManager } from "../session/types.js";
import {
  createContextFrom,
  type ExtensionCommandContext,
  type ExtensionCommandContextActions,
  type ExtensionContext,
  type ExtensionContextActions,
  NO_COMMAND_ACTIONS,
  unboundContext,
  withCommandActions,
} from "./context.js";
import { createExtensionRuntime, type ExtensionActions, type ExtensionRuntime } from "./extension-runtime.js";
import { errorOf, type LoadedExtension } from "./instantiate.js";
import { type ResolvedKeybindings, resolveShortcuts } from "./shortcuts.js";
import { type RegisteredTool, type ToolDefinition, wrapToolDefinition } from "./tool-definition.js";
import type {
  ExtensionError,
  ExtensionEvent,
  ExtensionEventMap,
  ExtensionEventName,
  ExtensionFlag,
  ExtensionResult,
  ExtensionShortcut,
  HandlerOf,
  RegisteredCommand,
  ResolvedCommand,
} from "./types.js";
import { createNoUIContext, type ExtensionUIContext } from "./ui-context.js";

/**
 * What `emit` resolves to for event `E`: the handlers' result for the cancellable `session_before_*` events,
 * nothing for the others. Written as pi's `RunnerEmitResult` is (one test per event type, in its order), so tsc
 * relates the two.
 */
export type EmitResult<E> = E extends { type: "session_before_switch" }
  ? ExtensionResult<"session_before_switch"> | undefined
  : E extends { type: "session_before_fork" }
    ? ExtensionResult<"session_before_fork"> | undefined
    : E extends { type: "session_before_compact" }
      ? ExtensionResult<"session_before_compact"> | undefined
      : E extends { type: "session_before_tree" }
        ? ExtensionResult<"session_before_tree"> | undefined
        : undefined;

/** The cancellable events: `emit` returns their handlers' result. */
const BEFORE_EVENTS = new Set<string>([
  "session_before_switch",
  "session_before_fork",
  "session_before_compact",
  "session_before_tree",
]);

/** The actions `bindCore` copies onto the shared runtime (pi's `ExtensionActions`). */
const ACTION_NAMES = [
  "sendMessage",
  "sendUserMessage",
  "appendEntry",
  "setSessionName",
  "getSessionName",
  "setLabel",
  "getActiveTools",
  "getAllTools",
  "setActiveTools",
  "refreshTools",
  "getCommands",
  "setModel",
  "getThinkingLevel",
  "setThinkingLevel",
] as const satisfies readonly (keyof ExtensionActions)[];

/**
 * The dispatching half of the ExtensionRunner: the loaded extensions, the context handlers get, registered tools,
 * commands and flags, errors, and the generic event dispatch (`emit`). runner.ts adds the hooks that change what
 * happens (input, tool calls and results, context, provider requests, user commands).
 */
export class ExtensionRunnerCore {
  readonly extensions: readonly LoadedExtension[];
  private uiContext: ExtensionUIContext = createNoUIContext();
  private context: ExtensionContext = unboundContext(() => this.uiContext);
  protected commandActions: ExtensionCommandContextActions = NO_COMMAND_ACTIONS;
  protected errorListeners: Array<(error: ExtensionError) => void> = [];
  /** Errors seen before any listener was attached (e.g. load errors), replayed to the first listener. */
  private pendingErrors: ExtensionError[] = [];
  private shortcutDiagnostics: ResourceDiagnostic[] = [];
  /** The AgentTool made for each registered definition (`toolsOf`). */
  private agentTools = new Map<ToolDefinition, AgentTool>();

  /** Errors met while loading (also delivered to the first `onError` listener). */
  readonly loadErrors: readonly ExtensionError[];

  /** The actions the extensions' APIs call (shared by the extensions of one load). */
  readonly runtime: ExtensionRuntime;

  /** The session parts pi's constructor names, which `bindCore` builds the context over. */
  private readonly host:
    | { cwd: string; sessionManager: ReadonlySessionManager; modelRegistry: ModelRegistry }
    | undefined;
  /** Whether `setUIContext` was given a UI (the `hasUI` of a context `bindCore` built). */
  private uiBound = false;

  /** Tiller's form: the loaded extensions, the errors met loading them, their shared runtime. */
  constructor(
    extensions: readonly LoadedExtension[],
    loadErrors?: readonly ExtensionError[],
    runtime?: ExtensionRuntime,
  );
  /** pi's form: the context is then built by `bindCore` over these session parts. */
  constructor(
    extensions: readonly LoadedExtension[],
    runtime: ExtensionRuntime,
    cwd: string,
    sessionManager: ReadonlySessionManager,
    modelRegistry: ModelRegistry,
  );
  constructor(
    extensions: readonly LoadedExtension[],
    second: readonly ExtensionError[] | ExtensionRuntime = [],
    third?: ExtensionRuntime | string,
    sessionManager?: ReadonlySessionManager,
    modelRegistry?: ModelRegistry,
  ) {
    const loadErrors = Array.isArray(second) ? (second as readonly ExtensionError[]) : [];
    const runtime = Array.isArray(second) ? third : (second as ExtensionRuntime);
    this.extensions = extensions;
    this.runtime = typeof runtime === "object" ? runtime : createExtensionRuntime();
    this.host =
      typeof third === "string" && sessionManager && modelRegistry
        ? { cwd: third, sessionManager, modelRegistry }
        : undefined;
    this.loadErrors = [...loadErrors];
    this.pendingErrors.push(...loadErrors);
  }

  /**
   * pi's binding: the extensions' actions act through `actions`, contexts read the session through
   * `contextActions` (over the session parts of pi's constructor form), and providers the extensions registered
   * while loading are registered now (through `providerActions`, else the model registry; a failing one is
   * reported as a `register_provider` error), later ones at once. Tiller's hosts use `setContext` and
   * `bindExtensionRuntime` instead.
   */
  bindCore(
    actions: ExtensionActions,
    contextActions: ExtensionContextActions,
    providerActions?: {
      registerProvider?: (name: string, config: ExtensionProviderConfig) => void;
      unregisterProvider?: (name: string) => void;
    },
  ): void {
    const host = this.host;
    if (!host)
      throw new Error(
        "bindCore needs the runner built with pi's constructor (extensions, runtime, cwd, sessionManager, modelRegistry)",
      );
    for (const name of ACTION_NAMES) (this.runtime as unknown as Record<string, unknown>)[name] = actions[name];
    this.context = createContextFrom({
      cwd: host.cwd,
      hasUI: () => this.uiBound,
      ui: () => this.uiContext,
      sessionManager: host.sessionManager,
      modelRegistry: host.modelRegistry,
      actions: contextActions,
    });
    const register = (name: string, config: ExtensionProviderConfig) =>
      providerActions?.registerProvider
        ? providerActions.registerProvider(name, config)
        : host.modelRegistry.registerProvider(name, config);
    for (const { name, config, extensionPath } of this.runtime.pendingProviderRegistrations.splice(0)) {
      try {
        register(name, config);
      } catch (err) {
        this.report(errorOf(extensionPath, "register_provider", err));
      }
    }
    this.runtime.registerProvider = register;
    this.runtime.unregisterProvider = (name) =>
      providerActions?.unregisterProvider
        ? providerActions.unregisterProvider(name)
        : host.modelRegistry.unregisterProvider(name);
  }

  /**
   * Sets what handlers and tools receive as `ctx` (done by the host once the session exists; see
   * `createContextFrom`). Its `ui` should read `getUIContext()` so `setUIContext` reaches it.
   */
  setContext(context: ExtensionContext): void {
    this.context = context;
  }

  /** The context handlers and tool definitions receive now (pi's `createContext`). */
  createContext(): ExtensionContext {
    return this.context;
  }

  /** The session controls `/command` handlers get besides the context (pi's `bindCommandContext`). */
  bindCommandContext(actions?: ExtensionCommandContextActions): void {
    this.commandActions = actions ?? NO_COMMAND_ACTIONS;
  }

  /** The context a `/command` handler receives: the current context plus the command actions. */
  createCommandContext(): ExtensionCommandContext {
    return withCommandActions(this.context, this.commandActions);
  }

  /** Replaces the UI handlers use (default: none — dialogs dismissed, as pi's runner without a UI). */
  setUIContext(uiContext?: ExtensionUIContext): void {
    this.uiContext = uiContext ?? createNoUIContext();
    this.uiBound = uiContext !== undefined;
  }

  getUIContext(): ExtensionUIContext {
    return this.uiContext;
  }

  /** Every flag the extensions registered (a later registration of a name wins). */
  getFlags(): Map<string, ExtensionFlag> {
    const out = new Map<string, ExtensionFlag>();
    for (const e of this.extensions) for (const [n, f] of e.flags) out.set(n, f);
    return out;
  }

  /** Sets a flag's value (the host's parsed command line); `getFlag` returns it from now on. */
  setFlagValue(name: string, value: boolean | string): void {
    this.runtime.flagValues.set(name, value);
  }

  getFlagValues(): Map<string, boolean | string> {
    return new Map(this.runtime.flagValues);
  }

  /** Whether the host has a user interface (the context's `hasUI`). */
  hasUI(): boolean {
    return this.context.hasUI;
  }

  /** Paths of the loaded extensions, in load order. */
  getExtensionPaths(): string[] {
    return this.extensions.map((e) => e.path);
  }

  /**
   * The extensions' tools with their definitions and sources (pi's registered tools); on a name clash the later
   * extension's tool, the one `getTools` hands the agent.
   */
  getAllRegisteredTools(): RegisteredTool[] {
    const byName = new Map<string, RegisteredTool>();
    for (const e of this.extensions) for (const [name, tool] of e.tools) byName.set(name, tool);
    return [...byName.values()];
  }

  getToolDefinition(name: string): ToolDefinition | undefined {
    return this.getAllRegisteredTools().find((t) => t.definition.name === name)?.definition;
  }

  /**
   * The extensions' shortcuts the UI binds given the built-in keys (`keybindings`: action → keys, as the
   * keybindings manager resolves them), by lower-cased key id; the conflicts met are `getShortcutDiagnostics`.
   */
  getShortcuts(keybindings: ResolvedKeybindings): Map<KeyId, ExtensionShortcut> {
    const { shortcuts, diagnostics } = resolveShortcuts(
      this.extensions.flatMap((e) => [...e.shortcuts.values()]),
      keybindings,
    );
    this.shortcutDiagnostics = diagnostics;
    return shortcuts;
  }

  /** The conflicts the last `getShortcuts` met (keys skipped or taken over). */
  getShortcutDiagnostics(): ResourceDiagnostic[] {
    return this.shortcutDiagnostics;
  }

  /** The renderer of custom messages of `customType` (the later extension's on a clash). */
  getMessageRenderer(customType: string): MessageRenderer | undefined {
    let found: MessageRenderer | undefined;
    for (const e of this.extensions) found = e.messageRenderers.get(customType) ?? found;
    return found;
  }

  /** Reports `error` to the error listeners (held for the first one when none is attached yet). */
  emitError(error: ExtensionError): void {
    this.report(error);
  }

  /** Subscribes to extension errors; errors raised before the first subscription are delivered to it at once. */
  onError(listener: (error: ExtensionError) => void): () => void {
    this.errorListeners.push(listener);
    const pending = this.pendingErrors.splice(0);
    for (const e of pending) listener(e);
    return () => {
      this.errorListeners = this.errorListeners.filter((l) => l !== listener);
    };
  }

  hasHandlers(event: ExtensionEventName): boolean {
    return this.extensions.some((e) => (e.handlers.get(event)?.length ?? 0) > 0);
  }

  /** Tools from every extension; on a name clash the later extension's tool replaces the earlier one. */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  getTools(): AgentTool<any>[] {
    // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
    const byName = new Map<string, AgentTool<any>>();
    for (const e of this.extensions) for (const t of this.toolsOf(e)) byName.set(t.name, t);
    return [...byName.values()];
  }

  /**
   * The AgentTools of `extension`'s registered tools, each calling its definition with this runner's context.
   * The same definition gives the same AgentTool every time (hosts compare tools by identity).
   */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  toolsOf(extension: LoadedExtension): AgentTool<any>[] {
    return [...extension.tools.values()].map(({ definition }) => {
      let tool = this.agentTools.get(definition);
      if (!tool) {
        tool = wrapToolDefinition(definition, () => this.context) as AgentTool;
        this.agentTools.set(definition, tool);
      }
      return tool;
    });
  }

  getCommands(): Map<string, RegisteredCommand & { extension: string }> {
    const out = new Map<string, RegisteredCommand & { extension: string }>();
    for (const e of this.extensions) for (const [n, c] of e.commands) out.set(n, { ...c, extension: e.path });
    return out;
  }

  /** Every `/command`, as `getCommands` resolves clashes (the later extension's), with its source. */
  getRegisteredCommands(): ResolvedCommand[] {
    return [...this.getCommands()].map(([name, { extension: _extension, ...command }]) => ({
      ...command,
      invocationName: name,
    }));
  }

  /**
   * A collision per `/command` two extensions registered: the later one is used (pi's runner reports none and
   * renames both to `name:1`, `name:2`).
   */
  getCommandDiagnostics(): ResourceDiagnostic[] {
    const first = new Map<string, string>();
    const out: ResourceDiagnostic[] = [];
    for (const e of this.extensions) {
      for (const name of e.commands.keys()) {
        const earlier = first.get(name);
        if (earlier === undefined) first.set(name, e.path);
        else {
          out.push({
            type: "collision",
            message: `/${name} is registered by ${earlier} and ${e.path}; ${e.path}'s is used`,
            path: e.path,
            collision: { resourceType: "extension", name, winnerPath: e.path, loserPath: earlier },
          });
          first.set(name, e.path);
        }
      }
    }
    return out;
  }

  /** The command `/name` invokes (without the slash), if any. */
  getCommand(name: string): ResolvedCommand | undefined {
    return this.getRegisteredCommands().find((c) => c.invocationName === name);
  }

  /**
   * Runs `/name args` if an extension registered `name`. Returns false when no such command exists.
   * A throwing command is reported, and still counts as handled.
   */
  async runCommand(text: string): Promise<boolean> {
    const m = /^\/([A-Za-z0-9_.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (!m) return false;
    const cmd = this.getCommands().get(m[1]!);
    if (!cmd) return false;
    try {
      await cmd.handler(m[2] ?? "", this.createCommandContext());
    } catch (err) {
      this.report(errorOf(cmd.extension, `command:/${m[1]}`, err));
    }
    return true;
  }

  /**
   * Dispatch of agent and session events. Never throws. For the cancellable `session_before_*` events it returns
   * the last handler result, or the first that cancels (later handlers are then not called), as pi's runner.
   */
  async emit<E extends ExtensionEvent>(event: E): Promise<EmitResult<E>> {
    const type = event.type as ExtensionEventName;
    const cancellable = BEFORE_EVENTS.has(type);
    let result: unknown;
    for (const [ext, handler] of this.handlersOf(type)) {
      const r = await this.call(ext, type, handler, event as ExtensionEventMap[typeof type]);
      if (!cancellable || !r) continue;
      result = r;
      if ((r as { cancel?: boolean }).cancel) break;
    }
    return result as EmitResult<E>;
  }

  protected *handlersOf<K extends ExtensionEventName>(event: K): Generator<[LoadedExtension, HandlerOf<K>]> {
    for (const ext of this.extensions) {
      for (const h of ext.handlers.get(event) ?? []) yield [ext, h as unknown as HandlerOf<K>];
    }
  }

  protected async each<K extends ExtensionEventName>(
    event: K,
    payload: ExtensionEventMap[K],
    onResult: (r: ExtensionResult<K> | undefined) => void,
  ): Promise<void> {
    for (const [ext, handler] of this.handlersOf(event)) onResult(await this.call(ext, event, handler, payload));
  }

  protected async call<K extends ExtensionEventName>(
    ext: LoadedExtension,
    event: K,
    handler: HandlerOf<K>,
    payload: ExtensionEventMap[K],
  ): Promise<ExtensionResult<K> | undefined> {
    try {
      return (await handler(payload, this.context)) ?? undefined;
    } catch (err) {
      this.report(errorOf(ext.path, event, err));
      return undefined;
    }
  }

  protected report(error: ExtensionError): void {
    if (this.errorListeners.length === 0) {
      this.pendingErrors.push(error);
      return;
    }
    for (const l of this.errorListeners) {
      try {
        l(error);
      } catch {
        // A failing error listener must not turn a reported error into a crash.
      }
    }
  }
}
