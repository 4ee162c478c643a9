/**
 * Type-level drop-in check: each type exported by @mariozechner/pi-agent-core 0.73.1 has a Tiller type of the
 * same name that a pi-typed program can use in its place. Type-checked by `npm run check` and by
 * test/pi-exports.test.ts (which runs tsc on this file alone and fails on any error).
 *
 * Each entry is a function that compiles only when the assignment it makes is allowed:
 * - `input`: a value a program builds and hands to Tiller (options, tools, messages): pi's type → Tiller's.
 * - `output`: a value Tiller hands to the program (state, hook contexts, the Agent itself): Tiller's → pi's,
 *   so code that reads it as pi's type keeps compiling. Classes are compared by their public members.
 */
import type * as Pi from "@mariozechner/pi-agent-core";
import type * as T from "@tiller/agent";

/*
 * A program declares its custom messages once; after the port they are Tiller's. Mirroring every merge into
 * Tiller's `CustomAgentMessages` onto pi's keeps the checks honest in the whole-repo program, where Tiller's
 * own packages and tests add custom message roles.
 */
declare module "@mariozechner/pi-agent-core" {
  interface CustomAgentMessages extends T.CustomAgentMessages {}
}

/** The public instance surface of a class (private and `#` members make classes nominal). */
export type PublicOf<C> = { [K in keyof C]: C[K] };

// biome-ignore lint/suspicious/noExplicitAny: pi's generic defaults are `any`; the checks mirror them.
type Any = any;

/** Tiller's events minus the ones it adds (approvals: pi has none), the part a pi-typed listener knows. */
type PiKnownEvent = Exclude<T.AgentEvent, { type: "tool_approval_request" | "tool_approval_end" }>;

export const input = {
  AgentOptions: (x: Pi.AgentOptions): T.AgentOptions => x,
  ProxyAssistantMessageEvent: (x: Pi.ProxyAssistantMessageEvent): T.ProxyAssistantMessageEvent => x,
  ProxyStreamOptions: (x: Pi.ProxyStreamOptions): T.ProxyStreamOptions => x,
  StreamFn: (x: Pi.StreamFn): T.StreamFn => x,
  ToolExecutionMode: (x: Pi.ToolExecutionMode): T.ToolExecutionMode => x,
  AgentToolCall: (x: Pi.AgentToolCall): T.AgentToolCall => x,
  BeforeToolCallResult: (x: Pi.BeforeToolCallResult): T.BeforeToolCallResult => x,
  AfterToolCallResult: (x: Pi.AfterToolCallResult): T.AfterToolCallResult => x,
  AgentLoopConfig: (x: Pi.AgentLoopConfig): T.AgentLoopConfig => x,
  ThinkingLevel: (x: Pi.ThinkingLevel): T.ThinkingLevel => x,
  CustomAgentMessages: (x: Pi.CustomAgentMessages): T.CustomAgentMessages => x,
  AgentMessage: (x: Pi.AgentMessage): T.AgentMessage => x,
  AgentToolResult: (x: Pi.AgentToolResult<unknown>): T.AgentToolResult<unknown> => x,
  AgentToolUpdateCallback: (x: Pi.AgentToolUpdateCallback): T.AgentToolUpdateCallback => x,
  AgentTool: (x: Pi.AgentTool<Any>): T.AgentTool<Any> => x,
  AgentContext: (x: Pi.AgentContext): T.AgentContext => x,
  AgentEventSink: (x: Pi.AgentEventSink): ((event: PiKnownEvent) => Promise<void> | void) => x,
};

export const output = {
  AgentState: (x: T.AgentState): Pi.AgentState => x,
  AgentEvent: (x: PiKnownEvent): Pi.AgentEvent => x,
  BeforeToolCallContext: (x: T.BeforeToolCallContext): Pi.BeforeToolCallContext => x,
  AfterToolCallContext: (x: T.AfterToolCallContext): Pi.AfterToolCallContext => x,
  ShouldStopAfterTurnContext: (x: T.ShouldStopAfterTurnContext): Pi.ShouldStopAfterTurnContext => x,
};

/*
 * Not checkable in this direction: `Agent` and `streamProxy` hand out pi's event-stream class, whose private
 * fields (queue, waiting, …) no other type can have. Tiller's structural stream type is checked the other way
 * round in @tiller/ai's pi-types.assign.ts.
 */
