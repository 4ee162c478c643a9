/**
 * Wraps a run's model call with auth-profile rotation, model failover and thinking-level fallback.
 * A failed try is invisible to the run only when it produced no output yet: its events are held back until
 * the first content event, so a provisional error never reaches the client, the transcript or the run
 * status. A failure after output was streamed is final (retrying would send the reply twice).
 */
import {
  type Api,
  type AssistantMessage,
  type AssistantMessageEvent,
  classifyError,
  createAssistantMessageEventStream,
  createErrorMessage,
  type Model,
  type ModelThinkingLevel,
  type SimpleStreamOptions,
} from "@tiller/ai";
import type { ModelCall } from "../run/run-types.js";
import type { AuthProfileStore } from "./auth-profile-store.js";
import { isFailoverError } from "./failover-error.js";
import { runWithFailover } from "./model-failover.js";
import { isThinkingLevelRejection, pickFallbackThinkingLevel } from "./thinking-fallback.js";
import type { FailoverAttempt, FailoverCandidate } from "./types.js";

export interface FailoverCallOptions {
  /** Fallback models after the run's own, as "provider/id" references already resolved to models. */
  fallbacks: Model<Api>[];
  /**
   * The key for a fallback model of another provider when it has no stored profile (the run's own options
   * carry the primary model's key only). Undefined: the provider's environment key.
   */
  apiKeyFor?: (model: Model<Api>) => string | undefined;
  store?: AuthProfileStore;
  sessionKey?: string;
  preferredProfileId?: string;
  /** Told about each provisional failure (logs, diagnostics). */
  onAttemptFailed?: (attempt: FailoverAttempt) => void;
  /**
   * When every candidate failed transiently (overloaded, network, timeout) before any output, the whole chain
   * is tried again after a backoff: `maxRetries` times, doubling from `baseDelayMs`, capped at `maxDelayMs`
   * (a longer Retry-After, up to the cap, wins). Default: no chain retry.
   */
  retry?: ChainRetry;
  /** Told which model and profile finally answered. */
  onAnswered?: (answer: { provider: string; model: string; profileId?: string }) => void;
}

export interface ChainRetry {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const TRANSIENT = new Set(["overloaded", "network", "timeout"]);

/** Runs `run`; on a FailoverError whose every try failed transiently, waits and runs it again. */
async function withChainRetry<T>(
  retry: ChainRetry | undefined,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const transient =
        isFailoverError(err) && err.attempts.length > 0 && err.attempts.every((a) => TRANSIENT.has(a.reason ?? ""));
      if (!retry || !transient || attempt > retry.maxRetries || signal?.aborted) throw err;
      const backoff = Math.min(retry.baseDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
      const asked = Math.min(err.retryAfterMs ?? 0, retry.maxDelayMs);
      await abortableSleep(Math.max(backoff, asked), signal);
      if (signal?.aborted) throw err;
    }
  }
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

type AttemptEnd =
  | { kind: "done"; message: AssistantMessage; event: AssistantMessageEvent }
  | { kind: "failed"; message: AssistantMessage; forwarded: boolean };

/** Returns a ModelCall that tries `model` (each of its profiles), then each fallback, in order. */
export function withFailover(call: ModelCall, options: FailoverCallOptions): ModelCall {
  return (model, context, callOptions) => {
    const out = createAssistantMessageEventStream();
    const candidates: FailoverCandidate[] = [model, ...options.fallbacks].map((m) => ({
      provider: m.provider,
      model: m.id,
    }));
    const byRef = new Map<string, Model<Api>>();
    for (const m of [model, ...options.fallbacks]) byRef.set(`${m.provider}/${m.id}`, m);
    let lastFailed: AssistantMessage | undefined;

    const tryOnce = async (m: Model<Api>, opts: SimpleStreamOptions | undefined): Promise<AttemptEnd> => {
      const held: AssistantMessageEvent[] = [];
      let forwarded = false;
      for await (const event of call(m, context, opts)) {
        if (event.type === "error") return { kind: "failed", message: event.error, forwarded };
        if (event.type === "done") {
          for (const e of held) out.push(e);
          // The terminal event waits until the store and onAnswered have recorded who answered.
          return { kind: "done", message: event.message, event };
        }
        if (!forwarded && event.type === "start") {
          held.push(event);
          continue;
        }
        if (!forwarded) {
          for (const e of held) out.push(e);
          held.length = 0;
          forwarded = true;
        }
        out.push(event);
      }
      const message = await Promise.resolve(lastFailed ?? ({} as AssistantMessage));
      return {
        kind: "failed",
        message: { ...message, stopReason: "error", errorMessage: "stream ended early" },
        forwarded,
      };
    };

    void (async () => {
      try {
        const answer = await withChainRetry(options.retry, callOptions?.signal, () =>
          runWithFailover<AttemptEnd>({
            candidates,
            store: options.store,
            sessionKey: options.sessionKey,
            preferredProfileId: options.preferredProfileId,
            signal: callOptions?.signal,
            classify: (err) => classifyError(err instanceof Error ? err : String(err)),
            failureOf: (end) => {
              if (end.kind === "done") return undefined;
              lastFailed = end.message;
              // Output already reached the client: this failure is final, not a provisional one.
              if (end.forwarded || end.message.stopReason === "aborted") return undefined;
              return classifyError(end.message);
            },
            onAttemptFailed: options.onAttemptFailed,
            attempt: async ({ provider, model: id, profile }) => {
              const m = byRef.get(`${provider}/${id}`) as Model<Api>;
              const apiKey = profile ? profile.key : m === model ? callOptions?.apiKey : options.apiKeyFor?.(m);
              let opts: SimpleStreamOptions = { ...callOptions, apiKey };
              let end = await tryOnce(m, opts);
              const tried = new Set<ModelThinkingLevel>();
              while (
                end.kind === "failed" &&
                !end.forwarded &&
                opts?.reasoning &&
                isThinkingLevelRejection(end.message.errorMessage ?? "")
              ) {
                const next = pickFallbackThinkingLevel(end.message.errorMessage ?? "", opts.reasoning, tried);
                if (!next) break;
                tried.add(opts.reasoning);
                // "off" means no reasoning option at all: some providers reject any explicit effort value.
                opts = { ...opts, reasoning: next === "off" ? undefined : next };
                end = await tryOnce(m, opts);
              }
              return end;
            },
          }),
        );
        options.onAnswered?.({ provider: answer.provider, model: answer.model, profileId: answer.profileId });
        if (answer.result.kind === "done") out.push(answer.result.event);
        else {
          out.push({
            type: "error",
            reason: answer.result.message.stopReason === "aborted" ? "aborted" : "error",
            error: answer.result.message,
          });
        }
      } catch (err) {
        const base = lastFailed ?? createErrorMessage(model, "");
        // One failed try and nothing else to try: its own error, unchanged, is the clearest report.
        const single = isFailoverError(err) && err.attempts.length === 1 && lastFailed?.errorMessage;
        const message = single
          ? (lastFailed?.errorMessage as string)
          : err instanceof Error
            ? err.message
            : String(err);
        const aborted = callOptions?.signal?.aborted === true;
        out.push({
          type: "error",
          reason: aborted ? "aborted" : "error",
          error: { ...base, stopReason: aborted ? "aborted" : "error", errorMessage: message },
        });
      }
    })();
    return out;
  };
}
