/**
 * Which PostgreSQL failures are worth retrying: the server restarting or not reachable for a moment, a
 * connection cut, a serialization failure or deadlock. Everything else (bad SQL, constraint violations) is a
 * real error and is thrown at once.
 */

/** SQLSTATE codes that mean "try again". */
const TRANSIENT_SQLSTATES = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "53300", // too_many_connections
  "57P01", // admin_shutdown (fast/smart shutdown cut this connection)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up / shutting down)
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

const TRANSIENT_NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOENT"]);

/** node-postgres reports a cut connection by message only. */
const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /connection (?:is )?closed/i,
  /client has encountered a connection error/i,
  /timeout exceeded when trying to connect/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /not queryable/i,
  /query read timeout/i,
];

export function isTransientPgError(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && TRANSIENT_MESSAGES.some((re) => re.test(message));
}

/** Delay before attempt `n` (0-based): 50 ms doubling to 1 s, with jitter so nodes do not retry in step. */
export function retryDelayMs(attempt: number): number {
  const base = Math.min(1000, 50 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
