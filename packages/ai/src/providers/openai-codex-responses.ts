/**
 * The ChatGPT Codex backend (`https://chatgpt.com/backend-api/codex/responses`): the Responses API behind a
 * ChatGPT subscription, authenticated with the OAuth access token of a ChatGPT login plus the account id
 * carried in that token (`chatgpt-account-id`). Its body differs from the public API's: the system prompt goes
 * in `instructions`, `store` must be false, encrypted reasoning is always included, and there is no output
 * token limit. Events are the Responses ones (openai-responses.ts), SSE only.
 */
import OpenAI from "openai";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type { Api, Context, Model, ModelThinkingLevel, SimpleStreamOptions, StreamOptions } from "../types.js";
import { streamResponsesRequest } from "./openai-responses.js";
import { convertResponsesInput, convertResponsesTools } from "./openai-responses-shared.js";
import {
  applyOnPayload,
  describeError,
  mergeHeaders,
  ProviderStreamError,
  resolveApiKey,
  runStream,
} from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface OpenAICodexResponsesOptions extends StreamOptions {
  /** Reasoning level; `none` (or Tiller's `off`) asks for none; undefined sends no reasoning settings. */
  reasoningEffort?: "none" | ModelThinkingLevel;
  /** Reasoning summary detail; default `auto`. */
  reasoningSummary?: "auto" | "concise" | "detailed" | "off" | "on" | null;
  /** `flex` costs half, `priority` twice (2.5× for GPT-5.5); the usage cost reflects the tier asked for. */
  serviceTier?: ResponseCreateParamsStreaming["service_tier"];
  /** Default `low`. */
  textVerbosity?: "low" | "medium" | "high";
}

/** What pi's Codex WebSocket transport reports per session. Tiller speaks SSE only, so there is nothing to count. */
export interface OpenAICodexWebSocketDebugStats {
  requests: number;
  connectionsCreated: number;
  connectionsReused: number;
  cachedContextRequests: number;
  storeTrueRequests: number;
  fullContextRequests: number;
  deltaRequests: number;
  lastInputItems: number;
  lastDeltaInputItems?: number;
  lastPreviousResponseId?: string;
  websocketFailures: number;
  sseFallbacks: number;
  websocketFallbackActive?: boolean;
  lastWebSocketError?: string;
}

const DEFAULT_BASE_URL = "https://chatgpt.com/backend-api";
const AUTH_CLAIM = "https://api.openai.com/auth";

/** The SDK base URL (it appends `/responses`): `…/backend-api` → `…/backend-api/codex`. */
export function resolveCodexBaseUrl(baseUrl: string): string {
  const raw = (baseUrl.trim() || DEFAULT_BASE_URL).replace(/\/+$/, "");
  if (raw.endsWith("/codex/responses")) return raw.slice(0, -"/responses".length);
  if (raw.endsWith("/codex")) return raw;
  return `${raw}/codex`;
}

/** The ChatGPT account id inside the access token (a JWT); a clear error when it is not one. */
export function codexAccountId(token: string): string {
  const payload = token.split(".")[1];
  let claims: unknown;
  try {
    claims = payload && token.split(".").length === 3 ? JSON.parse(Buffer.from(payload, "base64url").toString()) : 0;
  } catch {
    claims = undefined;
  }
  const id = (claims as Record<string, { chatgpt_account_id?: unknown } | undefined> | undefined)?.[AUTH_CLAIM]
    ?.chatgpt_account_id;
  if (typeof id !== "string" || !id) {
    throw new ProviderStreamError(
      "The OpenAI Codex token is not a ChatGPT OAuth access token (a JWT carrying chatgpt_account_id); log in with ChatGPT to get one",
    );
  }
  return id;
}

function reasoningSettings(
  model: Model<Api>,
  options: OpenAICodexResponsesOptions | undefined,
): Record<string, unknown> | undefined {
  const level = options?.reasoningEffort;
  if (level === undefined || !model.reasoning) return undefined;
  const map = model.thinkingLevelMap;
  const off = level === "none" || level === "off";
  const mapped = off ? map?.off : map?.[level];
  if (mapped === null) return undefined; // the model cannot do this level: leave it to the server
  const effort = mapped ?? (off ? "none" : level);
  const summary = options?.reasoningSummary === undefined ? "auto" : options.reasoningSummary;
  return off ? { effort } : { effort, summary };
}

export function buildCodexBody(
  model: Model<Api>,
  context: Context,
  options: OpenAICodexResponsesOptions | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: model.id,
    store: false, // the backend refuses stored responses
    stream: true,
    instructions: context.systemPrompt || "You are a helpful assistant.",
    input: convertResponsesInput(model, context, { includeSystemPrompt: false }),
    text: { verbosity: options?.textVerbosity ?? "low" },
    include: ["reasoning.encrypted_content"],
    tool_choice: "auto",
    parallel_tool_calls: true,
  };
  if (options?.sessionId) body.prompt_cache_key = options.sessionId;
  if (options?.temperature !== undefined) body.temperature = options.temperature;
  if (options?.serviceTier !== undefined) body.service_tier = options.serviceTier;
  if (context.tools && context.tools.length > 0) body.tools = convertResponsesTools(context.tools, null);
  const reasoning = reasoningSettings(model, options);
  if (reasoning) body.reasoning = reasoning;
  return body;
}

/**
 * A ChatGPT plan's usage cap answers 429 `usage_limit_reached` with the plan and reset time: say so, and
 * carry the reset as the wait.
 */
function usageLimitError(error: unknown): unknown {
  const e = error as { status?: unknown; error?: unknown };
  const body = (e?.error as { error?: unknown } | undefined)?.error ?? e?.error;
  if (!body || typeof body !== "object") return error;
  const b = body as {
    type?: unknown;
    code?: unknown;
    plan_type?: unknown;
    resets_at?: unknown;
    resets_in_seconds?: unknown;
  };
  const kind = `${b.type ?? b.code ?? ""}`;
  if (!/usage_limit_reached|usage_not_included/.test(kind)) return error;
  const waitMs =
    typeof b.resets_in_seconds === "number"
      ? b.resets_in_seconds * 1000
      : typeof b.resets_at === "number"
        ? Math.max(0, b.resets_at * 1000 - Date.now())
        : undefined;
  const plan = typeof b.plan_type === "string" ? ` (${b.plan_type.toLowerCase()} plan)` : "";
  const resets = waitMs !== undefined ? ` It resets in ~${Math.round(waitMs / 60000)} min.` : "";
  const status = typeof e.status === "number" ? e.status : undefined;
  const out = new ProviderStreamError(
    `${status ?? 429} ${kind}: You have hit your ChatGPT usage limit${plan}.${resets}`,
    status,
  );
  (out as { headers?: unknown }).headers =
    waitMs !== undefined ? { "retry-after-ms": `${waitMs}` } : (error as { headers?: unknown }).headers;
  return out;
}

function codexHeaders(
  model: Model<Api>,
  options: OpenAICodexResponsesOptions | undefined,
  accountId: string,
): Record<string, string> {
  const required: Record<string, string> = {
    "chatgpt-account-id": accountId,
    "OpenAI-Beta": "responses=experimental",
    accept: "text/event-stream",
  };
  if (options?.sessionId) {
    required.session_id = options.sessionId;
    required["x-client-request-id"] = options.sessionId;
  }
  // `originator` names the client to the backend; callers may present themselves differently.
  return mergeHeaders({ originator: "tiller" }, model.headers, options?.headers, required) ?? required;
}

/** Streams one assistant turn from the ChatGPT Codex backend. Never throws; failures end in an `error` event. */
export function streamOpenAICodexResponses(
  model: Model<Api>,
  context: Context,
  options?: OpenAICodexResponsesOptions,
): AssistantMessageEventStream {
  return runStream(model, options, async (b) => {
    const token = resolveApiKey(model, options, false);
    const client = new OpenAI({
      apiKey: token,
      baseURL: resolveCodexBaseUrl(model.baseUrl),
      defaultHeaders: codexHeaders(model, options, codexAccountId(token)),
      maxRetries: options?.maxRetries ?? 0,
      ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
      dangerouslyAllowBrowser: true,
      logLevel: "off",
    });
    const body = await applyOnPayload(buildCodexBody(model, context, options), model, options);
    try {
      await streamResponsesRequest(b, model, client, body, options);
    } catch (error) {
      throw describeError(error).status === undefined ? error : usageLimitError(error);
    }
  });
}

/** Like `streamOpenAICodexResponses`, with one provider-neutral `reasoning` level. */
export function streamSimpleOpenAICodexResponses(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (reasoningEffort) =>
    streamOpenAICodexResponses(model, context, { ...options, reasoningEffort }),
  );
}
