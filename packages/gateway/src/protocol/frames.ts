/**
 * Runtime helpers for the wire frames (their shapes are in ./schema/frames.ts): protocol versions, the error a
 * handler throws, response builders and the parser of client frames.
 */
import type { ErrorCode, ErrorDetailCode, ErrorShape, RequestFrame, ResponseFrame } from "./schema/frames.js";

/** Highest protocol the gateway speaks; clients send min/max and the overlap must contain one of ours. */
export const PROTOCOL_VERSION = 4;
/** Oldest protocol still accepted (v3 clients: nodes and older apps). */
export const MIN_PROTOCOL_VERSION = 3;
export const SERVER_VERSION = "0.1.0";

export type {
  ErrorCode,
  ErrorDetailCode,
  ErrorShape,
  EventFrame,
  RequestFrame,
  ResponseFrame,
} from "./schema/frames.js";

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
