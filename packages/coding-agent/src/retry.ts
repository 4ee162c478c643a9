/**
 * Automatic retry policy of AgentSession: which failed turns are retried and after how long. The class comes
 * from @tiller/ai `classifyError`: rate limits, overload (incl. 5xx), network failures and timeouts are retried;
 * context overflow (compaction handles it), auth, billing, quota, malformed requests and aborts never are.
 * Backoff doubles from `baseDelayMs`, capped at `maxDelayMs`; a longer Retry-After from the provider wins.
 */
import { type AssistantMessage, classifyError, type ErrorClassification } from "@tiller/ai";
import type { RetrySettings } from "./settings/schema.js";

/** The classification of a failed turn, or undefined when it did not fail (aborts are not failures). */
export function classifyFailure(message: AssistantMessage): ErrorClassification | undefined {
  if (message.stopReason !== "error") return undefined;
  return classifyError(message);
}

/** True when the failed turn should be retried automatically. */
export function isRetryableFailure(message: AssistantMessage): boolean {
  const c = classifyFailure(message);
  return c?.retryable === true && c.class !== "context_overflow";
}

/** Delay before retry number `attempt` (1-based). */
export function retryDelayMs(attempt: number, settings: RetrySettings, retryAfterMs?: number): number {
  const backoff = Math.min(settings.baseDelayMs * 2 ** Math.max(0, attempt - 1), settings.maxDelayMs);
  return retryAfterMs !== undefined && retryAfterMs > backoff ? Math.min(retryAfterMs, settings.maxDelayMs) : backoff;
}

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DOMException("Retry aborted", "AbortError"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DOMException("Retry aborted", "AbortError"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
