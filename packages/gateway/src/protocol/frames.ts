/**
 * Wire frames of the OpenClaw-compatible gateway protocol: JSON text frames of three kinds.
 * Shapes match the frames captured from the reference CLI (research/openclaw-wire).
 */

/** Highest protocol the gateway speaks; clients send min/max and the overlap must contain one of ours. */
export const PROTOCOL_VERSION = 4;
/** Oldest protocol still accepted (v3 clients: nodes and older apps). */
export const MIN_PROTOCOL_VERSION = 3;
export const SERVER_VERSION = "0.1.0";

/** The reference's error codes; the specific reason goes in `details.code`. */
export type ErrorCode =
  | "INVALID_REQUEST"
  | "UNAVAILABLE"
  | "AGENT_TIMEOUT"
  | "NOT_LINKED"
  | "NOT_PAIRED"
  | "APPROVAL_NOT_FOUND";

/** `details.code` values the reference clients recognize. */
export type ErrorDetailCode =
  | "AUTH_TOKEN_MISMATCH"
  | "AUTH_TOKEN_MISSING"
  | "AUTH_PASSWORD_MISMATCH"
  | "PROTOCOL_MISMATCH"
  | "HANDSHAKE_REQUIRED"
  | "DEVICE_AUTH_INVALID"
  | "DEVICE_AUTH_NONCE_MISMATCH"
  | "SCOPE_DENIED"
  | "METHOD_NOT_FOUND"
  | "INVALID_PARAMS"
  | "INVALID_FRAME"
  | "PAYLOAD_TOO_LARGE";

export interface ErrorShape {
  code: ErrorCode;
  message: string;
  details?: { code?: ErrorDetailCode | string; [key: string]: unknown };
  retryable?: boolean;
  retryAfterMs?: number;
}

export interface RequestFrame {
  type: "req";
  id: string;
  method: string;
  params?: unknown;
}

export interface ResponseFrame {
  type: "res";
  id: string;
  ok: boolean;
  payload?: unknown;
  error?: ErrorShape;
}

export interface EventFrame {
  type: "event";
  event: string;
  payload?: unknown;
  /** Per connection, +1 per event sent; absent on connect.challenge and tick. */
  seq?: number;
}

/** An error a method handler throws to answer with `ok:false` (anything else becomes UNAVAILABLE). */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorShape["details"],
    readonly retryable?: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "GatewayError";
  }

  toShape(): ErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.retryable !== undefined ? { retryable: this.retryable } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
    };
  }
}

export function errorShapeOf(err: unknown): ErrorShape {
  if (err instanceof GatewayError) return err.toShape();
  const message = err instanceof Error ? err.message : String(err);
  return { code: "UNAVAILABLE", message: message || "internal error" };
}

export function okResponse(id: string, payload: unknown): ResponseFrame {
  return { type: "res", id, ok: true, payload };
}

export function errorResponse(id: string, error: ErrorShape, payload?: unknown): ResponseFrame {
  return payload === undefined ? { type: "res", id, ok: false, error } : { type: "res", id, ok: false, payload, error };
}

export type ParsedFrame = { ok: true; frame: RequestFrame } | { ok: false; id?: string; error: ErrorShape };

/**
 * Parses one text frame from a client. Only `req` frames are valid client → server; anything else is an
 * INVALID_REQUEST naming what is wrong (the id is echoed when one could be read).
 */
export function parseClientFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, error: invalid(`frame is not valid JSON: ${why}`, "INVALID_FRAME") };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: invalid("frame must be a JSON object", "INVALID_FRAME") };
  }
  const o = value as Record<string, unknown>;
  const id = typeof o.id === "string" && o.id.length > 0 ? o.id : undefined;
  if (o.type !== "req") {
    return {
      ok: false,
      id,
      error: invalid(`frame type must be "req", got ${JSON.stringify(o.type)}`, "INVALID_FRAME"),
    };
  }
  if (!id) return { ok: false, error: invalid("req frame needs a non-empty string id", "INVALID_FRAME") };
  if (typeof o.method !== "string" || o.method.length === 0) {
    return { ok: false, id, error: invalid("req frame needs a non-empty string method", "INVALID_FRAME") };
  }
  return { ok: true, frame: { type: "req", id, method: o.method, params: o.params } };
}

function invalid(message: string, detail: ErrorDetailCode): ErrorShape {
  return { code: "INVALID_REQUEST", message, details: { code: detail } };
}
