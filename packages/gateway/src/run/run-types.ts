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
import type { QueueMode, TillerConfig } from "../config/config-types.js";
import type { ResolvedModel } from "../config/models-config.js";
import type { PreparedRunPrompt } from "../prompt/prepare-run-prompt.js";
import type { ReplyPayload, RunEndStatus, RunResult } from "../protocol/schema/agent.js";
import type { AgentStream } from "../protocol/schema/events.js";
import type { SessionEntry } from "../store/session-store.js";
import type { AgentSessionEvent, EmbeddedSession } from "./embedded-session.js";
import type { RunWorkspace } from "./stages/workspace-stage.js";

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
  /** This message's queue mode (agent / chat.send `queueMode`); undefined: the session's. */
  queueMode?: QueueMode;
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
 * Everything one run carries from acceptance to its outcome. The stages fill it in order (model → workspace →
 * tools → prompt → run → reply payloads); extensions may read everything and change the writable fields in their
 * hooks (model, systemPrompt, prompt, callModel, payloads) before the next stage uses them.
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
  /** Where the run's tools work (the sandbox's directory when sandboxed). */
  workspaceDir: string;
  /** The agent's workspace and sandbox (set by the workspace stage; absent in a bare core). */
  workspace?: RunWorkspace;
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
  /** The reply payloads (set by the reply stage, after `shapeReply`); what the run delivers. */
  payloads: ReplyPayload[];
  usage: Usage;
  /** Per-run records of extensions that keep some (failover's attempts), keyed by extension name. */
  readonly state: Record<string, unknown>;
  readonly startedAt: number;
}

/** An extension's answer to a turn instead of the model's (a plugin's `before_agent_reply`, `/context`). */
export interface TurnClaim {
  /** The reply; empty or absent: the turn is answered with silence. */
  reply?: string;
  /** Who answered (shown as the reply's model). */
  pluginId: string;
}

/**
 * A hook set plugged into every run, at the stages the runner calls in order (run/agent-runner.ts). Hooks run in
 * registration order and are all optional; each gets the run's context and the stage's typed output.
 */
export interface RunExtension {
  name: string;
  /** Stage "model", before the model hooks: may change `ctx.model` / `ctx.thinking`. */
  resolveModel?(ctx: RunContext): void | Promise<void>;
  /** After the prompt stage (its report included): answer the turn without a model call. */
  claimTurn?(ctx: RunContext, prompt: PreparedRunPrompt): TurnClaim | undefined | Promise<TurnClaim | undefined>;
  /** Wraps the model call (failover, auth rotation, sampling); return the new call. */
  wrapModelCall?(call: ModelCall, ctx: RunContext): ModelCall;
  /**
   * Sees every event of the run's session as it was emitted (after reply shaping, before the event bridge). It
   * must not change the event: the session, the other extensions and the bridge read the same object.
   */
  /** Stage "tools" is done: may wrap `ctx.tools` (approvals put the exec policy on the exec tools here). */
  prepareTools?(ctx: RunContext): void;
  onAgentEvent?(ctx: RunContext, event: AgentSessionEvent, session: EmbeddedSession): void;
  /** May replace or filter the reply payloads (after reply shaping). */
  shapeReply?(ctx: RunContext, payloads: ReplyPayload[]): ReplyPayload[] | Promise<ReplyPayload[]>;
  /** After the outcome is known, before it is delivered. */
  onRunEnd?(ctx: RunContext, outcome: RunOutcome): void | Promise<void>;
}
