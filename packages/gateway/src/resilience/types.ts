/** Types of auth-profile rotation and model failover. */
import type { ErrorClass } from "@tiller/ai";

/** One credential for one provider. Profile ids look like `openai:work` or `anthropic:default`. */
export interface AuthProfile {
  id: string;
  provider: string;
  /** `api_key` credentials are sent as the provider's API key; `token` as a bearer token. */
  type: "api_key" | "token";
  key: string;
}

/** Why a profile was taken out of rotation. */
export type ProfileFailureReason = Extract<
  ErrorClass,
  "auth" | "rate_limit" | "quota" | "billing" | "overloaded" | "timeout"
>;

/** Routing state of one profile. Survives restarts (stored beside the credentials). */
export interface ProfileUsage {
  lastUsed?: number;
  lastFailureAt?: number;
  /** Consecutive failures inside the failure window; drives the cooldown ladder. */
  errorCount: number;
  cooldownUntil?: number;
  cooldownReason?: ProfileFailureReason;
  /** Billing failures disable a profile for hours (doubling, capped). */
  billingFailures: number;
  disabledUntil?: number;
  disabledReason?: ProfileFailureReason;
}

/** What is on disk in `$TILLER_HOME/auth-profiles.json` (mode 0600). */
export interface AuthProfileFile {
  version: 1;
  profiles: Record<string, AuthProfile>;
  usage: Record<string, ProfileUsage>;
  /** Sticky choice per session key: the profile the session used last. */
  sessionProfiles: Record<string, string>;
  /** Hand-set preference per provider (`{"openai": "openai:work"}`): tried first whenever it is usable. */
  preferred?: Record<string, string>;
}

/** Ordering input: an explicitly preferred profile wins, then the session's last one, then least recently used. */
export interface ProfileOrderOptions {
  preferredProfileId?: string;
  sessionKey?: string;
  now?: number;
}

export interface FailoverCandidate {
  provider: string;
  model: string;
}

/** One try of one model with one profile, as recorded in a failover summary. */
export interface FailoverAttempt {
  provider: string;
  model: string;
  profileId?: string;
  reason?: ErrorClass;
  status?: number;
  message?: string;
  /** The wait the provider asked for (Retry-After), when it named one. */
  retryAfterMs?: number;
}
