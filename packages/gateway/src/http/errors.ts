/** OpenAI's error shape (`{"error": {"message", "type", "code", "param"}}`) and the JSON response helpers. */
import type { ServerResponse } from "node:http";

/** A request that ends with an HTTP error in OpenAI's shape. */
export class HttpApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
    /** The request field at fault (400s). */
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function badRequest(message: string, param: string | null = null, code = "invalid_value"): HttpApiError {
  return new HttpApiError(400, message, "invalid_request_error", code, param);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The error body: OpenAI's `{error: {message, type, param, code}}`. */
export function errorBody(err: HttpApiError): { error: Record<string, unknown> } {
  return { error: { message: err.message, type: err.type, param: err.param, code: err.code } };
}

export function sendError(res: ServerResponse, err: HttpApiError): void {
  sendJson(res, err.status, errorBody(err), err.headers);
}
