/**
 * The three frame kinds of the OpenClaw-compatible protocol (JSON text frames) and the error shape of a
 * failed response. Shapes match the frames captured from the reference CLI (research/openclaw-wire).
 */
import { type Static, Type } from "typebox";
import { NonEmptyString, OpenObject, StringEnum } from "./common.js";

/** The reference's error codes; the specific reason goes in `details.code`. */
export const ERROR_CODES = [
  "INVALID_REQUEST",
  "UNAVAILABLE",
  "AGENT_TIMEOUT",
  "NOT_LINKED",
  "NOT_PAIRED",
  "APPROVAL_NOT_FOUND",
] as const;
export const ErrorCodeSchema = StringEnum(ERROR_CODES, { description: "The reference's top-level error code." });
export type ErrorCode = Static<typeof ErrorCodeSchema>;

/** `details.code` values the reference clients recognize, plus the gateway's own. */
export const ERROR_DETAIL_CODES = [
  "AUTH_TOKEN_MISMATCH",
  "AUTH_TOKEN_MISSING",
  "AUTH_PASSWORD_MISMATCH",
  "PROTOCOL_MISMATCH",
  "HANDSHAKE_REQUIRED",
  "DEVICE_AUTH_INVALID",
  "DEVICE_AUTH_NONCE_MISMATCH",
  "SCOPE_DENIED",
  "METHOD_NOT_FOUND",
  "INVALID_PARAMS",
  "INVALID_FRAME",
  "PAYLOAD_TOO_LARGE",
  "SESSION_NOT_FOUND",
  "SESSION_BUSY",
] as const;
export const ErrorDetailCodeSchema = StringEnum(ERROR_DETAIL_CODES);
export type ErrorDetailCode = Static<typeof ErrorDetailCodeSchema>;

export const ErrorShapeSchema = Type.Object(
  {
    code: ErrorCodeSchema,
    message: NonEmptyString(),
    details: Type.Optional(
      Type.Intersect([Type.Object({ code: Type.Optional(Type.String()) }), OpenObject()], {
        description: "`code` names the specific reason (ERROR_DETAIL_CODES); other keys explain it.",
      }),
    ),
    retryable: Type.Optional(Type.Boolean()),
    retryAfterMs: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { description: "Why a request failed." },
);
export type ErrorShape = Static<typeof ErrorShapeSchema>;

export const RequestFrameSchema = Type.Object(
  {
    type: Type.Literal("req"),
    id: NonEmptyString({ description: 'Echoed on every response; the reference CLI sends "<n>:<uuid>".' }),
    method: NonEmptyString(),
    params: Type.Optional(Type.Unknown()),
  },
  { description: "Client → server." },
);
export type RequestFrame = Static<typeof RequestFrameSchema>;

export const ResponseFrameSchema = Type.Object(
  {
    type: Type.Literal("res"),
    id: NonEmptyString(),
    ok: Type.Boolean(),
    payload: Type.Optional(Type.Unknown()),
    error: Type.Optional(ErrorShapeSchema),
  },
  { description: "Server → client. `agent` and `chat.send` answer twice on the same id (accepted, then final)." },
);
export type ResponseFrame = Static<typeof ResponseFrameSchema>;

export const EventFrameSchema = Type.Object(
  {
    type: Type.Literal("event"),
    event: NonEmptyString(),
    payload: Type.Optional(Type.Unknown()),
    seq: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "Per connection, +1 per event sent; absent on connect.challenge, tick and shutdown.",
      }),
    ),
    stateVersion: Type.Optional(Type.Unknown()),
  },
  { description: "Server → client." },
);
export type EventFrame = Static<typeof EventFrameSchema>;

export const FrameSchema = Type.Union([RequestFrameSchema, ResponseFrameSchema, EventFrameSchema]);
export type Frame = Static<typeof FrameSchema>;
