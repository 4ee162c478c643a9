/**
 * Failures that happen before any provider runs (unknown api, a provider module that will not load, a
 * provider that throws) still have to reach the caller as a stream ending in `error`, never as a throw.
 */
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from "./event-stream.js";
import type { Api, AssistantMessage, Model, Usage } from "./types.js";

/** A zeroed usage record (fresh object each call: providers mutate it). */
export function createEmptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** An assistant message recording a failure for `model` (`stopReason` "error" or "aborted"). */
export function createErrorMessage(
  model: Pick<Model<Api>, "api" | "provider" | "id">,
  errorMessage: string,
  reason: "error" | "aborted" = "error",
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: createEmptyUsage(),
    stopReason: reason,
    errorMessage,
    timestamp: Date.now(),
  };
}

/** A stream that immediately ends with an `error` event carrying `errorMessage`. */
export function createErrorStream(
  model: Pick<Model<Api>, "api" | "provider" | "id">,
  errorMessage: string,
  reason: "error" | "aborted" = "error",
): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  stream.push({ type: "error", reason, error: createErrorMessage(model, errorMessage, reason) });
  return stream;
}

/** Readable text of anything thrown. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
