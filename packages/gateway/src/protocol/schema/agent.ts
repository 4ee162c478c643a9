/** `agent` (one run, answered twice: accepted, then final) and `agent.wait`. */
import { type Static, Type } from "typebox";
import { NonEmptyString, OpenObject, StringEnum, Timestamp } from "./common.js";
import { QUEUE_MODES } from "./sessions.js";

/** A message's own queue mode (the reference's `queueMode` on chat.send), over the session's for this message. */
export const MessageQueueModeSchema = StringEnum(QUEUE_MODES, {
  description:
    "What this message does if the session's run is still active (steer: join it at its next tool boundary; " +
    "followup: its own turn after it; collect: merged with other queued messages; interrupt: abort it). " +
    "Absent: the session's queue mode.",
});

export const AgentParamsSchema = Type.Object(
  {
    message: NonEmptyString(),
    idempotencyKey: NonEmptyString({
      maxLength: 200,
      description: "Becomes the runId; a retry never starts a second run.",
    }),
    agentId: Type.Optional(NonEmptyString()),
    sessionKey: Type.Optional(Type.String()),
    sessionId: Type.Optional(Type.String()),
    model: Type.Optional(Type.String({ description: '"provider/id" or a bare id.' })),
    provider: Type.Optional(Type.String()),
    thinking: Type.Optional(Type.String()),
    queueMode: Type.Optional(MessageQueueModeSchema),
    timeout: Type.Optional(Type.Integer({ minimum: 0, description: "Run timeout in seconds; 0: the default." })),
    extraSystemPrompt: Type.Optional(Type.String()),
    label: Type.Optional(Type.String({ maxLength: 100 })),
    lane: Type.Optional(Type.String({ description: "Global lane: main (default), subagent, cron." })),
    deliver: Type.Optional(
      Type.Boolean({
        description: "Outbound channel delivery (the reference CLI always sends it; Tiller has no channels).",
      }),
    ),
    bestEffortDeliver: Type.Optional(Type.Boolean()),
    to: Type.Optional(Type.String()),
    replyTo: Type.Optional(Type.String()),
    channel: Type.Optional(Type.String()),
    replyChannel: Type.Optional(Type.String()),
    replyAccountId: Type.Optional(Type.String()),
  },
  { description: "Unknown keys are ignored, so newer clients keep working." },
);
export type AgentParams = Static<typeof AgentParamsSchema>;

export const ReplyPayloadSchema = Type.Object(
  {
    text: Type.String(),
    mediaUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    mediaUrls: Type.Optional(Type.Array(Type.String())),
    isError: Type.Optional(Type.Boolean()),
    replyToId: Type.Optional(Type.String()),
    replyToCurrent: Type.Optional(Type.Boolean()),
    audioAsVoice: Type.Optional(Type.Boolean()),
  },
  { description: "A shaped piece of the reply, as the reference clients print it." },
);
export type ReplyPayload = Static<typeof ReplyPayloadSchema>;

export const RunUsageSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  total: Type.Number(),
  costUsd: Type.Optional(
    Type.Number({
      minimum: 0,
      description: "Estimated dollars of the run's model calls, from the models' pricing (0 when unpriced).",
    }),
  ),
});
export type RunUsage = Static<typeof RunUsageSchema>;

export const RunMetaSchema = Type.Object({
  durationMs: Type.Number({ minimum: 0 }),
  agentMeta: Type.Object({
    sessionId: Type.String(),
    provider: Type.String(),
    model: Type.String(),
    usage: Type.Optional(RunUsageSchema),
  }),
  stopReason: Type.Optional(Type.String()),
  aborted: Type.Optional(Type.Boolean()),
});
export type RunMeta = Static<typeof RunMetaSchema>;

export const RunResultSchema = Type.Object({ payloads: Type.Array(ReplyPayloadSchema), meta: RunMetaSchema });
export type RunResult = Static<typeof RunResultSchema>;

/** How a run ended. `aborted`: chat.abort, /stop, interrupt; `timeout`: the run's own time limit. */
export const RUN_END_STATUSES = ["ok", "error", "timeout", "aborted"] as const;
export const RunEndStatusSchema = StringEnum(RUN_END_STATUSES);
export type RunEndStatus = Static<typeof RunEndStatusSchema>;

export const AgentAcceptedSchema = Type.Object(
  {
    runId: Type.String(),
    status: Type.Literal("accepted"),
    acceptedAt: Timestamp(),
    sessionKey: Type.Optional(Type.String()),
    cached: Type.Optional(Type.Boolean()),
  },
  { description: "The first `agent` response, sent at once." },
);
export type AgentAccepted = Static<typeof AgentAcceptedSchema>;

export const AgentFinalSchema = Type.Object(
  {
    runId: Type.String(),
    status: StringEnum(["ok", "error", "timeout"] as const, {
      description: "`timeout`: the run hit its time limit; aborts report `error` with error.kind `aborted`.",
    }),
    summary: Type.String(),
    result: RunResultSchema,
    error: Type.Optional(Type.Object({ kind: RunEndStatusSchema, message: Type.String() })),
    cached: Type.Optional(Type.Boolean()),
  },
  { description: "The second `agent` response, on the same id, when the run ends." },
);
export type AgentFinal = Static<typeof AgentFinalSchema>;

export const AgentResultSchema = Type.Union([AgentAcceptedSchema, AgentFinalSchema]);
export type AgentResult = Static<typeof AgentResultSchema>;

export const AgentWaitParamsSchema = Type.Object({
  runId: NonEmptyString(),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 24 * 60 * 60 * 1000, description: "Default 30000." })),
});
export type AgentWaitParams = Static<typeof AgentWaitParamsSchema>;

export const WaitResultSchema = Type.Object(
  {
    runId: Type.String(),
    status: StringEnum(["ok", "error", "timeout"] as const),
    startedAt: Type.Optional(Timestamp()),
    endedAt: Type.Optional(Timestamp()),
    error: Type.Optional(Type.String()),
    interrupted: Type.Optional(Type.Boolean({ description: "The run was cut by a gateway restart." })),
  },
  { description: "`timeout` without endedAt: the wait expired; with endedAt: the run itself timed out." },
);
export type WaitResult = Static<typeof WaitResultSchema>;

export const OkSchema = Type.Object({ ok: Type.Optional(Type.Boolean()) }, { description: "A bare acknowledgement." });
export const AnyObjectSchema = OpenObject();
