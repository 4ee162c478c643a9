/**
 * The shared `ExtensionRuntime` of pi: the actions every extension's API calls, which act on a session once
 * `bindExtensionRuntime` bound it and throw before that (an extension must not act while it is still loading).
 * Providers an extension registers while loading are queued and registered at binding.
 */
import type { ThinkingLevel } from "@tiller/agent";
import type { ImageContent, Model, TextContent } from "@tiller/ai";
import type { AgentSession } from "../agent-session/agent-session.js";
import type { ToolInfo } from "../agent-session/tool-registry.js";
import type { ExtensionProviderConfig } from "../models/models-json.js";
import type { SlashCommandInfo } from "../runtime/rpc-client.js";
import type { CustomMessage } from "../session/messages.js";
import { errorOf, type LoadedExtension } from "./instantiate.js";
import type { ExtensionRunner } from "./runner.js";

/** A custom message as an extension sends it (pi's). */
export type ExtensionMessage<T = unknown> = Pick<CustomMessage<T>, "customType" | "content" | "display" | "details">;

/** What extensions may do to the session they run in (pi's action set, minus the terminal UI). */
export interface ExtensionActions {
  /** A custom message into the transcript (`triggerTurn` starts a run when idle; `deliverAs` while one runs). */
  sendMessage<T = unknown>(
    message: ExtensionMessage<T>,
    options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
  ): void;
  /** Sends a user message: a new run when idle, else steering (or a follow-up with `deliverAs: "followUp"`). */
  sendUserMessage(
    content: string | (TextContent | ImageContent)[],
    options?: { deliverAs?: "steer" | "followUp" },
  ): void;
  appendEntry<T = unknown>(customType: string, data?: T): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  setLabel(entryId: string, label: string | undefined): void;
  getActiveTools(): string[];
  /** Every tool the session knows, active or not (pi's ToolInfo: name, description, parameters, source). */
  getAllTools(): ToolInfo[];
  setActiveTools(names: string[]): void;
  refreshTools(): void;
  /** The `/commands` the user can run: extension commands, prompt templates and skills. */
  getCommands(): SlashCommandInfo[];
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
  /** Registered at binding (providers an extension adds while loading). */
  pendingProviderRegistrations: Array<{ name: string; config: ExtensionProviderConfig; extensionPath: string }>;
  /** Adds a provider to the session's model registry (queued until bound). */
  registerProvider(name: string, config: ExtensionProviderConfig, extensionPath?: string): void;
  unregisterProvider(name: string, extensionPath?: string): void;
}

export interface ExtensionRuntime extends ExtensionRuntimeState, ExtensionActions {}

/** A loaded extension (pi's name). */
export type Extension = LoadedExtension;

export interface LoadExtensionsResult {
  extensions: Extension[];
  errors: Array<{ path: string; error: string }>;
  /** Shared by all extensions; actions throw until `bindExtensionRuntime`. */
  runtime: ExtensionRuntime;
  /**
   * Tiller's dispatcher over the loaded extensions (Tiller's loaders add it). A result without one (a pi program's
   * own ResourceLoader) gets one on first use, `extensionRunnerOf`.
   */
  runner?: ExtensionRunner;
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
  const runtime: ExtensionRuntime = {
    flagValues: new Map(),
    pendingProviderRegistrations: [],
    assertActive() {
      if (stale) throw new Error(stale);
    },
    invalidate(message) {
      stale ??= message ?? STALE;
    },
    registerProvider(name, config, extensionPath = "<unknown>") {
      runtime.pendingProviderRegistrations.push({ name, config, extensionPath });
    },
    unregisterProvider(name) {
      runtime.pendingProviderRegistrations = runtime.pendingProviderRegistrations.filter((p) => p.name !== name);
    },
    sendMessage: fail,
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
    getCommands: fail,
    setModel: () => Promise.reject(new Error(NOT_BOUND)),
    getThinkingLevel: fail,
    setThinkingLevel: fail,
  };
  return runtime;
}

/**
 * Binds `runtime`'s actions to `session` and registers the providers queued while loading. Tool actions pick
 * among every tool the session knows (`getAllTools`); `setActiveTools` ignores unknown names.
 */
export function bindExtensionRuntime(runtime: ExtensionRuntime, session: AgentSession): void {
  const active = () => {
    runtime.assertActive();
    return session;
  };
  const quiet = (p: Promise<unknown>) => {
    p.catch(() => {});
  };
  runtime.sendMessage = (message, options) => quiet(active().sendCustomMessage(message, options));
  runtime.sendUserMessage = (content, options) => quiet(active().sendUserMessage(content, options));
  runtime.appendEntry = (customType, data) => {
    active().sessionManager.appendCustomEntry(customType, data);
  };
  runtime.setSessionName = (name) => active().setSessionName(name);
  runtime.getSessionName = () => active().sessionManager.getSessionName();
  runtime.setLabel = (entryId, label) => {
    active().sessionManager.appendLabelChange(entryId, label);
  };
  runtime.getActiveTools = () => active().getActiveToolNames();
  runtime.getAllTools = () => active().getAllTools();
  runtime.setActiveTools = (names) => active().setActiveToolsByName(names);
  runtime.getCommands = () => commandsOf(active());
  runtime.setModel = async (model) => {
    await active().setModel(model);
    return true;
  };
  runtime.getThinkingLevel = () => active().thinkingLevel;
  runtime.setThinkingLevel = (level) => {
    active().setThinkingLevel(level);
  };
  runtime.registerProvider = (name, config) => active().modelRegistry.registerProvider(name, config);
  runtime.unregisterProvider = (name) => active().modelRegistry.unregisterProvider(name);
  const queued = runtime.pendingProviderRegistrations.splice(0);
  for (const p of queued) {
    try {
      session.modelRegistry.registerProvider(p.name, p.config);
    } catch (err) {
      // A bad provider config (streamSimple without api) is the extension's error, not the session's end.
      session.extensionRunner.emitError(errorOf(p.extensionPath, "register_provider", err));
    }
  }
}

/** The `/commands` of `session`: its extensions' commands, prompt templates and skills (pi's getCommands). */
function commandsOf(session: AgentSession): SlashCommandInfo[] {
  const skills = session.resourceLoader?.getSkills().skills ?? [];
  return [
    ...session.extensionRunner.getRegisteredCommands().map((c) => ({
      name: c.invocationName,
      ...(c.description !== undefined ? { description: c.description } : {}),
      source: "extension" as const,
      sourceInfo: c.sourceInfo,
    })),
    ...session.promptTemplates.map((t) => ({
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      source: "prompt" as const,
      sourceInfo: t.sourceInfo,
    })),
    ...skills.map((k) => ({
      name: `skill:${k.name}`,
      description: k.description,
      source: "skill" as const,
      sourceInfo: k.sourceInfo,
    })),
  ];
}
