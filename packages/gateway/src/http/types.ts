/**
 * Public types of the OpenAI-compatible HTTP API (`/v1/*` on the gateway's port). Every request becomes a
 * normal gateway run (the `agent` RPC's path: lanes, queue modes, hooks, plugins, failover, transcript).
 */
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent } from "@tiller/ai";
import type { GatewayCore } from "../server/gateway-core.js";
import type { DeltaFanout } from "./delta-fanout.js";

/** What the HTTP API needs from the gateway. */
export interface HttpApiOptions {
  core: GatewayCore;
  /** The gateway's shared secret(s); none means loopback clients only, unauthenticated (as for the WebSocket). */
  auth: { token?: string; password?: string };
  log?: (line: string) => void;
}

/** What the endpoints share: the core, the delta fan-out of open streams, the body cap, the send bound. */
export interface EndpointContext {
  core: GatewayCore;
  fanout: DeltaFanout;
  maxBodyBytes: number;
  /** `gateway.maxBufferedBytes`: a streaming client more than twice this behind is cut off (sse.ts). */
  maxBufferedBytes: number;
}

/** An authenticated caller. A shared-secret bearer is a full operator (admin); see auth.ts. */
export interface HttpCaller {
  scopes: readonly string[];
  /** The peer address the rate limiter keys on. */
  remote: string;
}

/**
 * One request mapped onto a run. `history` is non-empty only for a stateless request: the earlier turns it
 * carried, written as the transcript of its fresh session before the run starts.
 */
export interface RunInput {
  agentId: string;
  sessionKey: string;
  /** True when the session was made for this request alone (no `user`, session header or previous response). */
  stateless: boolean;
  /** The last user message: the run's prompt. */
  prompt: string;
  /** Images of the last user message (data URLs decoded). */
  images: ImageContent[];
  history: AgentMessage[];
  /** System / developer messages and `instructions`, joined: the run's extra system prompt. */
  extraSystemPrompt?: string;
  /** `x-tiller-model`: the backend model for this run (admins only). */
  model?: string;
  /** The request's sampling fields, applied to the run's model calls (sampling-extension.ts). */
  sampling?: { temperature?: number; maxTokens?: number };
}

/** Token counts of a finished run, from the run's real usage. */
export interface RunUsage {
  input: number;
  output: number;
  total: number;
}

/** How a run ended, as the endpoints render it. */
export interface RunReply {
  runId: string;
  sessionKey: string;
  status: "ok" | "error" | "timeout" | "aborted";
  text: string;
  error?: string;
  usage: RunUsage;
  /** The backend model that answered ("provider/id"). */
  model: string;
  /** The last model message's stop reason (`length`: cut at the output budget). */
  stopReason?: string;
}
