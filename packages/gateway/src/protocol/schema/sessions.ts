/** Session methods: list, describe, patch, reset, delete, compact and the event subscriptions. */
import { type Static, Type } from "typebox";
import { NonEmptyString, Nullable, StringEnum, Timestamp } from "./common.js";

export const QUEUE_MODES = ["steer", "followup", "collect", "interrupt"] as const;
export const DROP_POLICIES = ["old", "new", "summarize"] as const;
export const THINKING_SETTINGS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

export const SessionRowSchema = Type.Object(
  {
    key: Type.String(),
    agentId: Type.String(),
    sessionId: Type.String(),
    sessionFile: Type.Optional(Type.String()),
    label: Type.Optional(Type.String()),
    modelProvider: Type.Optional(Type.String({ description: "Provider of the model the session runs on." })),
    model: Type.Optional(Type.String({ description: "Id of the model the session runs on (override or default)." })),
    modelOverride: Type.Optional(Type.String({ description: '"provider/id" set with sessions.patch, if any.' })),
    thinkingLevel: Type.Optional(Type.String()),
    verboseLevel: Type.Optional(StringEnum(["on", "off"] as const)),
    queueMode: Type.Optional(StringEnum(QUEUE_MODES)),
    queueDebounceMs: Type.Optional(Type.Integer({ minimum: 0 })),
    queueCap: Type.Optional(Type.Integer({ minimum: 1 })),
    queueDrop: Type.Optional(StringEnum(DROP_POLICIES)),
    inputTokens: Type.Number({ description: "Input tokens of every run so far." }),
    outputTokens: Type.Number({ description: "Output tokens of every run so far." }),
    totalTokens: Type.Number({ description: "Tokens in the context after the last run (prompt + reply)." }),
    totalTokensFresh: Type.Optional(Type.Boolean()),
    contextTokens: Type.Optional(Type.Number({ description: "The model's context window." })),
    estimatedCostUsd: Type.Optional(
      Type.Number({ minimum: 0, description: "Estimated dollars of every run so far, from the models' pricing." }),
    ),
    compactionCount: Type.Integer({ minimum: 0 }),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    lastRun: Type.Optional(Type.Object({ runId: Type.String(), status: Type.Optional(Type.String()) })),
    activeRunId: Type.Optional(Type.String()),
    queued: Type.Integer({ minimum: 0 }),
  },
  { description: "A session row as clients see it (names follow the reference's SessionEntry)." },
);
export type SessionRow = Static<typeof SessionRowSchema>;

export const SessionDefaultsSchema = Type.Object({
  modelProvider: Type.String(),
  model: Type.String(),
  contextTokens: Type.Optional(Type.Number()),
});

export const SessionsListParamsSchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  agentId: Type.Optional(Type.String()),
  label: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
});
export type SessionsListParams = Static<typeof SessionsListParamsSchema>;

export const SessionsListResultSchema = Type.Object({
  ts: Timestamp(),
  path: Type.String(),
  count: Type.Integer({ minimum: 0 }),
  defaults: SessionDefaultsSchema,
  sessions: Type.Array(SessionRowSchema),
});
export type SessionsListResult = Static<typeof SessionsListResultSchema>;

/** Params naming one session: `key` (the reference's name) or `sessionKey`. */
export const SessionKeyParamsSchema = Type.Object({
  key: Type.Optional(NonEmptyString()),
  sessionKey: Type.Optional(NonEmptyString()),
});
export type SessionKeyParams = Static<typeof SessionKeyParamsSchema>;

export const SessionsDescribeResultSchema = Type.Object(
  { session: Nullable(SessionRowSchema) },
  { description: "`session: null` when the key names no session." },
);
export type SessionsDescribeResult = Static<typeof SessionsDescribeResultSchema>;

export const SessionsEntryResultSchema = Type.Object({
  ok: Type.Boolean(),
  key: Type.String(),
  entry: Type.Optional(SessionRowSchema),
});
export type SessionsEntryResult = Static<typeof SessionsEntryResultSchema>;

export const SessionsResetParamsSchema = Type.Intersect([
  SessionKeyParamsSchema,
  Type.Object({ reason: Type.Optional(StringEnum(["new", "reset"] as const)) }),
]);

export const SessionsDeleteParamsSchema = Type.Intersect([
  SessionKeyParamsSchema,
  Type.Object({ deleteTranscript: Type.Optional(Type.Boolean()) }),
]);
export type SessionsDeleteParams = Static<typeof SessionsDeleteParamsSchema>;

export const SessionsDeleteResultSchema = Type.Object({
  ok: Type.Boolean(),
  key: Type.String(),
  deleted: Type.Boolean(),
  archived: Type.Optional(Type.String()),
});

export const SessionsCompactResultSchema = Type.Object({
  ok: Type.Boolean(),
  key: Type.String(),
  compacted: Type.Boolean(),
  tokensBefore: Type.Optional(Type.Number()),
  reason: Type.Optional(Type.String()),
});
export type SessionsCompactResult = Static<typeof SessionsCompactResultSchema>;

export const SessionsPatchParamsSchema = Type.Intersect([
  SessionKeyParamsSchema,
  Type.Object(
    {
      label: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
      model: Type.Optional(Nullable(Type.String())),
      thinkingLevel: Type.Optional(Nullable(StringEnum(THINKING_SETTINGS))),
      verboseLevel: Type.Optional(Nullable(StringEnum(["on", "off", "full"] as const))),
      queueMode: Type.Optional(Nullable(StringEnum(QUEUE_MODES))),
      queueDebounceMs: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
      queueCap: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
      queueDrop: Type.Optional(Nullable(StringEnum(DROP_POLICIES))),
    },
    { description: "null clears a field." },
  ),
]);
export type SessionsPatchParams = Static<typeof SessionsPatchParamsSchema>;

export const SessionsSubscribeParamsSchema = Type.Object({
  key: Type.Optional(Type.String({ description: "Absent or empty: every session." })),
});
export type SessionsSubscribeParams = Static<typeof SessionsSubscribeParamsSchema>;

export const SessionsSubscribeResultSchema = Type.Object({ ok: Type.Boolean(), subscribed: Type.String() });
export type SessionsSubscribeResult = Static<typeof SessionsSubscribeResultSchema>;

export const SessionsUnsubscribeResultSchema = Type.Object({ ok: Type.Boolean(), unsubscribed: Type.String() });
export type SessionsUnsubscribeResult = Static<typeof SessionsUnsubscribeResultSchema>;
