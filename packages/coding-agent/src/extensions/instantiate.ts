/**
 * Running one extension factory against a fresh API object: what it registered becomes a `LoadedExtension`
 * (pi's `Extension`). Registered tools are kept as pi's ToolDefinitions with their source; the runner holding the
 * extension turns them into AgentTools called with its context.
 */
import type { KeyId } from "@mariozechner/pi-tui";
import type { MessageRenderer } from "../cli/tui/pi/types.js";
import { createEventBus, type EventBus } from "../event-bus.js";
import { execCommand } from "./exec.js";
import { createExtensionRuntime, type ExtensionRuntime } from "./extension-runtime.js";
import { localExtensionSource, type SourceInfo } from "./source-info.js";
import type { RegisteredTool, ToolDefinition } from "./tool-definition.js";
import type {
  ExtensionAPI,
  ExtensionError,
  ExtensionFactory,
  ExtensionFlag,
  ExtensionShortcut,
  RegisteredCommand,
} from "./types.js";

/** A stored event handler, as pi types it (the runner calls it with the event and the context). */
export type ExtensionHandlerFn = (...args: unknown[]) => Promise<unknown>;

/** One extension after its factory ran: what it registered (pi's `Extension`). */
export interface LoadedExtension {
  path: string;
  /** The file it was loaded from (pi's; for a factory, its name). */
  resolvedPath: string;
  sourceInfo: SourceInfo;
  /** Its event handlers by event name (typed as pi's; each is the event's handler, it may also answer synchronously). */
  handlers: Map<string, ExtensionHandlerFn[]>;
  /** The registered tools by name (the later registration of a name wins), with their source. */
  tools: Map<string, RegisteredTool>;
  /** Its `/commands` by name, each with its name and source (pi's registered commands: handlers return a promise). */
  commands: Map<string, RegisteredCommand>;
  flags: Map<string, ExtensionFlag>;
  /** Keys it bound in the interactive UI, by key id as registered. */
  shortcuts: Map<KeyId, ExtensionShortcut>;
  /** Its renderers of custom messages, by `customType`. */
  messageRenderers: Map<string, MessageRenderer>;
}

/**
 * Runs a factory against a fresh API object. Registrations are kept only if the factory finishes without
 * throwing; a throwing factory yields an error and no half-registered extension.
 */
export async function instantiateExtension(
  path: string,
  factory: ExtensionFactory,
  cwd: string,
  shared: { runtime: ExtensionRuntime; events: EventBus } = {
    runtime: createExtensionRuntime(),
    events: createEventBus(),
  },
): Promise<{ extension?: LoadedExtension; error?: ExtensionError }> {
  const { runtime, events } = shared;
  const sourceInfo = localExtensionSource(path);
  const ext: LoadedExtension = {
    path,
    resolvedPath: path,
    sourceInfo,
    handlers: new Map(),
    tools: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(),
    messageRenderers: new Map(),
  };
  const api: ExtensionAPI = {
    cwd,
    on(event, handler) {
      const list = ext.handlers.get(event) ?? [];
      list.push(handler as unknown as ExtensionHandlerFn);
      ext.handlers.set(event, list);
    },
    registerTool(tool) {
      if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function") {
        throw new Error("registerTool needs an object with a name and an execute function");
      }
      const definition = tool as unknown as ToolDefinition;
      // A re-registered name replaces the earlier tool and moves last, as a later registration.
      ext.tools.delete(definition.name);
      ext.tools.set(definition.name, { definition, sourceInfo });
    },
    registerCommand(name, command) {
      const clean = name.replace(/^\//, "");
      if (!/^[A-Za-z0-9_.:-]+$/.test(clean)) throw new Error(`invalid command name "${name}"`);
      if (!command || typeof command.handler !== "function") throw new Error(`command "${name}" has no handler`);
      const run = command.handler;
      ext.commands.set(clean, {
        ...command,
        name: clean,
        sourceInfo,
        // A handler may answer synchronously; the stored one always returns a promise, as pi's.
        handler: async (args, ctx) => {
          await run(args, ctx);
        },
      });
    },
    registerShortcut(shortcut, options) {
      if (typeof shortcut !== "string" || !shortcut.trim()) throw new Error("registerShortcut needs a key id");
      if (typeof options?.handler !== "function") throw new Error(`shortcut "${shortcut}" has no handler`);
      ext.shortcuts.set(shortcut, { ...options, shortcut, extensionPath: path });
    },
    registerMessageRenderer(customType, renderer) {
      if (typeof renderer !== "function") throw new Error(`renderer of "${customType}" is not a function`);
      ext.messageRenderers.set(customType, renderer as MessageRenderer);
    },
    exec: (command, args, options) => execCommand(command, args, options?.cwd ?? cwd, options),
    registerFlag(name, options) {
      if (options?.type !== "boolean" && options?.type !== "string")
        throw new Error(`flag "${name}" needs type "boolean" or "string"`);
      ext.flags.set(name, { name, ...options, extensionPath: path });
      if (options.default !== undefined && !runtime.flagValues.has(name)) runtime.flagValues.set(name, options.default);
    },
    getFlag(name) {
      // Only the extension's own flags, as pi: another extension's flag is not part of this one's contract.
      if (!ext.flags.has(name)) return undefined;
      return runtime.flagValues.get(name);
    },
    // The session actions are looked up at call time: binding replaces them on the shared runtime.
    sendMessage: (message, options) => runtime.sendMessage(message, options),
    sendUserMessage: (content, options) => runtime.sendUserMessage(content, options),
    appendEntry: (customType, data) => runtime.appendEntry(customType, data),
    setSessionName: (name) => runtime.setSessionName(name),
    getSessionName: () => runtime.getSessionName(),
    setLabel: (entryId, label) => runtime.setLabel(entryId, label),
    getActiveTools: () => runtime.getActiveTools(),
    getAllTools: () => runtime.getAllTools(),
    setActiveTools: (names) => runtime.setActiveTools(names),
    getCommands: () => runtime.getCommands(),
    setModel: (model) => runtime.setModel(model),
    getThinkingLevel: () => runtime.getThinkingLevel(),
    setThinkingLevel: (level) => runtime.setThinkingLevel(level),
    registerProvider: (name, config) => runtime.registerProvider(name, config, path),
    unregisterProvider: (name) => runtime.unregisterProvider(name, path),
    events,
  };
  try {
    await factory(api);
    return { extension: ext };
  } catch (err) {
    return { error: errorOf(path, "load", err) };
  }
}

/** An ExtensionError for `err` thrown by `extensionPath` during `event`. */
export function errorOf(extensionPath: string, event: string, err: unknown): ExtensionError {
  const stack = err instanceof Error ? err.stack : undefined;
  return { extensionPath, event, error: errorText(err), ...(stack ? { stack } : {}) };
}

/** The message of a thrown value (an Error's message, else its string form). */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
