/** WebChat methods: `chat.send`, `chat.history`, `chat.abort`. */
import { type Static, Type } from "typebox";
import { MessageQueueModeSchema, RunUsageSchema } from "./agent.js";
import { NonEmptyString, StringEnum, Timestamp } from "./common.js";

export const ChatSendParamsSchema = Type.Object({
  sessionKey: NonEmptyString(),
  message: NonEmptyString(),
  idempotencyKey: NonEmptyString({ maxLength: 200 }),
  thinking: Type.Optional(Type.String()),
  queueMode: Type.Optional(MessageQueueModeSchema),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
  deliver: Type.Optional(Type.Boolean()),
});
export type ChatSendParams = Static<typeof ChatSendParamsSchema>;

export const ChatSendResultSchema = Type.Object(
  {
    runId: Type.String(),
    status: StringEnum(["started", "in_flight", "ok", "error", "timeout", "done"] as const),
    summary: Type.Optional(Type.String()),
    cached: Type.Optional(Type.Boolean()),
  },
  { description: "First {status:started} (or in_flight / a cached end for a retried key), then the run's end." },
);
export type ChatSendResult = Static<typeof ChatSendResultSchema>;

export const ChatHistoryParamsSchema = Type.Object({
  sessionKey: NonEmptyString(),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: "Messages per page (default 200), newest last." }),
  ),
  before: Type.Optional(
    NonEmptyString({
      maxLength: 200,
      description:
        "A previous page's `cursor`: the page of messages just older than that page. Absent: the newest page. " +
        "A cursor from before a reset or compaction is refused (details.reason `history-changed`): fetch the newest page.",
    }),
  ),
  maxChars: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type ChatHistoryParams = Static<typeof ChatHistoryParamsSchema>;

export const HistoryMessageSchema = Type.Object({
  role: StringEnum(["user", "assistant", "toolResult"] as const),
  content: Type.Unknown(),
  timestamp: Type.Optional(Timestamp()),
  stopReason: Type.Optional(Type.String()),
  toolCallId: Type.Optional(Type.String({ description: "toolResult: the assistant's tool call it answers." })),
  toolName: Type.Optional(Type.String({ description: "toolResult: the tool that ran." })),
  isError: Type.Optional(Type.Boolean({ description: "toolResult: the tool failed." })),
  /** assistant: the tokens and estimated dollars of the model call that wrote it. */
  usage: Type.Optional(RunUsageSchema),
});
export type HistoryMessage = Static<typeof HistoryMessageSchema>;

export const ChatHistoryResultSchema = Type.Object({
  sessionKey: Type.String(),
  sessionId: Type.Optional(Type.String()),
  messages: Type.Array(HistoryMessageSchema),
  hasMore: Type.Optional(Type.Boolean({ description: "Older messages exist: pass `cursor` as `before`." })),
  cursor: Type.Optional(Type.String({ description: "Opaque; present when `hasMore`." })),
});
export type ChatHistoryResult = Static<typeof ChatHistoryResultSchema>;

export const ChatAbortParamsSchema = Type.Object({
  sessionKey: NonEmptyString(),
  runId: Type.Optional(Type.String()),
  agentId: Type.Optional(Type.String()),
});
export type ChatAbortParams = Static<typeof ChatAbortParamsSchema>;

export const ChatAbortResultSchema = Type.Object({
  ok: Type.Boolean(),
  aborted: Type.Boolean(),
  runIds: Type.Array(Type.String()),
});
export type ChatAbortResult = Static<typeof ChatAbortResultSchema>;
