/** Events of an AgentSession: every AgentEvent of its Agent, plus the session's own. */

import type { AgentEvent, ThinkingLevel } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import type { CompactionReason, CompactionResult } from "../compaction/compact.js";

export type AgentSessionEvent =
  | AgentEvent
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
  | { type: "model_changed"; model: Model }
  | { type: "thinking_level_changed"; level: ThinkingLevel }
  | { type: "session_info_changed"; name: string | undefined };

export type AgentSessionEventListener = (event: AgentSessionEvent) => void | Promise<void>;

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
