/**
 * Gemini on Vertex AI through the official @google/genai SDK in Vertex mode. Two ways in: an API key (Vertex
 * express mode, `aiplatform.googleapis.com/v1/publishers/google/models/…`), or Application Default
 * Credentials with a project and location (`{location}-aiplatform.googleapis.com/v1/projects/…`, OAuth bearer
 * token from google-auth-library). Request and chunks are Gemini's (google.ts / google-shared.ts).
 */
import { GoogleGenAI, type GoogleGenAIOptions } from "@google/genai";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type { Api, Context, Model, ModelThinkingLevel, SimpleStreamOptions, StreamOptions } from "../types.js";
import { type GeminiClientFactory, splitBaseUrl, streamGeminiRequest } from "./google.js";
import { explicitGeminiThinkingConfig, type GoogleThinkingLevel, geminiThinkingConfig } from "./google-shared.js";
import { mergeHeaders, ProviderStreamError, runStream } from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface GoogleVertexOptions extends StreamOptions {
  toolChoice?: "auto" | "none" | "any";
  /** Undefined sends no thinking settings (model default); `enabled: false` asks for the least the model allows. */
  thinking?: {
    enabled: boolean;
    budgetTokens?: number;
    level?: GoogleThinkingLevel;
  };
  /** Default: GOOGLE_CLOUD_PROJECT, then GCLOUD_PROJECT. Needed unless an API key is used. */
  project?: string;
  /** Default: GOOGLE_CLOUD_LOCATION (e.g. `us-central1`, `global`). Needed unless an API key is used. */
  location?: string;
}

const API_VERSION = "v1";

/** What callers (pi's `getEnvApiKey`, credential stores) pass to mean "use ADC", not a real key. */
function isCredentialMarker(key: string): boolean {
  return key === "gcp-vertex-credentials" || /^<[^>]+>$/.test(key);
}

/** `options.apiKey` (which `stream()` fills from the provider's variable), else GOOGLE_CLOUD_API_KEY. */
function resolveVertexApiKey(options: GoogleVertexOptions | undefined): string | undefined {
  const key = (options?.apiKey ?? process.env.GOOGLE_CLOUD_API_KEY)?.trim();
  return key && !isCredentialMarker(key) ? key : undefined;
}

/** SDK options: API key (express mode) or project + location (ADC); a model baseUrl with a host overrides the endpoint. */
export function vertexClientOptions(
  model: Model<Api>,
  options: GoogleVertexOptions | undefined,
): Omit<GoogleGenAIOptions, "httpOptions"> & { httpOptions: NonNullable<GoogleGenAIOptions["httpOptions"]> } {
  const retries = options?.maxRetries ?? 0;
  const httpOptions: NonNullable<GoogleGenAIOptions["httpOptions"]> = {
    headers: mergeHeaders(model.headers, options?.headers),
    ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    ...(retries > 0 ? { retryOptions: { attempts: retries + 1 } } : {}),
  };
  // The catalog's `https://{location}-aiplatform.googleapis.com` is a template: the SDK derives the real host.
  const custom = model.baseUrl.trim();
  if (custom && !custom.includes("{location}")) {
    const { baseUrl, apiVersion } = splitBaseUrl(custom);
    httpOptions.baseUrl = baseUrl;
    httpOptions.apiVersion = apiVersion ?? API_VERSION;
  }
  const apiKey = resolveVertexApiKey(options);
  if (apiKey) return { vertexai: true, apiKey, apiVersion: API_VERSION, httpOptions };
  const project = options?.project ?? process.env.GOOGLE_CLOUD_PROJECT ?? process.env.GCLOUD_PROJECT;
  const location = options?.location ?? process.env.GOOGLE_CLOUD_LOCATION;
  if (!project || !location) {
    const missing = [
      project ? "" : "a project (options.project or GOOGLE_CLOUD_PROJECT)",
      location ? "" : "a location (options.location or GOOGLE_CLOUD_LOCATION)",
    ];
    throw new ProviderStreamError(
      `Vertex AI needs an API key (options.apiKey or GOOGLE_CLOUD_API_KEY), or Application Default Credentials with ${missing
        .filter(Boolean)
        .join(" and ")}`,
    );
  }
  return { vertexai: true, project, location, apiVersion: API_VERSION, httpOptions };
}

/** Streams one assistant turn from Vertex AI. Never throws; failures end in an `error` event. */
export function streamGoogleVertex(
  model: Model<Api>,
  context: Context,
  options?: GoogleVertexOptions,
): AssistantMessageEventStream {
  return runStream(model, options, async (b) => {
    const clientOptions = vertexClientOptions(model, options);
    const makeClient: GeminiClientFactory = (fetch) =>
      new GoogleGenAI({ ...clientOptions, httpOptions: { ...clientOptions.httpOptions, fetch } });
    await streamGeminiRequest(
      b,
      model,
      context,
      options,
      makeClient,
      options?.thinking && explicitGeminiThinkingConfig(model, options.thinking),
    );
  });
}

/** Tiller's level as pi's thinking option: the same budgets and level names the Gemini API provider sends. */
function thinkingFor(
  model: Model<Api>,
  level: ModelThinkingLevel | undefined,
  options: SimpleStreamOptions | undefined,
): GoogleVertexOptions["thinking"] {
  if (level === undefined) return undefined;
  if (level === "off") return { enabled: false };
  const config = geminiThinkingConfig(model, level, options?.thinkingBudgets);
  if (typeof config?.thinkingLevel === "string") {
    return { enabled: true, level: config.thinkingLevel as GoogleThinkingLevel };
  }
  if (typeof config?.thinkingBudget === "number") return { enabled: true, budgetTokens: config.thinkingBudget };
  return { enabled: true };
}

/** Like `streamGoogleVertex`, with one provider-neutral `reasoning` level. */
export function streamSimpleGoogleVertex(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (l) =>
    streamGoogleVertex(model, context, { ...options, thinking: thinkingFor(model, l, options) }),
  );
}
