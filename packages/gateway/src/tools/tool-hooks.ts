/**
 * Wraps a tool so plugin hooks see every call: `before_tool_call` may rewrite the arguments or block the call (a
 * blocked call fails with the plugin's reason, which the agent loop turns into an error tool result the model can
 * read); `after_tool_call` observes the result or error and the duration without delaying the result. The result's
 * content is sanitized (size cap with a note, oversized images resized or replaced) before anyone stores or sends it.
 */
import type { AgentTool, AgentToolResult } from "@tiller/agent";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { PluginHookContext } from "../plugins/hook-types.js";
import { type SanitizeOptions, sanitizeToolContent } from "./tool-result-sanitizer.js";

/** The error a blocked tool call fails with. */
export class ToolCallBlockedError extends Error {
  constructor(
    readonly toolName: string,
    readonly reason: string,
    readonly pluginId?: string,
  ) {
    super(`Tool call blocked: ${reason}`);
    this.name = "ToolCallBlockedError";
  }
}

export interface ToolHookOptions {
  hooks?: HookRunner;
  context?: PluginHookContext;
  /** Sanitization of results; `false` turns it off. */
  sanitize?: SanitizeOptions | false;
}

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

export function wrapToolWithHooks<T extends AnyTool>(tool: T, options: ToolHookOptions): T {
  const { hooks, context = {} } = options;
  const sanitize = options.sanitize === false ? undefined : (options.sanitize ?? {});
  return {
    ...tool,
    execute: async (toolCallId, params, signal, onUpdate) => {
      let args = params as Record<string, unknown>;
      if (hooks?.hasHooks("before_tool_call")) {
        const decision = await hooks.runBeforeToolCall(
          { toolName: tool.name, toolCallId, params: { ...(args ?? {}) } },
          context,
        );
        if (decision.block) {
          throw new ToolCallBlockedError(tool.name, decision.blockReason ?? "blocked by a plugin", decision.blockedBy);
        }
        if (decision.params) args = decision.params;
      }
      const started = Date.now();
      let result: AgentToolResult<unknown>;
      try {
        result = await tool.execute(toolCallId, args as typeof params, signal, onUpdate);
      } catch (err) {
        if (hooks?.hasHooks("after_tool_call")) {
          void hooks.runObserver(
            "after_tool_call",
            {
              toolName: tool.name,
              toolCallId,
              params: args,
              error: err instanceof Error ? err.message : String(err),
              durationMs: Date.now() - started,
            },
            context,
          );
        }
        throw err;
      }
      if (sanitize && Array.isArray(result?.content)) {
        const { content } = await sanitizeToolContent(result.content, sanitize);
        result = { ...result, content };
      }
      if (hooks?.hasHooks("after_tool_call")) {
        void hooks.runObserver(
          "after_tool_call",
          {
            toolName: tool.name,
            toolCallId,
            params: args,
            result: { content: result.content, details: result.details },
            durationMs: Date.now() - started,
          },
          context,
        );
      }
      return result;
    },
  };
}
