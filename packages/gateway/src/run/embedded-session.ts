/**
 * The agent session a run drives: the subset of the coding agent's AgentSession the gateway needs. The default
 * factory (tools/tool-engine.ts) wraps the coding agent's AgentSession; another engine (the benchmarks' minimal
 * one) plugs in through `SessionFactory`.
 */
import type { AgentEvent, AgentMessage, ApprovalDecision, ToolCallsResume } from "@tiller/agent";
import type { ImageContent } from "@tiller/ai";
import type { RunContext } from "./run-types.js";

/** Agent events plus the session-level events that become the `compaction` stream. */
export type EngineEvent =
  | AgentEvent
  | { type: "compaction_start"; reason?: string }
  | { type: "compaction_end"; willRetry: boolean; aborted?: boolean; errorMessage?: string };

export interface EmbeddedSession {
  readonly sessionId: string;
  /** Transcript path once it exists. */
  readonly sessionFile: string | undefined;
  /** All messages of the session's current branch, this run's included. */
  readonly messages: readonly AgentMessage[];
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Runs the agent loop for `text` (with `images`, if any); resolves when the loop ends. Never rejects. */
  prompt(text: string, images?: ImageContent[]): Promise<void>;
  /**
   * Injects a user message at the next boundary of the running loop (after the current model/tool step).
   * Returns false when the loop has already decided to end: the caller must queue the message instead.
   */
  steer(text: string): boolean;
  abort(): void;
  /** Summarizes older history; `compacted:false` when there is nothing to do. */
  compact?(): Promise<{ compacted: boolean; tokensBefore?: number; summary?: string }>;
  /**
   * Decides a pending approval of the running loop (`tool_approval_request`'s id); false when none with that id
   * waits. Throws for a decision the request does not offer. Engines without approvals leave it out.
   */
  resolveApproval?(id: string, decision: ApprovalDecision, options?: { by?: string; reason?: string }): boolean;
  /**
   * Finishes a tool batch that waited for approval when an earlier process stopped, then continues the loop (the
   * transcript ends with the batch's assistant message). Resolves when the loop ends. Never rejects.
   */
  resumeToolCalls?(resume: ToolCallsResume): Promise<void>;
  /** Releases the transcript's write lock. Idempotent. */
  dispose(): void;
}

/** Opens the session for a run. The write lock is taken here and held until `dispose()`. */
export type SessionFactory = (ctx: RunContext) => Promise<EmbeddedSession>;
