/**
 * Types of the run pipeline: what a request asks for (RunRequest), what flows through one run (RunContext),
 * how it ends (RunOutcome), and the seams other modules hook into (RunExtension, ModelCall).
 */
import type { AgentMessage, AgentTool, ToolCallsResume } from "@tiller/agent";
import type {
  Api,
  AssistantMessageEventStreamLike,
  Context,
  ImageContent,
  Model,
  SimpleStreamOptions,
  Usage,
} from "@tiller/ai";
import type { TillerConfig } from "../config/config-types.js";
import type { ResolvedModel } from "../config/models-config.js";
import type { ReplyPayload, RunEndStatus, RunResult } from "../protocol/schema/agent.js";
import type { AgentStream } from "../protocol/schema/events.js";
import type { SessionEntry } from "../store/session-store.js";
import type { EmbeddedSession } from "./embedded-session.js";

/** One accepted `agent` / `chat.send` request. `runId` is its idempotency key. */
export interface RunRequest {
  runId: string;
  sessionKey: string;
  agentId: string;
  message: string;
  acceptedAt: number;
  /** "provider/id" or a bare id; with `provider` the id alone. */
  model?: string;
  provider?: string;
  thinking?: string;
  /** Per-run timeout; 0 or undefined: the configured default. */
  timeoutMs?: number;
  extraSystemPrompt?: string;
  label?: string;
  /** Global lane: main (default), subagent, cron. */
  lane?: string;
  source: "agent" | "chat" | "http";
  /** Images sent with `message` (the HTTP API's image inputs); models without image input get a placeholder. */
  images?: ImageContent[];
  /** Sampling asked for by the HTTP API's caller (`temperature`, `max_tokens`…), applied to each model call. */
  sampling?: { temperature?: number; maxTokens?: number };
  /**
   * Set on the run that finishes a tool batch whose approvals were decided after the gateway restarted: the engine
   * resumes the batch (`resumeToolCalls`) instead of prompting; `message` is unused. Same runId as the run that died.
   */
  resume?: ToolCallsResume;
}

export type { ReplyPayload, RunEndStatus, RunMeta, RunResult } from "../protocol/schema/agent.js";

export interface RunOutcome {
  status: RunEndStatus;
  summary: string;
  result: RunResult;
  error?: string;
  startedAt: number;
  endedAt: number;
}

/** The model call a run makes; `streamSimple` by default. Wrap it to add failover, key rotation, logging. */
export type ModelCall = (
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
) => AssistantMessageEventStreamLike;

/** Agent event streams of the `agent` event. */
export type { AgentStream } from "../protocol/schema/events.js";

/**
 * Everything one run carries from acceptance to its outcome. Extensions may read everything and change the
 * writable fields in their hooks (model, systemPrompt, prompt, callModel, payloads) before the next stage uses them.
 */
export interface RunContext {
  readonly runId: string;
  /** Runs merged into this one (collect / steer); their requests get this run's outcome. */
  readonly memberRunIds: readonly string[];
  readonly sessionKey: string;
  readonly agentId: string;
  readonly request: RunRequest;
  readonly config: TillerConfig;
  session: SessionEntry;
  /** The user text sent to the model for this turn. */
  prompt: string;
  model: ResolvedModel;
  thinking: string;
  verbose: boolean;
  timeoutMs: number;
  workspaceDir: string;
  /** The tools the engine runs with (filled by the tools stage; none without one). */
  tools: AgentTool[];
  /** Skill names/prompts available to this run (filled by the skills stage). */
  skills: { name: string; description?: string; prompt?: string }[];
  systemPrompt: string;
  callModel: ModelCall;
  /** Aborted on timeout, chat.abort, /stop, interrupt, shutdown. `abortReason` says which. */
  readonly signal: AbortSignal;
  abortReason?: "timeout" | "aborted" | "shutdown";
  /** Emits an `agent` event of this run (seq assigned by the bus). */
  emit(stream: AgentStream, data: Record<string, unknown>): void;
  /** Messages added by this run (user, assistant, tool results), in order. */
  readonly newMessages: AgentMessage[];
  usage: Usage;
  /** Scratch space for extensions, keyed by extension name. */
  readonly state: Record<string, unknown>;
  readonly startedAt: number;
}

/**
 * A hook set plugged into every run (prompt assembly, reply shaping, failover…). Hooks run in registration
 * order; each may mutate the context. All are optional.
 */
export interface RunExtension {
  name: string;
  /** After the defaults are resolved, before the model is fixed: may change `ctx.model` / `ctx.thinking`. */
  resolveModel?(ctx: RunContext): void | Promise<void>;
  /** Builds or edits `ctx.systemPrompt` / `ctx.prompt` / `ctx.skills`. */
  buildPrompt?(ctx: RunContext): void | Promise<void>;
  /** Wraps the model call (failover, auth rotation); return the new call. */
  wrapModelCall?(call: ModelCall, ctx: RunContext): ModelCall;
  /**
   * Sees every engine event before it is bridged to streams. For a text delta it may return the text to stream
   * instead (reply shaping's cleaned text); it must not change the event, which other consumers read.
   */
  onEngineEvent?(ctx: RunContext, event: unknown): string | undefined;
  /** The engine is open and subscribed, before it is prompted (approvals keep it to decide on it). */
  onEngineStart?(ctx: RunContext, engine: EmbeddedSession): void;
  /** May replace or filter the reply payloads built from the run's assistant messages. */
  shapeReply?(ctx: RunContext, payloads: ReplyPayload[]): ReplyPayload[] | Promise<ReplyPayload[]>;
  /** After the outcome is known, before it is delivered. */
  onRunEnd?(ctx: RunContext, outcome: RunOutcome): void | Promise<void>;
}
