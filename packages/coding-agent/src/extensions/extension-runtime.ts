/**
 * pi's extension loading entry points: `discoverAndLoadExtensions` (configured paths plus the standard folders)
 * and the shared `ExtensionRuntime`, whose actions act on a session once `bindExtensionRuntime` bound it and
 * throw before that (an extension must not act while it is still loading).
 */
import type { AgentTool, ThinkingLevel } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import type { AgentSession } from "../agent-session/agent-session.js";
import type { EventBus } from "../event-bus.js";
import { getTillerHome } from "../home.js";
import { loadExtensions } from "./loader.js";
import type { ExtensionRunner, LoadedExtension } from "./runner.js";

/** What extensions may do to the session they run in (pi's action set, minus the terminal UI). */
export interface ExtensionActions {
  /** Sends a user message: a new run when idle, else steering (or a follow-up with `deliverAs: "followUp"`). */
  sendUserMessage(content: string, options?: { deliverAs?: "steer" | "followUp" }): void;
  appendEntry(customType: string, data?: unknown): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  setLabel(entryId: string, label: string | undefined): void;
  getActiveTools(): string[];
  getAllTools(): AgentTool[];
  setActiveTools(names: string[]): void;
  refreshTools(): void;
  setModel(model: Model): Promise<boolean>;
  getThinkingLevel(): ThinkingLevel;
  setThinkingLevel(level: ThinkingLevel): void;
}

export interface ExtensionRuntimeState {
  /** Values of extension-defined CLI flags. */
  flagValues: Map<string, boolean | string>;
  /** Throws when the runtime was invalidated (its session was replaced). */
  assertActive(): void;
  /** Marks the runtime stale: every later action throws `message`. */
  invalidate(message?: string): void;
}

export interface ExtensionRuntime extends ExtensionRuntimeState, ExtensionActions {}

/** A loaded extension (pi's name), with the path it was loaded from. */
export type Extension = LoadedExtension & { resolvedPath: string };

export interface LoadExtensionsResult {
  extensions: Extension[];
  errors: Array<{ path: string; error: string }>;
  /** Shared by all extensions; actions throw until `bindExtensionRuntime`. */
  runtime: ExtensionRuntime;
  /** Tiller's dispatcher over the loaded extensions (hand it to the session that runs them). */
  runner: ExtensionRunner;
}

const NOT_BOUND = "Extension runtime not initialized. Action methods cannot be called during extension loading.";
const STALE =
  "This extension context is stale: its session was replaced or reloaded. Use the context passed to the new session.";

/** A runtime whose actions throw until bound to a session. */
export function createExtensionRuntime(): ExtensionRuntime {
  let stale: string | undefined;
  const fail = (): never => {
    throw new Error(stale ?? NOT_BOUND);
  };
  return {
    flagValues: new Map(),
    assertActive() {
      if (stale) throw new Error(stale);
    },
    invalidate(message) {
      stale ??= message ?? STALE;
    },
    sendUserMessage: fail,
    appendEntry: fail,
    setSessionName: fail,
    getSessionName: fail,
    setLabel: fail,
    getActiveTools: fail,
    getAllTools: fail,
    setActiveTools: fail,
    // Registering tools while loading is allowed; there is nothing to refresh before binding.
    refreshTools: () => {},
    setModel: () => Promise.reject(new Error(NOT_BOUND)),
    getThinkingLevel: fail,
    setThinkingLevel: fail,
  };
}

/**
 * Binds `runtime`'s actions to `session`. `allTools` is every tool the session may enable (default: the tools it
 * has now); `setActiveTools` picks among them by name.
 */
export function bindExtensionRuntime(runtime: ExtensionRuntime, session: AgentSession, allTools?: AgentTool[]): void {
  const all = allTools ?? [...session.agent.state.tools];
  const active = () => {
    runtime.assertActive();
    return session;
  };
  runtime.sendUserMessage = (content, options) => {
    const s = active();
    if (!s.isStreaming) void s.prompt(content).catch(() => {});
    else if (options?.deliverAs === "followUp") s.followUp(content);
    else s.steer(content);
  };
  runtime.appendEntry = (customType, data) => {
    active().sessionManager.appendCustomEntry(customType, data);
  };
  runtime.setSessionName = (name) => active().setSessionName(name);
  runtime.getSessionName = () => active().sessionManager.getSessionName();
  runtime.setLabel = (entryId, label) => {
    active().sessionManager.appendLabelChange(entryId, label);
  };
  runtime.getActiveTools = () => active().agent.state.tools.map((t) => t.name);
  runtime.getAllTools = () => {
    active();
    return [...all];
  };
  runtime.setActiveTools = (names) => {
    const wanted = new Set(names);
    active().setTools(all.filter((t) => wanted.has(t.name)));
  };
  runtime.setModel = async (model) => {
    active().setModel(model);
    return true;
  };
  runtime.getThinkingLevel = () => active().thinkingLevel;
  runtime.setThinkingLevel = (level) => {
    active().setThinkingLevel(level);
  };
}

/**
 * Loads the extensions in `configuredPaths` (files or folders, relative to `cwd`) after those discovered in
 * `<agentDir>/extensions` and `<cwd>/.tiller/extensions`. Never throws: failures are in `errors`.
 */
export async function discoverAndLoadExtensions(
  configuredPaths: string[],
  cwd: string,
  agentDir: string = getTillerHome(),
  // Accepted for pi's signature; Tiller's extension API has no inter-extension bus to hand it to yet.
  _eventBus?: EventBus,
): Promise<LoadExtensionsResult> {
  const runner = await loadExtensions({ cwd, tillerHome: agentDir, paths: configuredPaths });
  return {
    extensions: runner.extensions.map((e) => ({ ...e, resolvedPath: e.path })),
    errors: runner.loadErrors.map((e) => ({ path: e.extension, error: e.message })),
    runtime: createExtensionRuntime(),
    runner,
  };
}
