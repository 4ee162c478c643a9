import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentEvent,
  AgentMessage,
  AgentTool,
  ApprovalRequest,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "@tiller/agent";
import type { ImageContent } from "@tiller/ai";
import {
  type ExtensionCommandContext,
  type ExtensionCommandContextActions,
  type ExtensionContext,
  NO_COMMAND_ACTIONS,
  unboundContext,
  withCommandActions,
} from "./context.js";
import { createExtensionRuntime, type ExtensionRuntime } from "./extension-runtime.js";
import { errorText, type LoadedExtension } from "./instantiate.js";
import { localExtensionSource } from "./source-info.js";
import type { RegisteredTool, ToolDefinition } from "./tool-definition.js";
import type {
  ExtensionCommand,
  ExtensionError,
  ExtensionEventMap,
  ExtensionEventName,
  ExtensionFlag,
  ExtensionResult,
  HandlerOf,
  InputSource,
  ResolvedCommand,
} from "./types.js";
import { createNoUIContext, type ExtensionUIContext } from "./ui-context.js";

/** The cancellable events: `emit` returns their handlers' result. */
type BeforeEventName =
  | "session_before_switch"
  | "session_before_fork"
  | "session_before_compact"
  | "session_before_tree";
const BEFORE_EVENTS = new Set<string>([
  "session_before_switch",
  "session_before_fork",
  "session_before_compact",
  "session_before_tree",
]);

export { errorText, instantiateExtension, type LoadedExtension } from "./instantiate.js";

/**
 * Dispatches events to every loaded extension in load order. A handler that throws or rejects is reported through
 * `onError` and treated as if it returned nothing, except `tool_call`, where a failing guard blocks the call
 * (fail closed: a permission check that crashes must not let the tool run).
 */
export class ExtensionRunner {
  readonly extensions: readonly LoadedExtension[];
  private uiContext: ExtensionUIContext = createNoUIContext();
  private context: ExtensionContext = unboundContext(() => this.uiContext);
  private commandActions: ExtensionCommandContextActions = NO_COMMAND_ACTIONS;
  private errorListeners: Array<(error: ExtensionError) => void> = [];
  /** Errors seen before any listener was attached (e.g. load errors), replayed to the first listener. */
  private pendingErrors: ExtensionError[] = [];

  /** Errors met while loading (also delivered to the first `onError` listener). */
  readonly loadErrors: readonly ExtensionError[];

  /** The actions the extensions' APIs call (shared by the extensions of one load). */
  readonly runtime: ExtensionRuntime;

  constructor(
    extensions: readonly LoadedExtension[],
    loadErrors: readonly ExtensionError[] = [],
    runtime: ExtensionRuntime = createExtensionRuntime(),
  ) {
    this.extensions = extensions;
    this.runtime = runtime;
    this.loadErrors = [...loadErrors];
    this.pendingErrors.push(...loadErrors);
    for (const e of extensions) e.context = () => this.context;
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
    for (const e of this.extensions) {
      const sourceInfo = localExtensionSource(e.path);
      for (const definition of e.definitions.values()) byName.set(definition.name, { definition, sourceInfo });
    }
    return [...byName.values()];
  }

  getToolDefinition(name: string): ToolDefinition | undefined {
    return this.getAllRegisteredTools().find((t) => t.definition.name === name)?.definition;
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
    for (const e of this.extensions) for (const t of e.tools) byName.set(t.name, t);
    return [...byName.values()];
  }

  getCommands(): Map<string, ExtensionCommand & { extension: string }> {
    const out = new Map<string, ExtensionCommand & { extension: string }>();
    for (const e of this.extensions) for (const [n, c] of e.commands) out.set(n, { ...c, extension: e.path });
    return out;
  }

  /** Every `/command`, as `getCommands` resolves clashes (the later extension's), with its source. */
  getRegisteredCommands(): ResolvedCommand[] {
    return [...this.getCommands()].map(([name, { extension, ...command }]) => ({
      ...command,
      name,
      invocationName: name,
      sourceInfo: localExtensionSource(extension),
    }));
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
      this.report({ extension: cmd.extension, phase: `command:/${m[1]}`, message: errorText(err) });
    }
    return true;
  }

  /**
   * Dispatch of agent and session events. Never throws. For the cancellable `session_before_*` events it returns
   * the last handler result, or the first that cancels (later handlers are then not called), as pi's runner.
   */
  async emit<K extends ExtensionEventName>(
    event: ExtensionEventMap[K],
  ): Promise<K extends BeforeEventName ? ExtensionResult<K> | undefined : undefined> {
    const cancellable = BEFORE_EVENTS.has(event.type);
    let result: ExtensionResult<K> | undefined;
    for (const [ext, handler] of this.handlersOf(event.type as K)) {
      const r = await this.call(ext, event.type as K, handler, event);
      if (!cancellable || !r) continue;
      result = r;
      if ((r as { cancel?: boolean }).cancel) break;
    }
    return result as K extends BeforeEventName ? ExtensionResult<K> | undefined : undefined;
  }

  /** `user_bash`: the first handler that answers (other operations, or the result itself) decides. */
  async emitUserBash(event: ExtensionEventMap["user_bash"]): Promise<ExtensionResult<"user_bash"> | undefined> {
    for (const [ext, handler] of this.handlersOf("user_bash")) {
      const r = await this.call(ext, "user_bash", handler, event);
      if (r) return r;
    }
    return undefined;
  }

  /** `before_provider_request`: the request body, each handler's non-undefined return replacing it. */
  async emitBeforeProviderRequest(payload: unknown): Promise<unknown> {
    let current = payload;
    for (const [ext, handler] of this.handlersOf("before_provider_request")) {
      const r = await this.call(ext, "before_provider_request", handler, {
        type: "before_provider_request",
        payload: current,
      });
      if (r !== undefined) current = r;
    }
    return current;
  }

  /** Forwards an agent event to observers; cheap when nobody listens. */
  async emitAgentEvent(event: AgentEvent): Promise<void> {
    if (!this.hasHandlers(event.type)) return;
    await this.emit(event as ExtensionEventMap[typeof event.type]);
  }

  /**
   * `input` (pi's `emitInput`): handlers see the text and images as transformed so far; the first `handled` ends
   * it. Returns `transform` when anything changed, else `continue`.
   */
  async emitInput(
    text: string,
    images: ImageContent[] | undefined,
    source: InputSource,
  ): Promise<ExtensionResult<"input">> {
    let current = text;
    let currentImages = images;
    for (const [ext, handler] of this.handlersOf("input")) {
      const r = await this.call(ext, "input", handler, {
        type: "input",
        text: current,
        ...(currentImages ? { images: currentImages } : {}),
        source,
      });
      if (r?.action === "handled") return r;
      if (r?.action === "transform" && typeof r.text === "string") {
        current = r.text;
        currentImages = r.images ?? currentImages;
      }
    }
    return current !== text || currentImages !== images
      ? { action: "transform", text: current, ...(currentImages ? { images: currentImages } : {}) }
      : { action: "continue" };
  }

  /** `input` for text alone: the (maybe transformed) text, or undefined when an extension handled it. */
  async input(text: string, source: InputSource = "interactive"): Promise<string | undefined> {
    const r = await this.emitInput(text, undefined, source);
    if (r.action === "handled") return undefined;
    return r.action === "transform" ? r.text : text;
  }

  /** `before_agent_start`: the system prompt for this run; later extensions see earlier replacements. */
  async beforeAgentStart(prompt: string, systemPrompt: string): Promise<string> {
    let current = systemPrompt;
    for (const [ext, handler] of this.handlersOf("before_agent_start")) {
      const r = await this.call(ext, "before_agent_start", handler, {
        type: "before_agent_start",
        prompt,
        systemPrompt: current,
      });
      if (r && typeof r.systemPrompt === "string") current = r.systemPrompt;
    }
    return current;
  }

  /** `context`: the messages to send for this model call; chained through handlers. */
  async transformContext(messages: AgentMessage[]): Promise<AgentMessage[]> {
    let current = messages;
    for (const [ext, handler] of this.handlersOf("context")) {
      const r = await this.call(ext, "context", handler, { type: "context", messages: current });
      if (r && Array.isArray(r.messages)) current = r.messages;
    }
    return current;
  }

  /** `tool_call`: block (first blocker wins) or rewrite the arguments (chained). */
  async toolCall(
    toolCallId: string,
    toolName: string,
    input: Record<string, unknown>,
  ): Promise<
    | { block: true; reason: string }
    | { block: false; input: Record<string, unknown>; changed: boolean; requireApproval?: ApprovalRequest }
  > {
    let current = input;
    let changed = false;
    let requireApproval: ApprovalRequest | undefined;
    for (const [ext, handler] of this.handlersOf("tool_call")) {
      let r: ExtensionResult<"tool_call"> | undefined;
      try {
        r = (await handler({ type: "tool_call", toolCallId, toolName, input: current }, this.context)) as typeof r;
      } catch (err) {
        const message = errorText(err);
        this.report({ extension: ext.path, phase: "tool_call", message });
        return { block: true, reason: `Blocked: extension ${ext.path} failed while checking this call: ${message}` };
      }
      if (!r) continue;
      if (r.block) return { block: true, reason: r.reason ?? `Blocked by extension ${ext.path}` };
      if (r.input && typeof r.input === "object") {
        current = r.input;
        changed = true;
      }
      requireApproval ??= r.requireApproval;
    }
    return { block: false, input: current, changed, ...(requireApproval ? { requireApproval } : {}) };
  }

  /** `tool_result`: each handler may replace content, details or isError; later handlers see the result so far. */
  async toolResult(event: Omit<ExtensionEventMap["tool_result"], "type">): Promise<{
    content: ExtensionEventMap["tool_result"]["content"];
    details: unknown;
    isError: boolean;
    changed: boolean;
  }> {
    const cur = { content: event.content, details: event.details, isError: event.isError, changed: false };
    for (const [ext, handler] of this.handlersOf("tool_result")) {
      const r = await this.call(ext, "tool_result", handler, { type: "tool_result", ...event, ...cur });
      if (!r) continue;
      if (Array.isArray(r.content)) {
        cur.content = r.content;
        cur.changed = true;
      }
      if (r.details !== undefined) {
        cur.details = r.details;
        cur.changed = true;
      }
      if (typeof r.isError === "boolean") {
        cur.isError = r.isError;
        cur.changed = true;
      }
    }
    return cur;
  }

  /** Hooks in the shape of the agent loop's config (`beforeToolCall`, `afterToolCall`, `transformContext`). */
  agentHooks(): {
    beforeToolCall: (ctx: BeforeToolCallContext) => Promise<BeforeToolCallResult | undefined>;
    afterToolCall: (ctx: AfterToolCallContext) => Promise<AfterToolCallResult | undefined>;
    transformContext: (messages: AgentMessage[]) => Promise<AgentMessage[]>;
  } {
    return {
      beforeToolCall: async (ctx) => {
        if (!this.hasHandlers("tool_call")) return undefined;
        const r = await this.toolCall(ctx.toolCall.id, ctx.toolCall.name, asRecord(ctx.args));
        if (r.block) return { block: true, reason: r.reason };
        const approval = r.requireApproval ? { requireApproval: r.requireApproval } : {};
        return r.changed || r.requireApproval ? { ...(r.changed ? { args: r.input } : {}), ...approval } : undefined;
      },
      afterToolCall: async (ctx) => {
        if (!this.hasHandlers("tool_result")) return undefined;
        const r = await this.toolResult({
          toolCallId: ctx.toolCall.id,
          toolName: ctx.toolCall.name,
          input: asRecord(ctx.args),
          content: ctx.result.content,
          details: ctx.result.details,
          isError: ctx.isError,
        });
        return r.changed ? { content: r.content, details: r.details, isError: r.isError } : undefined;
      },
      transformContext: (messages) =>
        this.hasHandlers("context") ? this.transformContext(messages) : Promise.resolve(messages),
    };
  }

  private *handlersOf<K extends ExtensionEventName>(event: K): Generator<[LoadedExtension, HandlerOf<K>]> {
    for (const ext of this.extensions) {
      for (const h of ext.handlers.get(event) ?? []) yield [ext, h as unknown as HandlerOf<K>];
    }
  }

  private async each<K extends ExtensionEventName>(
    event: K,
    payload: ExtensionEventMap[K],
    onResult: (r: ExtensionResult<K> | undefined) => void,
  ): Promise<void> {
    for (const [ext, handler] of this.handlersOf(event)) onResult(await this.call(ext, event, handler, payload));
  }

  private async call<K extends ExtensionEventName>(
    ext: LoadedExtension,
    event: K,
    handler: HandlerOf<K>,
    payload: ExtensionEventMap[K],
  ): Promise<ExtensionResult<K> | undefined> {
    try {
      return (await handler(payload, this.context)) ?? undefined;
    } catch (err) {
      this.report({ extension: ext.path, phase: event, message: errorText(err) });
      return undefined;
    }
  }

  private report(error: ExtensionError): void {
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

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
