import type { ErrorClassification } from "@tiller/ai";
import type { AuthProfileStore } from "./auth-profile-store.js";
import { FailoverError } from "./failover-error.js";
import type { AuthProfile, FailoverAttempt, FailoverCandidate, ProfileFailureReason } from "./types.js";

/** Errors that mean "this credential, not this model": mark the profile and try the next one. */
const PROFILE_ERRORS = new Set(["auth", "rate_limit", "quota", "billing"]);

export interface FailoverAttemptContext extends FailoverCandidate {
  /** Undefined when the provider has no stored profiles (the environment or a runtime key is used). */
  profile?: AuthProfile;
  attemptIndex: number;
}

export interface FailoverRunOptions<T> {
  /** The primary model first, then the configured fallbacks in order. */
  candidates: FailoverCandidate[];
  store?: AuthProfileStore;
  sessionKey?: string;
  preferredProfileId?: string;
  /** One model call. May throw, or return a result that `failureOf` recognizes as failed. */
  attempt: (ctx: FailoverAttemptContext) => Promise<T>;
  /** Reads a failure out of a returned result (e.g. an assistant message with stopReason "error"). */
  failureOf?: (result: T) => ErrorClassification | undefined;
  /** The shared classifier (`classifyError` of @tiller/ai). */
  classify: (err: unknown) => ErrorClassification;
  signal?: AbortSignal;
  /** Told about every failed try, before the next one starts (for logs and provisional statuses). */
  onAttemptFailed?: (attempt: FailoverAttempt) => void;
}

export interface FailoverOutcome<T> extends FailoverCandidate {
  result: T;
  profileId?: string;
  /** The failed tries that came before the one that succeeded. */
  attempts: FailoverAttempt[];
}

/**
 * Runs a model call with auth-profile rotation inside each candidate model and failover across models.
 * Auth, rate-limit, quota and billing errors put the profile in cooldown (billing: disabled) and rotate to
 * the next profile; when a model has no usable profile left, or fails otherwise (overloaded, timeout,
 * network, format, unknown), the next model is tried. Context overflow never falls back (the caller
 * compacts and retries) and an abort stops at once: both throw a FailoverError immediately.
 */
export async function runWithFailover<T>(options: FailoverRunOptions<T>): Promise<FailoverOutcome<T>> {
  const attempts: FailoverAttempt[] = [];
  let attemptIndex = 0;
  const fail = (attempt: FailoverAttempt) => {
    attempts.push(attempt);
    options.onAttemptFailed?.(attempt);
  };

  for (const candidate of options.candidates) {
    const profiles = options.store?.order(candidate.provider, {
      preferredProfileId: options.preferredProfileId,
      sessionKey: options.sessionKey,
    });
    const usable = profiles?.filter((p) => options.store?.isAvailable(p.id)) ?? [];
    if (profiles && profiles.length > 0 && usable.length === 0) {
      const until = Math.min(...profiles.map((p) => options.store?.unavailableUntil(p.id) ?? 0));
      fail({
        ...candidate,
        reason: "rate_limit",
        message: `every ${candidate.provider} profile is cooling down (until ${new Date(until).toISOString()})`,
      });
      continue;
    }
    const tries: (AuthProfile | undefined)[] = usable.length > 0 ? usable : [undefined];
    for (const profile of tries) {
      if (options.signal?.aborted) {
        throw new FailoverError("aborted", { reason: "unknown", ...candidate, profileId: profile?.id, attempts });
      }
      let failure: ErrorClassification | undefined;
      let result: T | undefined;
      try {
        result = await options.attempt({ ...candidate, profile, attemptIndex: attemptIndex++ });
        failure = options.failureOf?.(result);
      } catch (err) {
        if (options.signal?.aborted) throw err;
        failure = options.classify(err);
      }
      if (!failure) {
        if (profile) options.store?.markSuccess(profile.id, options.sessionKey);
        return { ...candidate, result: result as T, profileId: profile?.id, attempts };
      }
      const attempt: FailoverAttempt = {
        ...candidate,
        profileId: profile?.id,
        reason: failure.class,
        status: failure.status,
        message: failure.message,
        ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}),
      };
      fail(attempt);
      if (failure.class === "context_overflow") {
        throw new FailoverError(failure.message, {
          reason: failure.class,
          ...candidate,
          profileId: profile?.id,
          status: failure.status,
          attempts,
        });
      }
      if (PROFILE_ERRORS.has(failure.class) && profile) {
        options.store?.markFailure(profile.id, failure.class as ProfileFailureReason, failure.retryAfterMs);
        continue;
      }
      break;
    }
  }
  const last = attempts.at(-1);
  const summary = attempts
    .map((a) => `${a.provider}/${a.model}${a.profileId ? `@${a.profileId}` : ""}: ${a.reason} (${a.message ?? ""})`)
    .join("; ");
  throw new FailoverError(`All models failed: ${summary}`, {
    reason: last?.reason ?? "unknown",
    provider: last?.provider ?? options.candidates[0]?.provider ?? "unknown",
    model: last?.model ?? options.candidates[0]?.model ?? "unknown",
    profileId: last?.profileId,
    status: last?.status,
    retryAfterMs: last?.retryAfterMs,
    attempts,
  });
}
