/**
 * Events of an AgentSession: its Agent's events plus the session's own. Two sets, one mechanism: a plain
 * `subscribe(listener)` gets exactly pi 0.73.1's `AgentSessionEvent` union (so a listener written against pi's
 * types type-checks and never meets an event it does not know); `subscribe(listener, { tillerEvents: true })`
 * also gets the events Tiller adds (`TillerOnlySessionEvent`: the seeds' tool approvals, `model_changed`).
 * RpcClient's `onEvent` / `collectEvents` follow the same rule over the wire.
 */

import type { AgentEvent, AgentEventOf, ThinkingLevel } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import type { CompactionReason, CompactionResult } from "../compaction/compact.js";

/** A call waits for a decision / the wait is over (the seeds' approvals; pi has none). */
export type ToolApprovalEvent = AgentEventOf<"tool_approval_request" | "tool_approval_end">;

/** The Agent's events as pi's agent-core declares them: Tiller's without the approval events. */
export type CoreAgentEvent = Exclude<AgentEvent, ToolApprovalEvent>;

/** What a plain `subscribe(listener)` delivers: pi's `AgentSessionEvent`, member for member. */
export type AgentSessionEvent =
  | CoreAgentEvent
  /** Texts still queued (not yet delivered to the model). */
  | { type: "queue_update"; steering: readonly string[]; followUp: readonly string[] }
  | { type: "compaction_start"; reason: CompactionReason }
  /** `willRetry`: the failed turn is re-run after this compaction (overflow recovery). */
  | {
      type: "compaction_end";
      reason: CompactionReason;
      result: CompactionResult | undefined;
      aborted: boolean;
      willRetry: boolean;
      errorMessage?: string;
    }
  | { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  | { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
  | { type: "thinking_level_changed"; level: ThinkingLevel }
  | { type: "session_info_changed"; name: string | undefined };

/**
 * The events Tiller adds to pi's: tool approvals (a `tool_approval_request` comes after its call's
 * `tool_execution_start`; `tool_approval_end` when it was decided, timed out or aborted) and `model_changed` (after
 * `setModel` / `cycleModel`; `setModel`'s promise waits for the async listeners that take it). Only listeners
 * that ask for them (`{ tillerEvents: true }`) get them.
 */
export type TillerOnlySessionEvent = ToolApprovalEvent | { type: "model_changed"; model: Model };

/** Every event an AgentSession emits: pi's union plus Tiller's additions. */
export type TillerSessionEvent = AgentSessionEvent | TillerOnlySessionEvent;

/** A listener of pi's events (async ones are awaited where the session waits for its listeners). */
export type AgentSessionEventListener = (event: AgentSessionEvent) => void | Promise<void>;

/** A listener of every event, Tiller's additions included (`subscribe(listener, { tillerEvents: true })`). */
export type TillerSessionEventListener = (event: TillerSessionEvent) => void | Promise<void>;

/** The second argument of `subscribe` (and RpcClient's `onEvent` / `collectEvents`) that asks for every event. */
export interface TillerEventsOption {
  /** Also deliver `TillerOnlySessionEvent`s (approvals, `model_changed`). */
  tillerEvents: true;
}

const TILLER_ONLY_TYPES: ReadonlySet<string> = new Set<TillerOnlySessionEvent["type"]>([
  "tool_approval_request",
  "tool_approval_end",
  "model_changed",
]);

/** Whether `event` is one Tiller adds to pi's union (a plain listener does not get it). */
export function isTillerOnlyEvent(event: { type: string }): event is TillerOnlySessionEvent {
  return TILLER_ONLY_TYPES.has(event.type);
}

/** Token and cost totals over every message of the session file (all branches). */
export interface SessionStats {
  sessionId: string;
  sessionFile: string | undefined;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  totalMessages: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  /** Dollars. */
  cost: number;
}

/** How full the context is, by the same estimate compaction uses. */
export interface ContextUsage {
  /**
   * Estimated context tokens. Tiller's sessions always estimate a number; `null` (unknown, as pi reports right
   * after a compaction) comes only from a host's own `getContextUsage`, so readers handle it.
   */
  tokens: number | null;
  contextWindow: number;
  /** `tokens` as a percentage of the window; `null` when tokens is. */
  percent: number | null;
}
