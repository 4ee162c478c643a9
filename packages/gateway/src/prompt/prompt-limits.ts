/**
 * Model-specific prompt limits. The context window minus a token reserve kept free for compaction (and the
 * reply) bounds how much of the window the system prompt may take; the bootstrap caps shrink to fit small models.
 */
import { DEFAULT_BOOTSTRAP_MAX_CHARS, DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS } from "./bootstrap-files.js";

/** Tokens kept free for compaction's summary request and the model's reply (pi's default reserve). */
export const DEFAULT_COMPACTION_RESERVE_TOKENS = 16_384;
/** Share of the usable window the system prompt may take. */
export const SYSTEM_PROMPT_WINDOW_SHARE = 0.3;
/** Rough characters per token for budgeting (English prose and code average about 4). */
export const CHARS_PER_TOKEN = 4;

export interface PromptLimitsInput {
  /** The model's context window in tokens (unknown: 128k). */
  contextWindow?: number;
  reserveTokens?: number;
  /** Configured caps (`agents.defaults.bootstrapMaxChars` / `bootstrapTotalMaxChars`). */
  bootstrapMaxChars?: number;
  bootstrapTotalMaxChars?: number;
}

/** Limits in effect for one run; reported in the prompt report. */
export interface PromptLimits {
  contextWindow: number;
  /** The reserve actually applied (at most a quarter of the window). */
  reserveTokens: number;
  /** Tokens the system prompt may use. */
  systemPromptMaxTokens: number;
  bootstrapMaxChars: number;
  bootstrapTotalMaxChars: number;
}

export function resolvePromptLimits(input: PromptLimitsInput = {}): PromptLimits {
  const contextWindow = Math.max(1024, Math.floor(input.contextWindow ?? 128_000));
  const reserveTokens = Math.min(
    input.reserveTokens ?? DEFAULT_COMPACTION_RESERVE_TOKENS,
    Math.floor(contextWindow / 4),
  );
  const usable = contextWindow - reserveTokens;
  const systemPromptMaxTokens = Math.floor(usable * SYSTEM_PROMPT_WINDOW_SHARE);
  // Three quarters of the prompt budget may go to bootstrap files; the rest is for the built sections and skills.
  const bootstrapBudget = Math.floor(systemPromptMaxTokens * CHARS_PER_TOKEN * 0.75);
  const bootstrapTotalMaxChars = Math.min(
    input.bootstrapTotalMaxChars ?? DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS,
    bootstrapBudget,
  );
  const bootstrapMaxChars = Math.min(input.bootstrapMaxChars ?? DEFAULT_BOOTSTRAP_MAX_CHARS, bootstrapTotalMaxChars);
  return { contextWindow, reserveTokens, systemPromptMaxTokens, bootstrapMaxChars, bootstrapTotalMaxChars };
}

/** A cheap token estimate for reports (characters / 4, rounded up). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
