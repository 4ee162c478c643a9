/** How a run that did not end ok is told to an HTTP client (status and OpenAI error type). */
import { HttpApiError } from "./errors.js";
import type { RunReply } from "./types.js";

/** error → 502, timeout → 504, aborted (by /stop, an interrupt or shutdown) → 409. */
export function runFailure(reply: RunReply): HttpApiError {
  const message = reply.error ?? reply.status;
  if (reply.status === "timeout") return new HttpApiError(504, message, "timeout_error", "run_timeout");
  if (reply.status === "aborted") return new HttpApiError(409, message, "run_aborted", "run_aborted");
  return new HttpApiError(502, message, "api_error", "run_failed");
}
