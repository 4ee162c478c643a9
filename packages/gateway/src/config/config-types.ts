import type { DROP_POLICIES, QUEUE_MODES, THINKING_SETTINGS } from "../protocol/schema/sessions.js";

/** Queue modes for a message that reaches a session whose run is still active. */
export type QueueMode = (typeof QUEUE_MODES)[number];
/** What happens when a session's pending queue is over its cap. */
export type QueueDropPolicy = (typeof DROP_POLICIES)[number];
export type ThinkingSetting = (typeof THINKING_SETTINGS)[number];

export interface QueueSettings {
  mode: QueueMode;
  /** Quiet time before queued `collect` messages are merged into one turn. */
  debounceMs: number;
  /** Most messages waiting per session. */
  cap: number;
  drop: QueueDropPolicy;
}

export interface GatewaySettings {
  port: number;
  bind: string;
  auth: { token?: string; password?: string; rateLimit: AuthRateLimit };
  /** Largest accepted frame (bytes); bigger frames get an error and the connection stays open. */
  maxPayloadBytes: number;
  /** Per connection: beyond this many queued outgoing bytes, stream deltas are dropped for that client. */
  maxBufferedBytes: number;
  tickIntervalMs: number;
  /** The OpenAI-compatible HTTP API (`gateway.http`); see src/http. */
  http: HttpEndpointsSettings;
}

// --- gateway.http and gateway.auth.rateLimit (the OpenAI-compatible HTTP API, src/http) ---
/** Failed-auth limiter of the HTTP API: `maxAttempts` wrong credentials per `windowMs`, then `lockoutMs` of 429. */
export interface AuthRateLimit {
  maxAttempts: number;
  windowMs: number;
  lockoutMs: number;
  /** Loopback clients are not limited (default false: they are). */
  exemptLoopback: boolean;
}

/** `gateway.http.endpoints.*`: each endpoint is off unless enabled. */
export interface HttpEndpointsSettings {
  chatCompletions: { enabled: boolean };
  responses: { enabled: boolean };
  /** Largest accepted request body in bytes (`gateway.http.maxBodyBytes`, default 20 MiB). */
  maxBodyBytes: number;
}
// --- end gateway.http ---

export interface AgentDefaults {
  /** "provider/model-id"; empty means the offline model. */
  model: string;
  /**
   * Models tried in order when the primary fails (auth, rate limit, overload, timeout…), from
   * `agents.defaults.model: {primary, fallbacks}`; empty when `model` is a plain string.
   */
  modelFallbacks: string[];
  thinking: ThinkingSetting;
  verbose: boolean;
  timeoutSeconds: number;
  /** Cap of the global `main` lane. */
  maxConcurrent: number;
  subagentMaxConcurrent: number;
  cronMaxConcurrent: number;
  /** Working directory of the agent's tools; defaults to $TILLER_HOME/workspace. */
  workspace: string;
}

export interface AgentEntry {
  id: string;
  name?: string;
  model?: string;
  workspace?: string;
}

/** The whole validated configuration with every default filled in. `raw` keeps the file's object. */
export interface TillerConfig {
  home: string;
  gateway: GatewaySettings;
  agents: { defaults: AgentDefaults; list: AgentEntry[]; defaultId: string };
  messages: { queue: QueueSettings };
  raw: Record<string, unknown>;
}

export const DEFAULT_PORT = 18789;
export const DEFAULT_TIMEOUT_SECONDS = 48 * 60 * 60;
export { DROP_POLICIES, QUEUE_MODES, THINKING_SETTINGS } from "../protocol/schema/sessions.js";
