/**
 * Where a session's extension runner is hooked into its agent: provider requests and responses, tool calls and
 * results, the context sent to the model, the agent events the extensions observe (`message_end` may replace the
 * message), and the folders their `resources_discover` handlers name. Kept apart from the
 * session so a second runner (after `AgentSession.reload`) replaces the first instead of wrapping it: the
 * agent's own hooks are remembered once and every `use` starts from them.
 */
import { dirname, resolve } from "node:path";
import type { Agent, AgentEventOf } from "@tiller/agent";
import type { ExtensionRunner } from "../extensions/runner.js";
import type { ResourceExtensionPaths } from "../runtime/resource-loader.js";
import type { TillerSessionEventListener } from "./events.js";

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
  // message_end: the session asks the extensions itself, before it stores the message (they may replace it).
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
    /** Subscribes to every session event: extensions may handle the approval events (`tool_approval_*`). */
    private readonly subscribe: (listener: TillerSessionEventListener) => () => void,
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
    // pi's turn numbering: from 0 in each run, the same index on a turn's start and end.
    let turnIndex = 0;
    this.unsubscribe = this.subscribe((event) => {
      if (!(event.type in AGENT_EVENT_TYPES)) return undefined;
      if (event.type === "agent_start") turnIndex = 0;
      if (event.type === "turn_start") {
        if (runner.hasHandlers("turn_start"))
          return runner.emit({ type: "turn_start", turnIndex, timestamp: Date.now() }).then(() => undefined);
        return undefined;
      }
      if (event.type === "turn_end") {
        const index = turnIndex++;
        if (runner.hasHandlers("turn_end")) return runner.emit({ ...event, turnIndex: index }).then(() => undefined);
        return undefined;
      }
      return runner.emitAgentEvent(event as Parameters<ExtensionRunner["emitAgentEvent"]>[0]);
    });
  }
}

/**
 * Asks the extensions' `message_end` handlers; a replacement takes the message's place in place (pi's way): the
 * agent's state, the later turn and agent events, the listeners and the session file all hold that object.
 */
export async function messageEndFromExtensions(
  event: AgentEventOf<"message_end">,
  runner: ExtensionRunner,
): Promise<void> {
  const replacement = await runner.emitMessageEnd(event);
  if (!replacement || replacement === event.message) return;
  const target = event.message as unknown as Record<string, unknown>;
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, replacement);
}

type Discovered = Awaited<ReturnType<ExtensionRunner["emitResourcesDiscover"]>>;

/**
 * The folders `resources_discover` handlers named, as the resource loader takes them, with pi's metadata; a
 * relative folder is taken from the session's `cwd`, as pi's loader does.
 */
export function discoveredResourcePaths(found: Discovered, cwd: string): ResourceExtensionPaths {
  const entries = (list: Discovered["skillPaths"]) =>
    list.map(({ path, extensionPath }) => {
      const baseDir = extensionPath.startsWith("<") ? undefined : dirname(extensionPath);
      const metadata = { source: extensionPath, scope: "temporary", origin: "top-level", baseDir };
      return { path: resolve(cwd, path), metadata };
    });
  return {
    skillPaths: entries(found.skillPaths),
    promptPaths: entries(found.promptPaths),
    themePaths: entries(found.themePaths),
  };
}
