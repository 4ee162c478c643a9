/**
 * Wraps a tool so plugin hooks see every call: `before_tool_call` may rewrite the arguments, block the call (a
 * blocked call fails with the plugin's reason, which the agent loop turns into an error tool result the model can
 * read) or ask for approval (`requireApproval`: the call waits in the agent loop for a person's decision, a
 * plugin approval). The hooks run in the tool's approval rule, before the call is announced, once per call;
 * `after_tool_call` observes the result or error and the duration without delaying the result. The result's
 * content is sanitized (size cap with a note, oversized images resized or replaced) before anyone stores or sends it.
 */
import type { AgentTool, AgentToolResult, ApprovalRequest, RequiresApproval } from "@tiller/agent";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { BeforeToolCallResult, PluginApprovalRequest, PluginHookContext } from "../plugins/hook-types.js";
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

/** The agent's form of a plugin's approval request (kind `plugin` in its meta, for the gateway's approvals). */
export function pluginApprovalRequest(r: PluginApprovalRequest): ApprovalRequest {
  return {
    title: r.title,
    ...(r.description !== undefined ? { description: r.description } : {}),
    severity: r.severity ?? "warning",
    ...(r.timeoutMs !== undefined ? { timeoutMs: r.timeoutMs } : {}),
    ...(r.timeoutBehavior !== undefined ? { timeoutBehavior: r.timeoutBehavior } : {}),
    ...(r.allowedDecisions?.length ? { decisions: r.allowedDecisions } : {}),
    meta: { kind: "plugin", ...(r.pluginId !== undefined ? { pluginId: r.pluginId } : {}) },
  };
}

export function wrapToolWithHooks<T extends AnyTool>(tool: T, options: ToolHookOptions): T {
  const { hooks, context = {} } = options;
  const sanitize = options.sanitize === false ? undefined : (options.sanitize ?? {});
  const hooked = hooks?.hasHooks("before_tool_call") === true;
  // What before_tool_call decided in the approval rule, for `execute` of the same call (tools are built per run,
  // so this lives as long as the run). A call that reaches `execute` without an entry (a direct call, or one
  // resumed after a restart) runs the hooks there.
  const decided = new Map<string, BeforeToolCallResult & { blockedBy?: string }>();
  const before = (toolCallId: string, args: Record<string, unknown>) =>
    (hooks as HookRunner).runBeforeToolCall({ toolName: tool.name, toolCallId, params: { ...(args ?? {}) } }, context);
  const own = tool.requiresApproval;
  const rule: RequiresApproval | undefined = hooked
    ? async (args, call) => {
        const decision = await before(call.toolCall.id, args);
        if (decision.block) {
          return { block: true, reason: `Tool call blocked: ${decision.blockReason ?? "blocked by a plugin"}` };
        }
        decided.set(call.toolCall.id, decision);
        if (decision.requireApproval) return pluginApprovalRequest(decision.requireApproval);
        if (own === undefined || typeof own === "boolean") return own ?? false;
        return own(decision.params ?? args, call);
      }
    : own;
  return {
    ...tool,
    ...(rule !== undefined ? { requiresApproval: rule } : {}),
    execute: async (toolCallId, params, signal, onUpdate) => {
      let args = params as Record<string, unknown>;
      if (hooked) {
        const early = decided.get(toolCallId);
        decided.delete(toolCallId);
        const decision = early ?? (await before(toolCallId, args));
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
