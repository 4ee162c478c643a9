import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentEvent,
  AgentMessage,
  ApprovalRequest,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "@tiller/agent";
import type { ImageContent } from "@tiller/ai";
import type { LoadExtensionsResult } from "./extension-runtime.js";
import { errorOf, errorText } from "./instantiate.js";
import { ExtensionRunnerCore } from "./runner-core.js";
import type { ExtensionEventMap, ExtensionResult, InputSource, SystemPromptSources } from "./types.js";

export { errorText, instantiateExtension, type LoadedExtension } from "./instantiate.js";

/**
 * The runner of `result`: its own, else (a result a pi program's ResourceLoader built: pi's results have none) one
 * made now over its extensions, errors and runtime and kept on the result, so every reader shares it.
 */
export function extensionRunnerOf(result: LoadExtensionsResult): ExtensionRunner {
  result.runner ??= new ExtensionRunner(
    result.extensions,
    result.errors.map((e) => ({ extensionPath: e.path, event: "load", error: e.error })),
    result.runtime,
  );
  return result.runner;
}
export { ExtensionRunnerCore } from "./runner-core.js";

/**
 * Dispatches events to every loaded extension in load order. A handler that throws or rejects is reported through
 * `onError` and treated as if it returned nothing, except `tool_call`, where a failing guard blocks the call
 * (fail closed: a permission check that crashes must not let the tool run).
 */
export class ExtensionRunner extends ExtensionRunnerCore {
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

  /**
   * `message_end` (pi's `emitMessageEnd`): each handler sees the message as replaced so far and may return one
   * of the same role (another role is reported and ignored). Returns the replacement, undefined when none.
   */
  async emitMessageEnd(event: ExtensionEventMap["message_end"]): Promise<AgentMessage | undefined> {
    let current = event.message;
    let replaced = false;
    for (const [ext, handler] of this.handlersOf("message_end")) {
      const r = await this.call(ext, "message_end", handler, { ...event, message: current });
      if (!r?.message) continue;
      if (r.message.role !== current.role) {
        this.report({
          extensionPath: ext.path,
          event: "message_end",
          error: "message_end handlers must return a message with the same role",
        });
        continue;
      }
      current = r.message;
      replaced = true;
    }
    return replaced ? current : undefined;
  }

  /**
   * `resources_discover` (pi's `emitResourcesDiscover`): the skill, prompt and theme folders every handler
   * named, each with the extension that named it.
   */
  async emitResourcesDiscover(
    cwd: string,
    reason: "startup" | "reload",
  ): Promise<Record<"skillPaths" | "promptPaths" | "themePaths", Array<{ path: string; extensionPath: string }>>> {
    const out = { skillPaths: [], promptPaths: [], themePaths: [] } as Record<
      "skillPaths" | "promptPaths" | "themePaths",
      Array<{ path: string; extensionPath: string }>
    >;
    for (const [ext, handler] of this.handlersOf("resources_discover")) {
      const r = await this.call(ext, "resources_discover", handler, { type: "resources_discover", cwd, reason });
      for (const key of ["skillPaths", "promptPaths", "themePaths"] as const)
        for (const path of r?.[key] ?? []) out[key].push({ path, extensionPath: ext.path });
    }
    return out;
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

  /**
   * `before_agent_start`: the system prompt for this run; later extensions see earlier replacements. `sources`
   * (default: the context's cwd only) and `images` are handed to the handlers as they are.
   */
  async beforeAgentStart(
    prompt: string,
    systemPrompt: string,
    sources?: SystemPromptSources,
    images?: ImageContent[],
  ): Promise<string> {
    let current = systemPrompt;
    const systemPromptOptions = sources ?? { cwd: this.createContext().cwd };
    for (const [ext, handler] of this.handlersOf("before_agent_start")) {
      const r = await this.call(ext, "before_agent_start", handler, {
        type: "before_agent_start",
        prompt,
        ...(images ? { images } : {}),
        systemPrompt: current,
        systemPromptOptions,
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
        r = (await handler(
          { type: "tool_call", toolCallId, toolName, input: current },
          this.createContext(),
        )) as typeof r;
      } catch (err) {
        const message = errorText(err);
        this.report(errorOf(ext.path, "tool_call", err));
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

  // ---- pi's names for the hooks above (hosts written against pi's runner) ----

  /** pi's `emitContext`: the messages for a model call, from a copy (handlers may edit it freely). */
  emitContext(messages: AgentMessage[]): Promise<AgentMessage[]> {
    return this.transformContext(structuredClone(messages));
  }

  /**
   * pi's `emitToolCall`: `{block, reason}` when a handler blocks. Replacement arguments are written into
   * `event.input` (pi's handlers edit it in place, and its hosts read it back).
   */
  async emitToolCall(event: ExtensionEventMap["tool_call"]): Promise<ExtensionResult<"tool_call"> | undefined> {
    const r = await this.toolCall(event.toolCallId, event.toolName, event.input);
    if (r.block) return { block: true, reason: r.reason };
    if (r.changed && r.input !== event.input) {
      for (const k of Object.keys(event.input)) delete event.input[k];
      Object.assign(event.input, r.input);
    }
    return r.requireApproval ? { requireApproval: r.requireApproval } : undefined;
  }

  /** pi's `emitToolResult`: the changed parts, or undefined when no handler changed anything. */
  async emitToolResult(event: ExtensionEventMap["tool_result"]): Promise<ExtensionResult<"tool_result"> | undefined> {
    const { type: _type, ...rest } = event;
    const r = await this.toolResult(rest);
    return r.changed ? { content: r.content, details: r.details, isError: r.isError } : undefined;
  }

  /** pi's `emitBeforeAgentStart`: the system prompt when a handler replaced it, else undefined. */
  async emitBeforeAgentStart(
    prompt: string,
    images: ImageContent[] | undefined,
    systemPrompt: string,
    systemPromptOptions?: SystemPromptSources,
  ): Promise<{ systemPrompt?: string } | undefined> {
    if (!this.hasHandlers("before_agent_start")) return undefined;
    const next = await this.beforeAgentStart(prompt, systemPrompt, systemPromptOptions, images);
    return next !== systemPrompt ? { systemPrompt: next } : undefined;
  }

  /** pi's `invalidate`: the extensions' actions throw `message` from now on (their session was replaced). */
  invalidate(message?: string): void {
    this.runtime.invalidate(message);
  }

  /** pi's `shutdown`: asks the host to end (the handler `setShutdownHandler` set), as `ctx.shutdown()` does. */
  shutdown(): void {
    this.shutdownHandler();
  }

  /** What `shutdown` (and the contexts the host builds with `() => runner.shutdown()`) does. */
  setShutdownHandler(handler: (() => void) | undefined): void {
    this.shutdownHandler = handler ?? (() => {});
  }
  private shutdownHandler: () => void = () => {};

  /**
   * Hands what the host bound to this runner (UI, `/command` session controls, shutdown handler, error
   * listeners) to `next`, the runner of the reloaded extensions (`AgentSession.reload`).
   */
  passHostTo(next: ExtensionRunner): void {
    next.setUIContext(this.getUIContext());
    next.bindCommandContext(this.commandActions);
    next.setShutdownHandler(this.shutdownHandler);
    for (const l of this.errorListeners) next.onError(l);
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
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
