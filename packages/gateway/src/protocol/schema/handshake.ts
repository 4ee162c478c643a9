/** The connect handshake: the challenge, `connect` params and the `hello-ok` answer. */
import { type Static, Type } from "typebox";
import { NonEmptyString, OpenObject, StringEnum, Timestamp } from "./common.js";

export const ConnectChallengeSchema = Type.Object(
  { nonce: NonEmptyString(), ts: Timestamp(), capabilities: Type.Optional(Type.Array(Type.String())) },
  { description: "Event `connect.challenge`, sent unsequenced right after the upgrade." },
);
export type Challenge = Static<typeof ConnectChallengeSchema>;

export const ClientInfoSchema = Type.Object({
  id: NonEmptyString(),
  version: Type.Optional(Type.String()),
  platform: Type.Optional(Type.String()),
  mode: NonEmptyString(),
  displayName: Type.Optional(Type.String()),
  deviceFamily: Type.Optional(Type.String()),
  instanceId: Type.Optional(Type.String()),
});
export type ClientInfo = Static<typeof ClientInfoSchema>;

export const DeviceIdentitySchema = Type.Object(
  {
    id: NonEmptyString({ description: "Hex SHA-256 of the raw public key." }),
    publicKey: NonEmptyString({ description: "Base64url, 32 raw Ed25519 bytes." }),
    signature: NonEmptyString({ description: "Base64url Ed25519 signature of the v3 (or v2) payload." }),
    signedAt: Timestamp(),
    nonce: NonEmptyString({ description: "The challenge's nonce." }),
  },
  { description: "An optional device identity, verified when present." },
);
export type DeviceIdentity = Static<typeof DeviceIdentitySchema>;

export const ROLES = ["operator", "node"] as const;

export const ConnectParamsSchema = Type.Object({
  minProtocol: Type.Integer({ minimum: 0 }),
  maxProtocol: Type.Integer({ minimum: 0 }),
  client: ClientInfoSchema,
  role: Type.Optional(StringEnum(ROLES)),
  scopes: Type.Optional(Type.Array(Type.String())),
  caps: Type.Optional(
    Type.Array(Type.String(), {
      description: "Client capabilities: session-scoped-events, tiller.delta-only, tiller.all-events, …",
    }),
  ),
  commands: Type.Optional(Type.Array(Type.String())),
  permissions: Type.Optional(OpenObject()),
  auth: Type.Optional(
    Type.Object({
      token: Type.Optional(Type.String()),
      password: Type.Optional(Type.String()),
      deviceToken: Type.Optional(Type.String()),
      bootstrapToken: Type.Optional(Type.String()),
    }),
  ),
  device: Type.Optional(DeviceIdentitySchema),
  locale: Type.Optional(Type.String()),
  userAgent: Type.Optional(Type.String()),
});
export type ConnectParams = Static<typeof ConnectParamsSchema>;

export const HelloOkSchema = Type.Object(
  {
    type: Type.Literal("hello-ok"),
    protocol: Type.Integer({ minimum: 3 }),
    server: Type.Object({ version: Type.String(), connId: Type.String() }),
    features: Type.Object({
      methods: Type.Array(Type.String(), { description: "Every method this gateway serves." }),
      events: Type.Array(Type.String()),
    }),
    snapshot: Type.Object({
      presence: Type.Array(Type.Unknown()),
      health: Type.Unknown(),
      stateVersion: Type.Object({ presence: Type.Integer(), health: Type.Integer() }),
      uptimeMs: Type.Integer({ minimum: 0 }),
      stateDir: Type.Optional(Type.String()),
    }),
    auth: Type.Optional(
      Type.Object({
        role: Type.String(),
        scopes: Type.Array(Type.String()),
        deviceToken: Type.Optional(Type.String()),
      }),
    ),
    policy: Type.Object({
      maxPayload: Type.Integer({ minimum: 0 }),
      maxBufferedBytes: Type.Integer({ minimum: 0 }),
      tickIntervalMs: Type.Integer({ minimum: 1 }),
    }),
  },
  { description: "The payload of the `connect` response." },
);
export type HelloOk = Static<typeof HelloOkSchema>;
