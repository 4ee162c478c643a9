/**
 * Reasoning levels for the `streamSimple*` entry points: per-model clamping, default token budgets, and the
 * fallback when a server rejects the level it was sent.
 */
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from "../event-stream.js";
import { clampThinkingLevel, getSupportedThinkingLevels, THINKING_LEVELS } from "../models.js";
import type {
  Api,
  AssistantMessageEvent,
  AssistantMessageEventStreamLike,
  Model,
  ModelThinkingLevel,
  ThinkingBudgets,
  ThinkingLevel,
} from "../types.js";
import { MessageBuilder } from "./stream-shared.js";

/** Token budgets per level for budget-based APIs (Anthropic `budget_tokens`, Gemini 2.5 `thinkingBudget`). */
export const DEFAULT_THINKING_BUDGETS: Record<ThinkingLevel, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

/**
 * The level to send: undefined stays undefined (the provider's default: no reasoning parameter is sent);
 * non-reasoning models get off; otherwise the level is clamped to what the model supports.
 */
export function effectiveLevel(
  model: Model<Api>,
  level: ModelThinkingLevel | undefined,
): ModelThinkingLevel | undefined {
  if (level === undefined) return undefined;
  if (!model.reasoning) return "off";
  if (level === "off") return clampOff(model);
  return clampThinkingLevel(model, level);
}

/** "off" stays off unless the model cannot disable reasoning (its map says `off: null`). */
function clampOff(model: Model<Api>): ModelThinkingLevel {
  return model.thinkingLevelMap?.off === null ? clampThinkingLevel(model, "off") : "off";
}

/** Budget for `level`, from the caller's budgets, then a numeric `thinkingLevelMap` entry, then the defaults. */
export function thinkingBudget(model: Model<Api>, level: ThinkingLevel, budgets?: ThinkingBudgets): number {
  const fromOptions = level === "xhigh" ? undefined : budgets?.[level];
  if (fromOptions !== undefined) return fromOptions;
  const mapped = model.thinkingLevelMap?.[level];
  if (typeof mapped === "string" && /^\d+$/.test(mapped)) return Number(mapped);
  return DEFAULT_THINKING_BUDGETS[level];
}

/** The wire value a model's map gives `level` (a string), or undefined when it has no entry. */
export function mappedLevel(model: Model<Api>, level: ModelThinkingLevel): string | undefined {
  const v = model.thinkingLevelMap?.[level];
  return typeof v === "string" ? v : undefined;
}

/** Next weaker level the model supports, or "off". */
export function weakerLevel(model: Model<Api>, level: ModelThinkingLevel): ModelThinkingLevel {
  const supported = getSupportedThinkingLevels(model);
  for (let i = THINKING_LEVELS.indexOf(level) - 1; i > 0; i--) {
    const candidate = THINKING_LEVELS[i] as ModelThinkingLevel;
    if (supported.includes(candidate)) return candidate;
  }
  return "off";
}

const REJECTED_PARAM = /reasoning|thinking|effort|budget/i;

/**
 * Runs `attempt(level)`; when the server answers 400 naming the reasoning/thinking parameter before any
 * content streamed, retries once with a weaker supported level, then once with reasoning off. The caller
 * sees one stream: the `start` event of a rejected attempt is held back and dropped.
 */
export function streamWithThinkingFallback(
  model: Model<Api>,
  level: ModelThinkingLevel | undefined,
  attempt: (level: ModelThinkingLevel | undefined) => AssistantMessageEventStreamLike,
): AssistantMessageEventStream {
  const out = createAssistantMessageEventStream();
  void (async () => {
    let current = level;
    for (let tries = 0; ; tries++) {
      let heldStart: AssistantMessageEvent | undefined;
      let forwarded = false;
      let retryWith: ModelThinkingLevel | undefined;
      // undefined means "no retry"; a retry always names a level.
      for await (const event of attempt(current)) {
        if (!forwarded && event.type === "start") {
          heldStart = event;
          continue;
        }
        if (
          !forwarded &&
          event.type === "error" &&
          event.reason === "error" &&
          current !== undefined &&
          current !== "off" &&
          tries < 2 &&
          event.error.errorStatus === 400 &&
          REJECTED_PARAM.test(event.error.errorMessage ?? "")
        ) {
          retryWith = tries === 0 ? weakerLevel(model, current) : "off";
          break;
        }
        if (!forwarded && heldStart) out.push(heldStart);
        forwarded = true;
        out.push(event);
      }
      if (retryWith === undefined) break;
      current = retryWith;
    }
    out.end();
  })().catch((error: unknown) => {
    // Inner streams never throw; this keeps a bug from turning into an unhandled rejection or a hung result().
    const failed = new MessageBuilder(model);
    failed.fail(error);
    void failed.stream.result().then((message) => out.push({ type: "error", reason: "error", error: message }));
  });
  return out;
}
