/** `health`, `status`, `agents.list`, `models.list`. */
import { type Static, Type } from "typebox";
import { OpenObject, Timestamp } from "./common.js";

export const EmptyParamsSchema = Type.Object({}, { description: "No params (extra keys are ignored)." });

const RecentSessionSchema = Type.Object({
  key: Type.String(),
  updatedAt: Timestamp(),
  age: Type.Number({ minimum: 0 }),
  sessionId: Type.Optional(Type.String()),
});
const SessionSummarySchema = Type.Object({
  path: Type.String(),
  count: Type.Integer({ minimum: 0 }),
  recent: Type.Array(RecentSessionSchema),
});

export const HealthResultSchema = Type.Object(
  {
    ok: Type.Boolean(),
    ts: Timestamp(),
    durationMs: Type.Number({ minimum: 0 }),
    channels: OpenObject(),
    channelOrder: Type.Array(Type.String()),
    channelLabels: OpenObject(),
    heartbeatSeconds: Type.Number(),
    defaultAgentId: Type.String(),
    agents: Type.Array(
      Type.Object({
        agentId: Type.String(),
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        isDefault: Type.Boolean(),
        heartbeat: Type.Object({
          enabled: Type.Boolean(),
          every: Type.String(),
          everyMs: Type.Union([Type.Number(), Type.Null()]),
        }),
        sessions: SessionSummarySchema,
      }),
    ),
    sessions: SessionSummarySchema,
  },
  { description: "The reference's health summary (`openclaw health` prints it)." },
);
export type HealthResult = Static<typeof HealthResultSchema>;

export const StatusResultSchema = Type.Object(
  {
    ok: Type.Boolean(),
    version: Type.String(),
    uptimeMs: Type.Number({ minimum: 0 }),
    defaultModel: Type.String(),
    offline: Type.Boolean(),
    activeRuns: Type.Array(
      Type.Object({
        runId: Type.String(),
        sessionKey: Type.String(),
        status: Type.String(),
        acceptedAt: Timestamp(),
        startedAt: Type.Optional(Timestamp()),
      }),
    ),
    lanes: Type.Unknown({ description: "Busy lanes and their queue depth." }),
    sessions: Type.Unknown({ description: "Session count (and, where present, open transcript writers)." }),
    recoveredInterruptedRuns: Type.Integer({ minimum: 0 }),
  },
  { description: "Gateway status. Other modules may add fields." },
);
export type StatusResult = Static<typeof StatusResultSchema>;

export const AgentsListResultSchema = Type.Object({
  defaultId: Type.String(),
  mainKey: Type.String(),
  scope: Type.String(),
  ownership: Type.Optional(Type.String()),
  agents: Type.Array(
    Type.Object({ id: Type.String(), name: Type.Optional(Type.String()), model: Type.Optional(Type.String()) }),
  ),
});
export type AgentsListResult = Static<typeof AgentsListResultSchema>;

export const ModelsListResultSchema = Type.Object({
  defaultModel: Type.String(),
  models: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      provider: Type.String(),
      ref: Type.String(),
      api: Type.String(),
      contextWindow: Type.Number(),
      maxTokens: Type.Number(),
      reasoning: Type.Boolean(),
      input: Type.Array(Type.String()),
    }),
  ),
});
export type ModelsListResult = Static<typeof ModelsListResultSchema>;
