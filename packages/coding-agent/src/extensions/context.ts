/**
 * What extension handlers, tools and commands receive as `ctx` (pi's `ExtensionContext` and
 * `ExtensionCommandContext`), built from the session they run in. Members that read state (`model`, `signal`)
 * are getters, so a context kept by an extension stays current.
 */
import type { Model } from "@tiller/ai";
import type { AgentSession, ReplacedSessionCommandContext } from "../agent-session/agent-session.js";
import type { ContextUsage } from "../agent-session/events.js";
import type { CompactionResult } from "../compaction/compact.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { SessionManager } from "../session/session-manager.js";
import type { ReadonlySessionManager } from "../session/types.js";
import type { ExtensionError } from "./types.js";
import type { ExtensionUIContext } from "./ui-context.js";

/** What a host hands `AgentSession.bindExtensions` (pi's ExtensionBindings); each part is optional. */
export interface ExtensionBindings {
  uiContext?: ExtensionUIContext;
  commandContextActions?: ExtensionCommandContextActions;
  /** What `ctx.shutdown()` does. */
  shutdownHandler?: () => void;
  onError?: (error: ExtensionError) => void;
}

/** Options of `ctx.compact`: it starts the compaction and reports the outcome through the callbacks. */
export interface CompactOptions {
  customInstructions?: string;
  onComplete?: (result: CompactionResult) => void;
  onError?: (error: Error) => void;
}

export interface ExtensionContext {
  ui: ExtensionUIContext;
  /** False in print and RPC modes and in the SDK (dialogs are then dismissed at once). */
  hasUI: boolean;
  cwd: string;
  sessionManager: ReadonlySessionManager;
  modelRegistry: ModelRegistry;
  // biome-ignore lint/suspicious/noExplicitAny: any API's model (pi's `Model<any>`).
  model: Model<any> | undefined;
  isIdle(): boolean;
  /** The running turn's abort signal; undefined while idle. */
  signal: AbortSignal | undefined;
  abort(): void;
  /** Whether steering or follow-up messages are queued. */
  hasPendingMessages(): boolean;
  /** Asks the host to end (the CLI finishes the current run and exits); a no-op in the SDK unless wired. */
  shutdown(): void;
  getContextUsage(): ContextUsage | undefined;
  /** Starts a compaction without waiting for it. */
  compact(options?: CompactOptions): void;
  getSystemPrompt(): string;
}

/** Session controls only a user-invoked `/command` gets (pi's `ExtensionCommandContextActions`). */
export interface ExtensionCommandContextActions {
  waitForIdle: () => Promise<void>;
  newSession: (options?: {
    parentSession?: string;
    setup?: (sessionManager: SessionManager) => Promise<void>;
    withSession?: (ctx: ReplacedSessionCommandContext) => Promise<void>;
  }) => Promise<{ cancelled: boolean }>;
  fork: (
    entryId: string,
    options?: { position?: "before" | "at"; withSession?: (ctx: ReplacedSessionCommandContext) => Promise<void> },
  ) => Promise<{ cancelled: boolean }>;
  navigateTree: (
    targetId: string,
    options?: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string },
  ) => Promise<{ cancelled: boolean }>;
  switchSession: (
    sessionPath: string,
    options?: { withSession?: (ctx: ReplacedSessionCommandContext) => Promise<void> },
  ) => Promise<{ cancelled: boolean }>;
  reload: () => Promise<void>;
}

export interface ExtensionCommandContext extends ExtensionContext, ExtensionCommandContextActions {}

/** pi's `ExtensionContextActions`: the session reads and controls behind an ExtensionContext. */
export interface ExtensionContextActions {
  // biome-ignore lint/suspicious/noExplicitAny: any API's model.
  getModel: () => Model<any> | undefined;
  isIdle: () => boolean;
  getSignal: () => AbortSignal | undefined;
  abort: () => void;
  hasPendingMessages: () => boolean;
  shutdown: () => void;
  getContextUsage: () => ContextUsage | undefined;
  compact: (options?: CompactOptions) => void;
  getSystemPrompt: () => string;
}

/** The context actions of `session` (`shutdown` as given: only the host knows how to end). */
export function sessionContextActions(session: AgentSession, shutdown: () => void = () => {}): ExtensionContextActions {
  return {
    getModel: () => session.model,
    isIdle: () => !session.isStreaming,
    getSignal: () => session.agent.signal,
    abort: () => {
      session.abort().catch(() => {});
    },
    hasPendingMessages: () => session.pendingMessageCount > 0,
    shutdown,
    getContextUsage: () => session.getContextUsage(),
    compact: (options) => {
      session.compact(options?.customInstructions).then(
        (result) => options?.onComplete?.(result),
        (err: unknown) => options?.onError?.(err instanceof Error ? err : new Error(String(err))),
      );
    },
    getSystemPrompt: () => session.systemPrompt,
  };
}

const NEEDS_RUNTIME = "needs a host that can replace the session (an AgentSessionRuntime)";

/**
 * Command actions of a bare session: waiting, tree moves and `reload` act on it; replacing it (`newSession`,
 * `fork`, `switchSession`) needs an AgentSessionRuntime, which binds its own actions, so here they reject.
 */
export function sessionCommandActions(session: AgentSession): ExtensionCommandContextActions {
  const refuse = (what: string) => Promise.reject(new Error(`${what} ${NEEDS_RUNTIME}`));
  return {
    waitForIdle: () => session.agent.waitForIdle(),
    newSession: () => refuse("newSession"),
    fork: () => refuse("fork"),
    navigateTree: async (targetId, options) => ({
      cancelled: (await session.navigateTree(targetId, options ?? {})).cancelled,
    }),
    switchSession: () => refuse("switchSession"),
    reload: () => session.reload(),
  };
}

/** A context over `actions`, reading the UI through `ui()` (the host may swap it). */
export function createContextFrom(parts: {
  cwd: string;
  /** A function: read each time (the host may attach a UI later). */
  hasUI: boolean | (() => boolean);
  ui: () => ExtensionUIContext;
  sessionManager: ReadonlySessionManager;
  modelRegistry: ModelRegistry;
  actions: ExtensionContextActions;
}): ExtensionContext {
  const { actions } = parts;
  return {
    get ui() {
      return parts.ui();
    },
    get hasUI() {
      return typeof parts.hasUI === "function" ? parts.hasUI() : parts.hasUI;
    },
    cwd: parts.cwd,
    sessionManager: parts.sessionManager,
    modelRegistry: parts.modelRegistry,
    get model() {
      return actions.getModel();
    },
    get signal() {
      return actions.getSignal();
    },
    isIdle: () => actions.isIdle(),
    abort: () => actions.abort(),
    hasPendingMessages: () => actions.hasPendingMessages(),
    shutdown: () => actions.shutdown(),
    getContextUsage: () => actions.getContextUsage(),
    compact: (options) => actions.compact(options),
    getSystemPrompt: () => actions.getSystemPrompt(),
  };
}

/** `context` plus the command actions; its getters still read the live state. */
export function withCommandActions(
  context: ExtensionContext,
  actions: ExtensionCommandContextActions,
): ExtensionCommandContext {
  return Object.assign(Object.create(context) as ExtensionContext, actions) as ExtensionCommandContext;
}

/** The context of `session` (pi's context over the session's actions). */
export function createSessionContext(
  session: AgentSession,
  options: { cwd: string; hasUI: boolean; ui: () => ExtensionUIContext; shutdown?: () => void },
): ExtensionContext {
  return createContextFrom({
    cwd: options.cwd,
    hasUI: options.hasUI,
    ui: options.ui,
    sessionManager: session.sessionManager,
    modelRegistry: session.modelRegistry,
    actions: sessionContextActions(session, options.shutdown),
  });
}

const UNBOUND = "Extension context not available yet: the extension's runner is not bound to a session.";
const unbound = (): never => {
  throw new Error(UNBOUND);
};
/** Command actions before a host bound any: waiting is a no-op, the rest rejects. */
export const NO_COMMAND_ACTIONS: ExtensionCommandContextActions = {
  waitForIdle: async () => {},
  newSession: () => Promise.reject(new Error(UNBOUND)),
  fork: () => Promise.reject(new Error(UNBOUND)),
  navigateTree: () => Promise.reject(new Error(UNBOUND)),
  switchSession: () => Promise.reject(new Error(UNBOUND)),
  reload: () => Promise.reject(new Error(UNBOUND)),
};

/** The context before the host bound one: idle, no UI; session-bound members throw. */
export function unboundContext(ui: () => ExtensionUIContext): ExtensionContext {
  return {
    get ui() {
      return ui();
    },
    hasUI: false,
    cwd: process.cwd(),
    get sessionManager() {
      return unbound();
    },
    get modelRegistry() {
      return unbound();
    },
    model: undefined,
    signal: undefined,
    isIdle: () => true,
    abort: () => {},
    hasPendingMessages: () => false,
    shutdown: () => {},
    getContextUsage: () => undefined,
    compact: unbound,
    getSystemPrompt: unbound,
  };
}
