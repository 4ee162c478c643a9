/**
 * The loop configuration an `Agent` hands to each run. Its fields read the agent live (getters), so mode and
 * hook changes made during a run apply to the rest of it; stream options are a small plain object per LLM call.
 */
import type { Model } from "@tiller/ai";
import type { Agent } from "./agent.js";
import type { AgentLoopConfig, ApprovalHandler, ThinkingLevel } from "./types.js";

/** The agent's settings the loop reads through its public fields. */
type PublicSettings = Pick<
  Agent,
  | "toolExecution"
  | "steeringDelivery"
  | "beforeToolCall"
  | "afterToolCall"
  | "transformContext"
  | "getApiKey"
  | "convertToLlm"
  | "sessionId"
  | "onPayload"
  | "onResponse"
  | "transport"
  | "thinkingBudgets"
  | "maxRetryDelayMs"
>;

/** What only the agent itself can read (its private state), passed in as accessors. */
export interface PrivateSettings {
  model(): Model;
  thinkingLevel(): ThinkingLevel;
  approvals: ApprovalHandler;
  drainSteering: AgentLoopConfig["getSteeringMessages"];
  drainFollowUps: AgentLoopConfig["getFollowUpMessages"];
  /** Calls `notify` whenever a steering message is queued; returns the unsubscribe. */
  watchSteering(notify: () => void): () => void;
}

export function liveLoopConfig(agent: PublicSettings, own: PrivateSettings): AgentLoopConfig {
  return {
    get model() {
      return own.model();
    },
    get toolExecution() {
      return agent.toolExecution;
    },
    get steeringDelivery() {
      return agent.steeringDelivery;
    },
    get beforeToolCall() {
      return agent.beforeToolCall;
    },
    get afterToolCall() {
      return agent.afterToolCall;
    },
    get transformContext() {
      return agent.transformContext;
    },
    get getApiKey() {
      return agent.getApiKey;
    },
    get convertToLlm() {
      return agent.convertToLlm;
    },
    getStreamOptions: () => {
      const level = own.thinkingLevel();
      return {
        reasoning: level === "off" ? undefined : level,
        sessionId: agent.sessionId,
        onPayload: agent.onPayload,
        onResponse: agent.onResponse,
        transport: agent.transport,
        thinkingBudgets: agent.thinkingBudgets,
        maxRetryDelayMs: agent.maxRetryDelayMs,
      };
    },
    approvals: own.approvals,
    getSteeringMessages: own.drainSteering,
    getFollowUpMessages: own.drainFollowUps,
    onSteeringQueued: own.watchSteering,
  };
}
