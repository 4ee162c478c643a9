/**
 * The page's view of the gateway protocol. Wire shapes come from the gateway's own protocol modules as
 * type-only imports (erased by esbuild, so no server code reaches the bundle); what the page adds on top
 * (session rows, history messages, run usage) is described here, as the methods answer it.
 */
export type { ErrorShape, EventFrame, RequestFrame, ResponseFrame } from "../../src/protocol/frames.js";
export type { ConnectParams } from "../../src/protocol/handshake.js";

/** An `agent` event: the gateway's protocol schema type (type-only, erased from the bundle). */
export type { AgentEventPayload } from "../../src/protocol/schema/events.js";

/** Queue modes and thinking levels `sessions.patch` accepts (the gateway's config names them). */
export const QUEUE_MODES = ["steer", "followup", "collect", "interrupt"] as const;
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

/** A row of `sessions.list` (the fields the page shows). */
export interface SessionRow {
  key: string;
  agentId: string;
  sessionId?: string;
  label?: string;
  /** The model id runs resolve to, and its provider. */
  model?: string;
  modelProvider?: string;
  /** The session's own model choice (`provider/id`), when it has one. */
  modelOverride?: string;
  thinkingLevel?: string;
  queueMode?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** Estimated dollars of every run so far (0 when the models have no pricing). */
  estimatedCostUsd?: number;
  updatedAt?: number;
  createdAt?: number;
  lastRun?: { runId: string; status?: string };
  /** Set while a run of the session is active. */
  activeRunId?: string;
  queued?: number;
}

/** A content part of a transcript message as `chat.history` returns it. */
export interface ContentPart {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  arguments?: unknown;
}

/** A message of `chat.history`: user, assistant, or a tool's result (which fills its tool card). */
export interface HistoryMessage {
  role: "user" | "assistant" | "toolResult";
  content: string | ContentPart[];
  timestamp?: number;
  stopReason?: string;
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
  /** assistant: the tokens and estimated dollars of the model call that wrote it. */
  usage?: RunUsage;
}

/** A page of `chat.history`: `cursor` (as `before`) fetches the page before it while `hasMore`. */
export interface HistoryPage {
  sessionKey: string;
  messages: HistoryMessage[];
  hasMore?: boolean;
  cursor?: string;
}

/**
 * Token usage and estimated dollars of one run (the final `agent` answer's `result.meta.agentMeta.usage`), or
 * of one model call (a `usage` event): the gateway's RunUsage schema.
 */
export type { RunUsage } from "../../src/protocol/schema/agent.js";

import type { RunUsage } from "../../src/protocol/schema/agent.js";

/** The final `agent` answer (the second response on the request id). */
export interface AgentFinal {
  runId: string;
  status: "ok" | "error";
  summary?: string;
  result?: {
    payloads?: { text?: string }[];
    meta?: { durationMs?: number; agentMeta?: { model?: string; usage?: RunUsage } };
  };
  error?: { kind: string; message: string };
}

/** The connection's state as the status indicator shows it. */
export type ConnectionState = "idle" | "connecting" | "connected" | "reconnecting" | "refused" | "unauthorized";
