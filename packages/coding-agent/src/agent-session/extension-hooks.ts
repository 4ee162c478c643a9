/**
 * Where a session's extension runner is hooked into its agent: provider requests and responses, tool calls and
 * results, the context sent to the model, and the agent events the extensions observe. Kept apart from the
 * session so a second runner (after `AgentSession.reload`) replaces the first instead of wrapping it: the
 * agent's own hooks are remembered once and every `use` starts from them.
 */
import type { Agent } from "@tiller/agent";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { AgentSessionEventListener } from "./events.js";

/** The agent's hooks before any runner was attached. */
interface BaseHooks {
  onPayload: Agent["onPayload"];
  onResponse: Agent["onResponse"];
  beforeToolCall: Agent["beforeToolCall"];
  afterToolCall: Agent["afterToolCall"];
  transformContext: Agent["transformContext"];
}

/** Agent events an extension can observe (the session's own events reach it through other hooks). */
const AGENT_EVENT_TYPES: Record<string, true> = {
  agent_start: true,
  agent_end: true,
  turn_start: true,
  turn_end: true,
  message_start: true,
  message_update: true,
  message_end: true,
  tool_execution_start: true,
  tool_execution_update: true,
  tool_execution_end: true,
  tool_approval_request: true,
  tool_approval_end: true,
};

export class ExtensionHooks {
  private base: BaseHooks | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly subscribe: (listener: AgentSessionEventListener) => () => void,
  ) {}

  /** Hooks `runner` in, replacing the runner hooked before. */
  use(runner: ExtensionRunner): void {
    const agent = this.agent;
    const base = (this.base ??= {
      onPayload: agent.onPayload,
      onResponse: agent.onResponse,
      beforeToolCall: agent.beforeToolCall,
      afterToolCall: agent.afterToolCall,
      transformContext: agent.transformContext,
    });
    agent.onResponse = async (response, model) => {
      await base.onResponse?.(response, model);
      if (runner.hasHandlers("after_provider_response"))
        await runner.emit({ type: "after_provider_response", status: response.status, headers: response.headers });
    };
    agent.onPayload = async (payload, model) => {
      const own = base.onPayload ? ((await base.onPayload(payload, model)) ?? payload) : payload;
      if (!runner.hasHandlers("before_provider_request")) return base.onPayload ? own : undefined;
      return runner.emitBeforeProviderRequest(own);
    };
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    agent.beforeToolCall = base.beforeToolCall;
    agent.afterToolCall = base.afterToolCall;
    agent.transformContext = base.transformContext;
    if (runner.extensions.length === 0) return;
    const hooks = runner.agentHooks();
    agent.beforeToolCall = hooks.beforeToolCall;
    agent.afterToolCall = hooks.afterToolCall;
    const sessionTransform = base.transformContext;
    agent.transformContext = async (messages, signal) =>
      hooks.transformContext(sessionTransform ? await sessionTransform(messages, signal) : messages);
    this.unsubscribe = this.subscribe((event) => {
      if (event.type in AGENT_EVENT_TYPES)
        return runner.emitAgentEvent(event as Parameters<ExtensionRunner["emitAgentEvent"]>[0]);
      return undefined;
    });
  }
}
