/**
 * The gateway's default run extension for resilience: every run's model call goes through `withFailover`
 * with the credentials of `$TILLER_HOME/auth-profiles.json` and the fallback chain of
 * `agents.defaults.model.fallbacks`. The run's outcome names the model that actually answered.
 */
import { join } from "node:path";
import type { TillerConfig } from "../config/config-types.js";
import { ConfigError } from "../config/jsonc.js";
import type { ModelRegistry, ResolvedModel } from "../config/models-config.js";
import type { RunContext, RunExtension, RunOutcome } from "../run/run-types.js";
import { AuthProfileStore } from "./auth-profile-store.js";
import { type ChainRetry, withFailover } from "./failover-model-call.js";
import type { FailoverAttempt } from "./types.js";

export const AUTH_PROFILES_FILE = "auth-profiles.json";
/** Two more rounds of the whole chain after an all-transient failure, 0.5 s then 1 s apart (Retry-After ≤ 10 s). */
export const DEFAULT_CHAIN_RETRY: ChainRetry = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 10_000 };

export interface FailoverExtensionOptions {
  config: TillerConfig;
  models: ModelRegistry;
  /** Defaults to the store at `$TILLER_HOME/auth-profiles.json` (created on first write). */
  store?: AuthProfileStore;
  /** Whole-chain retry after transient failures (the engine does not retry on its own). */
  retry?: ChainRetry;
  /** Told about every provisional failure and every answer that needed failover (gateway log). */
  log?: (line: string) => void;
}

/** What the extension records per run in `ctx.state.failover`. */
export interface FailoverRunState {
  attempts: FailoverAttempt[];
  answered?: { provider: string; model: string; profileId?: string };
}

/** The failover extension plus its store (for inspection and tests). */
export interface FailoverExtension extends RunExtension {
  readonly store: AuthProfileStore;
  readonly fallbacks: readonly ResolvedModel[];
}

/**
 * Builds the extension. Throws a ConfigError naming the key when a fallback reference is unknown, and the
 * store's error naming the file when auth-profiles.json is malformed, so a bad setup fails at start-up.
 */
export function createFailoverExtension(options: FailoverExtensionOptions): FailoverExtension {
  const { config, models } = options;
  const fallbacks = config.agents.defaults.modelFallbacks.map((ref, i) => {
    const resolved = models.resolve(ref);
    if (!resolved) {
      throw new ConfigError(
        `tiller.json: agents.defaults.model.fallbacks[${i}]: unknown model "${ref}" (expected "provider/model-id" of models.json or the catalog)`,
      );
    }
    return resolved;
  });
  const store = options.store ?? new AuthProfileStore(join(config.home, AUTH_PROFILES_FILE));
  const log = options.log;

  return {
    name: "failover",
    store,
    fallbacks,
    wrapModelCall(call, ctx: RunContext) {
      const chain = fallbacks.filter((f) => f.ref !== ctx.model.ref);
      const keys = new Map(chain.map((f) => [`${f.model.provider}/${f.model.id}`, f.apiKey]));
      const state: FailoverRunState = { attempts: [] };
      ctx.state.failover = state;
      return withFailover(call, {
        fallbacks: chain.map((f) => f.model),
        store,
        // Pinned per transcript: after sessions.reset (a new session id) the profile is chosen afresh.
        sessionKey: ctx.session?.sessionId ? `${ctx.sessionKey}#${ctx.session.sessionId}` : ctx.sessionKey,
        apiKeyFor: (m) => keys.get(`${m.provider}/${m.id}`),
        retry: options.retry ?? DEFAULT_CHAIN_RETRY,
        onAttemptFailed: (attempt) => {
          state.attempts.push(attempt);
          log?.(
            `[failover] run ${ctx.runId}: ${attempt.provider}/${attempt.model}${attempt.profileId ? `@${attempt.profileId}` : ""} failed (${attempt.reason}${attempt.status ? ` ${attempt.status}` : ""}): ${(attempt.message ?? "").slice(0, 200)}`,
          );
        },
        onAnswered: (answer) => {
          state.answered = answer;
        },
      });
    },
    onRunEnd(ctx: RunContext, outcome: RunOutcome) {
      const state = ctx.state.failover as FailoverRunState | undefined;
      const answered = state?.answered;
      if (!answered) return;
      // The reply came from a fallback model: say so, instead of the model the run started with.
      outcome.result.meta.agentMeta.provider = answered.provider;
      outcome.result.meta.agentMeta.model = answered.model;
    },
  };
}
