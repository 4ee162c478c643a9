/**
 * Cycling through models (pi's Ctrl+P): through the scoped models (`--models`) that have auth, or else through
 * every model with configured auth, forward or backward from the current one, wrapping around.
 */

import type { ThinkingLevel } from "@tiller/agent";
import { type Model, modelsAreEqual } from "@tiller/ai";

/** A model to cycle through, with the thinking level it brings (undefined: keep the session's). */
export interface ScopedModel {
  model: Model;
  thinkingLevel?: ThinkingLevel;
}

/** Result of `AgentSession.cycleModel`. */
export interface ModelCycleResult {
  model: Model;
  thinkingLevel: ThinkingLevel;
  /** True when cycling through the scoped models, false through all models with auth. */
  isScoped: boolean;
}

/**
 * The candidate after (or before) `current` in `candidates`; a current model not among them counts as the first.
 * Undefined when there is nothing to cycle to (fewer than two candidates).
 */
export function nextCandidate(
  candidates: readonly ScopedModel[],
  current: Model,
  direction: "forward" | "backward",
): ScopedModel | undefined {
  const n = candidates.length;
  if (n <= 1) return undefined;
  const at = Math.max(
    0,
    candidates.findIndex((c) => modelsAreEqual(c.model, current)),
  );
  return candidates[direction === "forward" ? (at + 1) % n : (at - 1 + n) % n];
}
