/**
 * `$TILLER_HOME/tiller.json`, defined once as a TypeBox schema: validation (errors name the file and the dotted
 * key) and the documented defaults. Sections other modules own (tools, plugins, hooks, skills, …) are open
 * objects here; those modules read them from `TillerConfig.raw`.
 */
import { type Static, type TSchema, Type } from "typebox";
import { NonEmptyString, OpenObject, StringEnum } from "../protocol/schema/common.js";
import { DROP_POLICIES, QUEUE_MODES, THINKING_SETTINGS } from "../protocol/schema/sessions.js";

/** An integer in min..max; `expected` words the rule as errors state it. */
const Int = (min: number, max?: number, extra: Record<string, unknown> = {}) =>
  Type.Integer({ minimum: min, ...(max !== undefined ? { maximum: max } : {}), ...extra });

/** A section other modules read: any keys. */
const Open = (description: string) => Type.Optional(OpenObject(description));

const HttpEndpoint = Type.Object(
  { enabled: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);

export const GatewaySectionSchema = Type.Object(
  {
    port: Type.Optional(Int(0, 65535, { default: 18789 })),
    bind: Type.Optional(Type.String({ default: "127.0.0.1" })),
    auth: Type.Optional(
      Type.Object(
        {
          token: Type.Optional(Type.Union([NonEmptyString(), Type.Null()])),
          password: Type.Optional(Type.Union([NonEmptyString(), Type.Null()])),
          mode: Type.Optional(Type.String()),
          /** Failed-auth limiter of the HTTP API: maxAttempts per windowMs, then lockoutMs of 429. */
          rateLimit: Type.Optional(
            Type.Object(
              {
                maxAttempts: Type.Optional(Int(1, 1_000_000, { default: 10 })),
                windowMs: Type.Optional(Int(1, undefined, { default: 60_000 })),
                lockoutMs: Type.Optional(Int(1, undefined, { default: 300_000 })),
                exemptLoopback: Type.Optional(Type.Boolean({ default: false })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /** The OpenAI-compatible HTTP API (src/http): every endpoint is off unless enabled. */
    http: Type.Optional(
      Type.Object(
        {
          endpoints: Type.Optional(
            Type.Object(
              {
                chatCompletions: Type.Optional(HttpEndpoint),
                responses: Type.Optional(HttpEndpoint),
              },
              { additionalProperties: false },
            ),
          ),
          maxBodyBytes: Type.Optional(Int(1024, undefined, { default: 20 * 1024 * 1024 })),
        },
        { additionalProperties: false },
      ),
    ),
    maxPayloadBytes: Type.Optional(Int(1024, undefined, { default: 25 * 1024 * 1024 })),
    maxBufferedBytes: Type.Optional(Int(1024, undefined, { default: 50 * 1024 * 1024 })),
    tickIntervalMs: Type.Optional(Int(10, undefined, { default: 30_000 })),
    /** A cluster of gateway processes on one PostgreSQL (src/cluster); unset: single-node. */
    cluster: Type.Optional(
      Type.Object(
        {
          postgres: Type.Optional(
            Type.String({
              description:
                "PostgreSQL URL (postgres://user:pass@host:5432/db) shared by every gateway of the cluster; TILLER_CLUSTER_URL overrides it",
            }),
          ),
          nodeId: Type.Optional(
            NonEmptyString({
              description:
                "This gateway's stable name in the cluster (default host:pid:random); a restart under the same name ends the runs the old process held at once",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ModelSettingSchema = Type.Union(
  [
    Type.String(),
    Type.Object(
      {
        primary: Type.Optional(Type.String()),
        fallbacks: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: "\\S" }))),
      },
      { additionalProperties: false },
    ),
  ],
  { expected: '"provider/model" or {primary, fallbacks}' },
);

export const AgentDefaultsSchema = Type.Object({
  model: Type.Optional(ModelSettingSchema),
  thinking: Type.Optional(StringEnum(THINKING_SETTINGS)),
  verbose: Type.Optional(Type.Boolean()),
  timeoutSeconds: Type.Optional(Int(1)),
  maxConcurrent: Type.Optional(Int(1, 10_000)),
  subagentMaxConcurrent: Type.Optional(Int(1, 10_000)),
  cronMaxConcurrent: Type.Optional(Int(1, 10_000)),
  workspace: Type.Optional(Type.String()),
  blockStreaming: Open("{ minChars, maxChars, breakPreference, break } (reply shaping)"),
  reasoning: Type.Optional(StringEnum(["off", "on", "stream"] as const)),
  enforceFinalTag: Type.Optional(Type.Boolean()),
  sandbox: Open("{ mode, scope, workspaceAccess } (workspace.ts)"),
  heartbeat: Open("{ enabled }"),
});

export const AgentEntrySchema = Type.Object({
  id: Type.String({ pattern: "^[a-zA-Z0-9][a-zA-Z0-9_-]*$", expected: "an id of letters, digits, - or _" }),
  name: Type.Optional(NonEmptyString()),
  model: Type.Optional(NonEmptyString()),
  workspace: Type.Optional(NonEmptyString()),
  tools: Open("per-agent tool policy"),
});

export const TillerConfigSchema = Type.Object(
  {
    gateway: Type.Optional(GatewaySectionSchema),
    agents: Type.Optional(
      Type.Object({ defaults: Type.Optional(AgentDefaultsSchema), list: Type.Optional(Type.Array(AgentEntrySchema)) }),
    ),
    messages: Type.Optional(
      Type.Object({
        queue: Type.Optional(
          Type.Object(
            {
              mode: Type.Optional(StringEnum(QUEUE_MODES)),
              debounceMs: Type.Optional(Int(0, 600_000)),
              cap: Type.Optional(Int(1, 10_000)),
              drop: Type.Optional(StringEnum(DROP_POLICIES)),
            },
            { additionalProperties: false },
          ),
        ),
      }),
    ),
    tools: Open("tool policy: enabled, profile, allow, deny, byProvider, group, sandbox"),
    plugins: Open("plugins.load, plugins.entries"),
    hooks: Open("hooks.load, hooks.entries"),
    skills: Open("skills.load, skills.entries"),
  },
  { description: "$TILLER_HOME/tiller.json (JSON with comments). Unknown top-level sections are kept for modules." },
);
export type TillerConfigFile = Static<typeof TillerConfigSchema>;

/** For the JSON Schema document: every schema of the file. */
export const CONFIG_SCHEMAS: Record<string, TSchema> = { tillerJson: TillerConfigSchema };
