import type { ModelThinkingLevel } from "@tiller/ai";

const LEVELS: ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** True when a provider error says the requested reasoning/thinking setting is not accepted. */
export function isThinkingLevelRejection(message: string): boolean {
  return (
    /(reasoning|thinking|effort|budget_tokens)[^.]*?(not supported|unsupported|invalid|must be|supported values)/i.test(
      message,
    ) || /(not supported|unsupported|invalid)[^.]*?(reasoning|thinking|effort)/i.test(message)
  );
}

/**
 * The next thinking level to try after `current` was rejected: a level the error lists as supported (first
 * not yet tried, highest below the rejected one preferred), else `minimal` for a constraint error, else `off`.
 * Returns undefined when nothing is left to try.
 */
export function pickFallbackThinkingLevel(
  message: string,
  current: ModelThinkingLevel,
  tried: ReadonlySet<ModelThinkingLevel> = new Set(),
): ModelThinkingLevel | undefined {
  const attempted = new Set([...tried, current]);
  const listed = /supported values? (?:are|is)?:?\s*([^.\n]+)/i.exec(message)?.[1];
  if (listed) {
    const values = LEVELS.filter((l) => new RegExp(`\\b${l}\\b`, "i").test(listed) && !attempted.has(l));
    const below = values.filter((l) => LEVELS.indexOf(l) < LEVELS.indexOf(current)).reverse();
    const pick = below[0] ?? values[0];
    if (pick) return pick;
  }
  if (!attempted.has("minimal") && current !== "off" && !/not supported/i.test(message)) return "minimal";
  return attempted.has("off") ? undefined : "off";
}
