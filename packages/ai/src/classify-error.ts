/**
 * One vocabulary for failures across vendors, so retry, credential rotation and failover can decide without
 * knowing which SDK produced the error. Classification reads, in order: specific vendor phrasings, then the
 * HTTP status, then generic request-format hints.
 */
import { isContextOverflow, isContextOverflowText } from "./overflow.js";
import type { AssistantMessage, ErrorClass, ErrorClassification } from "./types.js";

/** Header bag as SDKs expose it: a plain record or a fetch `Headers`-like object. */
export type HeaderSource = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/** Anything `classifyError` accepts besides a string, an Error or an AssistantMessage. */
export interface ErrorLike {
  status?: number;
  message?: string;
  headers?: HeaderSource;
}

export type ClassifiableError = string | Error | AssistantMessage | ErrorLike;

const RETRYABLE: ReadonlySet<ErrorClass> = new Set(["rate_limit", "overloaded", "timeout", "network"]);

/** Phrasings per class, checked in this order (earlier classes are more specific). */
const TEXT_RULES: [ErrorClass, RegExp][] = [
  // Billing: the account cannot pay (Anthropic "credit balance is too low", DeepSeek "Insufficient Balance",
  // OpenRouter "Insufficient credits", OpenAI "billing_hard_limit_reached"/"billing_not_active").
  [
    "billing",
    /credit balance|insufficient (?:balance|credits?|funds)|payment required|billing[_ ](?:hard[_ ])?limit|billing_not_active|purchase (?:more )?credits|add (?:more )?credits|account is not active|past due/i,
  ],
  // Auth: OpenAI "Incorrect API key provided", Anthropic authentication_error/"invalid x-api-key",
  // Gemini "API key not valid" (sent with HTTP 400), permission errors, expired OAuth tokens.
  [
    "auth",
    /invalid[_ ](?:x-)?api[_ -]?key|incorrect api key|api key not valid|api_key_invalid|authentication_error|authentication failed|unauthori[sz]ed|permission_error|permission_denied|permission denied|invalid[_ ](?:bearer|auth(?:entication)?)[_ ]token|(?:token|key) (?:has )?(?:expired|been revoked)|(?:no|missing) api key|api key (?:is )?(?:missing|required)/i,
  ],
  // Quota: a usage allowance is used up (OpenAI insufficient_quota, Gemini RESOURCE_EXHAUSTED quota).
  ["quota", /insufficient_quota|exceeded your current quota|quota (?:exceeded|exhausted)|out of quota|usage limit/i],
  // Rate limit: Anthropic rate_limit_error, OpenAI "Rate limit reached", generic 429 texts, Bedrock throttling.
  ["rate_limit", /rate[_ ]?limit|too many requests|throttl|resource_exhausted|requests per (?:min|minute)/i],
  // Overloaded: Anthropic 529 overloaded_error, Gemini UNAVAILABLE "The model is overloaded", capacity.
  [
    "overloaded",
    /overloaded|service unavailable|\bunavailable\b|server is busy|at capacity|no capacity|temporarily unavailable|internal server error|bad gateway/i,
  ],
  ["timeout", /timed? ?out|timeout|deadline[_ ]exceeded|ETIMEDOUT|UND_ERR_(?:CONNECT|HEADERS|BODY)_TIMEOUT/i],
  [
    "network",
    /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|fetch failed|socket hang up|network error|connection (?:error|refused|reset|closed)|other side closed|terminated|UND_ERR_SOCKET|premature close/i,
  ],
];

const FORMAT_TEXT =
  /invalid_request_error|invalid_argument|invalid request|bad request|malformed|invalid json|unexpected token|validation error|schema|unprocessable|model[_ ]not[_ ]found|does not exist/i;

function statusClass(status: number): ErrorClass | undefined {
  if (status === 401 || status === 403) return "auth";
  if (status === 402) return "billing";
  if (status === 429) return "rate_limit";
  if (status === 413) return "context_overflow";
  if (status === 408 || status === 504) return "timeout";
  if (status === 500 || status === 502 || status === 503 || status === 529) return "overloaded";
  if (status === 400 || status === 404 || status === 409 || status === 422) return "format";
  return undefined;
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return typeof value === "object" && value !== null && (value as { role?: unknown }).role === "assistant";
}

function readHeader(headers: HeaderSource | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u.startsWith("ms") || u.startsWith("milli")) return 1;
  if (u.startsWith("h")) return UNIT_MS.h as number;
  if (u.startsWith("m")) return UNIT_MS.m as number;
  return 1000;
}

/** Milliseconds from a header: `retry-after-ms`, then `retry-after` as seconds or an HTTP date. */
export function parseRetryAfterHeaders(headers: HeaderSource | undefined, now = Date.now()): number | undefined {
  const ms = readHeader(headers, "retry-after-ms");
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = readHeader(headers, "retry-after");
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Milliseconds from vendor text: "retry after 12s", "Please try again in 1.898s", "try again in 6m0s",
 * "Please retry in 13.5s", Gemini's `"retryDelay": "13s"`, "retry-after: 30".
 */
export function parseRetryAfterText(text: string): number | undefined {
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/i.exec(text);
  if (delay) return Math.round(Number(delay[1]) * 1000);
  const header = /retry-after(?:-ms)?\s*[:=]\s*(\d+(?:\.\d+)?)/i.exec(text);
  if (header) return Math.round(Number(header[1]) * (/retry-after-ms/i.test(header[0]) ? 1 : 1000));
  const phrase = /(?:retry|try again)\s+(?:after|in)\s+((?:\d+(?:\.\d+)?\s*[a-z]+\s*)+)/i.exec(text);
  if (!phrase) return undefined;
  let total = 0;
  let found = false;
  const parts = (phrase[1] as string).matchAll(
    /(\d+(?:\.\d+)?)\s*(milliseconds?|ms|minutes?|mins?|m|hours?|hrs?|h|seconds?|secs?|s)(?![a-z])/gi,
  );
  for (const part of parts) {
    total += Number(part[1]) * unitMs(part[2] as string);
    found = true;
  }
  return found ? Math.round(total) : undefined;
}

function statusFromText(text: string): number | undefined {
  const match =
    /^\s*(?:HTTP\s*)?([45]\d\d)\b/i.exec(text) ??
    /\b(?:status(?: code)?|HTTP)\s*:?\s*([45]\d\d)\b/i.exec(text) ??
    /"code"\s*:\s*([45]\d\d)\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

interface Normalized {
  text: string;
  status?: number;
  retryAfterMs?: number;
  headers?: HeaderSource;
  overflow?: boolean;
}

function numberField(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Collects message, codes and status from an Error and its `cause` chain (SDK and fetch errors). */
function fromError(error: Error): Normalized {
  const parts: string[] = [];
  let status: number | undefined;
  let headers: HeaderSource | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const e = current as Record<string, unknown>;
    for (const key of ["name", "message", "code", "type"]) {
      const v = e[key];
      if (typeof v === "string" && v && v !== "Error") parts.push(v);
    }
    const body = e.error;
    if (body && typeof body === "object") {
      try {
        parts.push(JSON.stringify(body));
      } catch {
        // unserialisable body: the message already carries the essentials
      }
    }
    status ??= numberField(e.status) ?? numberField(e.statusCode) ?? numberField(e.code);
    const response = e.response as Record<string, unknown> | undefined;
    if (response && typeof response === "object") status ??= numberField(response.status);
    if (!headers && e.headers && typeof e.headers === "object") headers = e.headers as HeaderSource;
    current = e.cause;
  }
  return { text: parts.join(" "), status, headers };
}

function normalize(input: ClassifiableError): Normalized {
  if (typeof input === "string") return { text: input };
  if (input instanceof Error) return fromError(input);
  if (isAssistantMessage(input)) {
    return {
      text: input.errorMessage ?? "",
      status: input.errorStatus,
      retryAfterMs: input.retryAfterMs,
      overflow: isContextOverflow(input),
    };
  }
  return { text: typeof input.message === "string" ? input.message : "", status: input.status, headers: input.headers };
}

/**
 * Classifies a failure: a provider's error message, a thrown Error (SDK or network), a failed
 * AssistantMessage (reads `errorStatus`, `errorMessage`, `retryAfterMs`) or a `{status, message, headers}`.
 * `retryAfterMs` comes from the message, then Retry-After headers, then "retry in 12s"-style text.
 */
export function classifyError(input: ClassifiableError): ErrorClassification {
  const n = normalize(input);
  const text = n.text;
  const status = n.status !== undefined && n.status >= 400 && n.status < 600 ? n.status : statusFromText(text);
  const retryAfterMs = n.retryAfterMs ?? parseRetryAfterHeaders(n.headers) ?? parseRetryAfterText(text);

  let cls: ErrorClass | undefined;
  if (n.overflow || isContextOverflowText(text)) cls = "context_overflow";
  for (const [candidate, pattern] of TEXT_RULES) {
    if (cls) break;
    if (pattern.test(text)) cls = candidate;
  }
  // A per-minute quota that names a wait is a rate limit in practice (Gemini free tier: quota + "retry in").
  if (cls === "quota" && retryAfterMs !== undefined && /per ?minute|perminute|retry in|try again in/i.test(text)) {
    cls = "rate_limit";
  }
  if (!cls && status !== undefined) cls = statusClass(status);
  if (!cls && FORMAT_TEXT.test(text)) cls = "format";
  cls ??= "unknown";

  const result: ErrorClassification = { class: cls, retryable: RETRYABLE.has(cls), message: text.trim() };
  if (status !== undefined) result.status = status;
  if (retryAfterMs !== undefined) result.retryAfterMs = retryAfterMs;
  return result;
}
