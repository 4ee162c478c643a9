/**
 * The settings Tiller reads, their defaults, and validation. Unknown keys are kept (other components and
 * extensions read their own); known keys with a wrong type are reported by name and replaced by the default.
 */

export type ThinkingLevelSetting = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

export interface CompactionSettings {
  enabled: boolean;
  /** Tokens kept free for the model's answer: compaction starts above `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** Recent tokens kept verbatim after a compaction. */
  keepRecentTokens: number;
  /**
   * `safeguard`: adaptive summary budget, keeps tool failures and file operations in the summary. Optional (read
   * as "default") so pi's three-field `CompactionSettings` is accepted as is.
   */
  mode?: "default" | "safeguard";
  /** Safeguard: largest share of the context window the summarized history may occupy (default 0.5). */
  maxHistoryShare?: number;
}

export interface ContextPruningSettings {
  /** `cache-ttl`: after `ttlMs` of idle time (provider cache gone), old large tool results are trimmed. */
  mode: "off" | "cache-ttl";
  ttlMs: number;
  /** Tool results in the last N assistant turns are never trimmed. */
  keepRecentTurns: number;
  /** Only results longer than this many characters are trimmed. */
  minChars: number;
}

export interface RetrySettings {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface Settings {
  defaultProvider?: string;
  defaultModel?: string;
  defaultThinkingLevel?: ThinkingLevelSetting;
  steeringMode: "all" | "one-at-a-time";
  followUpMode: "all" | "one-at-a-time";
  compaction: CompactionSettings;
  contextPruning: ContextPruningSettings;
  retry: RetrySettings;
  /** Where sessions are stored instead of `$TILLER_HOME/sessions/<cwd>`. */
  sessionDir?: string;
  /** Other keys, kept as written. */
  [key: string]: unknown;
}

export const DEFAULT_SETTINGS: Settings = {
  steeringMode: "one-at-a-time",
  followUpMode: "one-at-a-time",
  compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, mode: "default", maxHistoryShare: 0.5 },
  contextPruning: { mode: "off", ttlMs: 5 * 60_000, keepRecentTurns: 3, minChars: 4000 },
  retry: { enabled: true, maxRetries: 3, baseDelayMs: 2000, maxDelayMs: 60_000 },
};

type Check = (value: unknown) => string | undefined;

const isString: Check = (v) => (typeof v === "string" ? undefined : "must be a string");
const isBool: Check = (v) => (typeof v === "boolean" ? undefined : "must be true or false");
const nonNegInt: Check = (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 ? undefined : "must be a non-negative integer";
const fraction: Check = (v) => (typeof v === "number" && v > 0 && v <= 1 ? undefined : "must be a number in (0, 1]");
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v)
      ? undefined
      : `must be one of ${values.map((x) => `"${x}"`).join(", ")}`;

/** Known keys (dotted paths) and their checks. */
export const SETTINGS_SCHEMA: Record<string, Check> = {
  defaultProvider: isString,
  defaultModel: isString,
  defaultThinkingLevel: oneOf("off", "minimal", "low", "medium", "high", "xhigh"),
  steeringMode: oneOf("all", "one-at-a-time"),
  followUpMode: oneOf("all", "one-at-a-time"),
  sessionDir: isString,
  "compaction.enabled": isBool,
  "compaction.reserveTokens": nonNegInt,
  "compaction.keepRecentTokens": nonNegInt,
  "compaction.mode": oneOf("default", "safeguard"),
  "compaction.maxHistoryShare": fraction,
  "contextPruning.mode": oneOf("off", "cache-ttl"),
  "contextPruning.ttlMs": nonNegInt,
  "contextPruning.keepRecentTurns": nonNegInt,
  "contextPruning.minChars": nonNegInt,
  "retry.enabled": isBool,
  "retry.maxRetries": nonNegInt,
  "retry.baseDelayMs": nonNegInt,
  "retry.maxDelayMs": nonNegInt,
};

const OBJECT_KEYS = new Set(["compaction", "contextPruning", "retry"]);

function describe(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/**
 * Validates a parsed settings object. Returns the object with invalid known keys removed, and one error per
 * invalid key, naming it: `compaction.reserveTokens must be a non-negative integer (got "lots")`.
 */
export function validateSettings(raw: unknown): { value: Record<string, unknown>; errors: string[] } {
  const errors: string[] = [];
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { value: {}, errors: ["settings must be a JSON object"] };
  const value: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (OBJECT_KEYS.has(key)) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        errors.push(`${key} must be an object (got ${describe(v)})`);
        continue;
      }
      const inner: Record<string, unknown> = {};
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) {
        const check = SETTINGS_SCHEMA[`${key}.${k2}`];
        const problem = check?.(v2);
        if (problem) errors.push(`${key}.${k2} ${problem} (got ${describe(v2)})`);
        else inner[k2] = v2;
      }
      value[key] = inner;
      continue;
    }
    const problem = SETTINGS_SCHEMA[key]?.(v);
    if (problem) errors.push(`${key} ${problem} (got ${describe(v)})`);
    else value[key] = v;
  }
  return { value, errors };
}

/** Deep merge of plain objects: `over` wins; arrays and scalars replace. */
export function mergeSettings(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (v && typeof v === "object" && !Array.isArray(v) && b && typeof b === "object" && !Array.isArray(b))
      out[k] = mergeSettings(b as Record<string, unknown>, v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

/** Token budgets per thinking level for providers that take a budget (pi's `thinkingBudgets`). */
export interface ThinkingBudgetsSettings {
  minimal?: number;
  low?: number;
  medium?: number;
  high?: number;
}

/** One-time warnings the user has dismissed (pi's `warnings`). */
export interface WarningSettings {
  anthropicExtraUsage?: boolean;
}

/** pi's image settings (Tiller passes images through unchanged; the keys are accepted and kept). */
export interface ImageSettings {
  autoResize?: boolean;
  blockImages?: boolean;
}

/** An entry of the `packages` setting: a source, or a source with the resources to take from it. */
export type PackageSource =
  | string
  | { source: string; extensions?: string[]; skills?: string[]; prompts?: string[]; themes?: string[] };
