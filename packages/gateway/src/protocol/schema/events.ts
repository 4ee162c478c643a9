/**
 * Event payloads: `agent` (one run's streams), `chat` (the WebChat view of a run), and the unsequenced
 * `tick`, `shutdown` and `error` events.
 */
import { type Static, type TSchema, Type } from "typebox";
import { APPROVAL_EVENTS, ApprovalDataSchema } from "./approvals.js";
import { OpenObject, StringEnum, Timestamp } from "./common.js";
import { ErrorShapeSchema } from "./frames.js";

export const AGENT_STREAMS = [
  "lifecycle",
  "assistant",
  "tool",
  "compaction",
  "usage",
  "error",
  "block",
  "thinking",
  "approval",
] as const;
export const AgentStreamSchema = StringEnum(AGENT_STREAMS);
export type AgentStream = Static<typeof AgentStreamSchema>;

/**
 * `lifecycle`: `start`, then `model` (the model the run uses, once resolved), `finishing` (the loop ended, the
 * reply is being shaped and persisted), then `end` (with `aborted` for aborts and timeouts) or `error`.
 */
export const LIFECYCLE_PHASES = ["start", "model", "finishing", "end", "error"] as const;
export const LifecycleDataSchema = Type.Object({
  phase: StringEnum(LIFECYCLE_PHASES),
  startedAt: Type.Optional(Timestamp()),
  endedAt: Type.Optional(Timestamp()),
  provider: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  thinking: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  aborted: Type.Optional(Type.Boolean()),
  timedOut: Type.Optional(Type.Boolean()),
});
export type LifecycleData = Static<typeof LifecycleDataSchema>;

/**
 * What a connection receives of a run's text, chosen once at `connect` from what the client announced (see
 * `textViewOf`). Each view carries the reply's text once as a stream, plus the finals the client reads, so the
 * bytes a run sends grow linearly with the reply; the cumulative copies go only to clients whose code renders them.
 */
export const TEXT_VIEWS = ["deltas", "answer", "chat", "snapshots"] as const;
export const TextViewSchema = StringEnum(TEXT_VIEWS, {
  description:
    "deltas (cap tiller.delta-only): every burst of text as `assistant` {delta}, no chat deltas, finals whole. " +
    "answer (client id `cli`, the reference CLI, which reads only the `agent` answer): coalesced `assistant` " +
    "{delta}, no chat deltas; a run asked for with `agent` ends with a chat final without `message` (the deltas " +
    "and the answer carry the text) unless the connection missed events. chat (every other v4 client): coalesced `assistant` {delta}, chat deltas with " +
    "the cumulative `message` and `deltaText` (the reference TUI renders the snapshot, its control UI `deltaText`), " +
    "finals whole. snapshots (protocol 3): as chat, and `assistant` events also carry the cumulative `text`.",
});
export type TextView = Static<typeof TextViewSchema>;

export const AssistantDataSchema = Type.Object(
  {
    text: Type.Optional(
      Type.String({
        description: "The cleaned cumulative text: only in the `snapshots` view (protocol 3); the deltas rebuild it.",
      }),
    ),
    delta: Type.String(),
    replace: Type.Optional(Type.Boolean()),
    mediaUrls: Type.Optional(Type.Array(Type.String())),
  },
  { description: "`assistant`: a piece of the reply." },
);

export const ToolDataSchema = Type.Object({
  phase: StringEnum(["start", "update", "result"] as const),
  name: Type.String(),
  toolCallId: Type.String(),
  args: Type.Optional(Type.Unknown()),
  partialResult: Type.Optional(Type.Unknown()),
  result: Type.Optional(Type.Unknown()),
  isError: Type.Optional(Type.Boolean()),
  meta: Type.Optional(Type.Unknown()),
});

export const CompactionDataSchema = Type.Object({
  phase: StringEnum(["start", "end"] as const),
  reason: Type.Optional(Type.String()),
  willRetry: Type.Optional(Type.Boolean()),
  completed: Type.Optional(Type.Boolean()),
  error: Type.Optional(Type.String()),
});

export const UsageDataSchema = Type.Object(
  {
    input: Type.Number(),
    output: Type.Number(),
    cacheRead: Type.Number(),
    cacheWrite: Type.Number(),
    total: Type.Number(),
    costUsd: Type.Optional(
      Type.Number({ minimum: 0, description: "Estimated dollars of the call, from the model's pricing." }),
    ),
    provider: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
  },
  { description: "`usage`: the tokens (and estimated cost) of one model call, sent when the call ends." },
);
export type UsageData = Static<typeof UsageDataSchema>;

export const ThinkingDataSchema = Type.Object({ text: Type.Optional(Type.String()), delta: Type.String() });

const envelope = {
  runId: Type.String(),
  seq: Type.Integer({ minimum: 1, description: "Per run, +1 per event with no gaps." }),
  ts: Timestamp(),
  sessionKey: Type.Optional(Type.String()),
};

/** Any `agent` event: the envelope every stream shares (what the event bus carries). */
export const AgentEventEnvelopeSchema = Type.Object({ ...envelope, stream: AgentStreamSchema, data: OpenObject() });
export type AgentEventPayload = Static<typeof AgentEventEnvelopeSchema>;

const streamEvent = <S extends AgentStream, D extends TSchema>(stream: S, data: D) =>
  Type.Object({ ...envelope, stream: Type.Literal(stream), data });

/** The `agent` event, each stream with its own data. */
export const AgentEventSchema = Type.Union([
  streamEvent("lifecycle", LifecycleDataSchema),
  streamEvent("assistant", AssistantDataSchema),
  streamEvent("tool", ToolDataSchema),
  streamEvent("compaction", CompactionDataSchema),
  streamEvent("usage", UsageDataSchema),
  streamEvent("thinking", ThinkingDataSchema),
  streamEvent("approval", ApprovalDataSchema),
  streamEvent("block", OpenObject()),
  streamEvent("error", OpenObject()),
]);

export const CHAT_STATES = ["delta", "final", "aborted", "error"] as const;
export type ChatState = (typeof CHAT_STATES)[number];

export const ChatMessageSchema = Type.Object({
  role: Type.Literal("assistant"),
  content: Type.Array(Type.Object({ type: Type.Literal("text"), text: Type.String() })),
  timestamp: Timestamp(),
});

export const ChatEventSchema = Type.Object(
  {
    runId: Type.String(),
    sessionKey: Type.String(),
    seq: Type.Integer({ minimum: 0, description: "The seq of the agent event this one mirrors." }),
    state: StringEnum(CHAT_STATES),
    message: Type.Optional(ChatMessageSchema),
    deltaText: Type.Optional(Type.String({ description: "v4: the text added since the previous chat delta." })),
    errorMessage: Type.Optional(Type.String()),
    errorKind: Type.Optional(StringEnum(["refusal", "timeout", "rate_limit", "context_length", "unknown"] as const)),
    usage: Type.Optional(Type.Unknown({ description: "On `final`: the run's usage (RunUsage: tokens and costUsd)." })),
    stopReason: Type.Optional(Type.String()),
  },
  {
    description:
      "`chat`: deltas (coalesced; `message` the cumulative text, `deltaText` what is new since the previous " +
      "delta), then final (`message` the whole reply; in the `answer` view left out of an `agent` run's final), " +
      "aborted or error.",
  },
);
export type ChatEventPayload = Static<typeof ChatEventSchema>;

export const TickEventSchema = Type.Object({ ts: Timestamp() }, { description: "Keep-alive, unsequenced." });
export const ShutdownEventSchema = Type.Object({ reason: Type.String(), ts: Timestamp() });
export const ErrorEventSchema = Type.Object(
  { error: ErrorShapeSchema },
  { description: "A frame that could not be answered by id (no id to echo)." },
);

/** Every event this gateway sends (hello-ok's `features.events`). */
export const GATEWAY_EVENTS = [
  "connect.challenge",
  "agent",
  "chat",
  "tick",
  "health",
  "presence",
  "shutdown",
  ...APPROVAL_EVENTS,
];
