/**
 * How a Bedrock request reaches AWS: region, endpoint and credentials for the official client, and the HTTP
 * handler it sends through. The SDK signs (SigV4, or a bearer token for Bedrock API keys) and turns HTTP
 * errors into typed exceptions; Tiller supplies a fetch-based handler so requests go over HTTP/1.1 like every
 * other provider's (the SDK's default HTTP/2 handler fails against HTTP/1.1 proxies and gateways), aborts
 * close the connection, and the raw response reaches `onResponse` and Tiller's eventstream decoder.
 */
import type { BedrockRuntimeClientConfig } from "@aws-sdk/client-bedrock-runtime";
import type { Api, Model } from "../types.js";

/** AWS credentials given directly instead of through the environment or a profile. */
export interface BedrockCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface BedrockAuthOptions {
  region?: string;
  profile?: string;
  bearerToken?: string;
  credentials?: BedrockCredentials;
  apiKey?: string;
  maxRetries?: number;
}

/** What `getEnvApiKey("amazon-bedrock")` returns when ambient AWS credentials exist: not a key itself. */
export const AMBIENT_AWS_CREDENTIALS = "<authenticated>";

const STANDARD_HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

/** The region of a standard `bedrock-runtime.<region>.amazonaws.com` URL, else undefined. */
export function regionOfEndpoint(baseUrl: string): string | undefined {
  try {
    return STANDARD_HOST.exec(new URL(baseUrl).hostname.toLowerCase())?.[1];
  } catch {
    return undefined;
  }
}

/** Explicit option, then AWS_REGION, then AWS_DEFAULT_REGION. */
export function configuredRegion(options: BedrockAuthOptions): string | undefined {
  return options.region || process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || undefined;
}

/**
 * The bearer token (Bedrock API key), if one applies: `bearerToken`, then `apiKey` (unless it is the
 * ambient-credentials marker), then AWS_BEARER_TOKEN_BEDROCK. Explicit `credentials` turn bearer auth off.
 */
function bearerToken(options: BedrockAuthOptions): string | undefined {
  if (options.credentials) return undefined;
  if (options.bearerToken) return options.bearerToken;
  if (options.apiKey && options.apiKey !== AMBIENT_AWS_CREDENTIALS) return options.apiKey;
  return process.env.AWS_BEARER_TOKEN_BEDROCK || undefined;
}

/**
 * The response as the handler received it, for `onResponse` and for Tiller's decoder, which reads the raw body
 * of a successful response (the SDK only reads error bodies).
 */
export interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** Set on success only. */
  rawBody?: ReadableStream<Uint8Array> | null;
}

type RequestHandler = Extract<NonNullable<BedrockRuntimeClientConfig["requestHandler"]>, { handle: unknown }>;
type SdkRequest = Parameters<RequestHandler["handle"]>[0];

function requestUrl(request: SdkRequest): string {
  const port = request.port ? `:${request.port}` : "";
  let query = "";
  for (const [key, value] of Object.entries(request.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      query += `${query ? "&" : "?"}${encodeURIComponent(key)}${v === null ? "" : `=${encodeURIComponent(v)}`}`;
    }
  }
  return `${request.protocol}//${request.hostname}${port}${request.path}${query}`;
}

/** The SDK hands JSON over as a Uint8Array subclass, which undici rejects: give fetch a plain view of it. */
function requestBody(body: unknown): string | Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || body === null || typeof body === "string") return body ?? undefined;
  // A copy backed by a plain ArrayBuffer: what fetch's BodyInit accepts (a view may sit on a SharedArrayBuffer).
  if (body instanceof Uint8Array) return new Uint8Array(body);
  throw new Error(`Bedrock request body of type ${Object.prototype.toString.call(body)} is not supported`);
}

/**
 * A fetch-based request handler, shared by all clients: HTTP/1.1 through undici, aborted by the signal given
 * to `client.send`. A successful body belongs to Tiller's decoder (`rawBody`); the SDK gets an empty one,
 * since its event-stream reader would lock the real one. Error bodies go to the SDK, which turns them into
 * typed exceptions.
 */
const fetchHandler = {
  metadata: { handlerProtocol: "http/1.1" },
  async handle(request: SdkRequest, options?: { abortSignal?: AbortSignal | { aborted: boolean } }) {
    const headers = new Headers();
    // fetch sets host and content-length itself from the URL and the body (the same values the SDK signed).
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase();
      if (lower !== "host" && lower !== "content-length") headers.set(name, String(value));
    }
    const signal = options?.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
    const response = await fetch(requestUrl(request), {
      method: request.method,
      headers,
      body: requestBody(request.body),
      signal,
    });
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      out[key] = value;
    });
    const raw: RawResponse & { reason: string; body: ReadableStream<Uint8Array> | null } = {
      statusCode: response.status,
      reason: response.statusText,
      headers: out,
      body: response.ok ? new ReadableStream<Uint8Array>({ start: (c) => c.close() }) : response.body,
    };
    if (response.ok) raw.rawBody = response.body;
    return { response: raw };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs() {
    return {};
  },
} as unknown as RequestHandler;

/**
 * Client configuration for one request. Region: explicit, then the environment; with a profile and neither,
 * the SDK reads the profile's region; else a standard endpoint's own region, else us-east-1. A standard
 * endpoint is left to the SDK when a region or profile is configured (so AWS_REGION wins over the catalog's
 * us-east-1 URL); any other base URL (a VPC endpoint, a proxy, a test server) is used as given.
 */
export function bedrockClientConfig(
  model: Model<Api>,
  options: BedrockAuthOptions,
): { config: BedrockRuntimeClientConfig; region: string | undefined } {
  const configured = configuredRegion(options);
  const endpointRegion = regionOfEndpoint(model.baseUrl);
  const profile = options.profile || process.env.AWS_PROFILE || undefined;
  // A profile's own region wins over the region of a standard (catalog) URL, as in pi-ai.
  const region = configured ?? (profile ? undefined : (endpointRegion ?? "us-east-1"));
  const config: BedrockRuntimeClientConfig = {
    // The SDK's own retries are off unless asked for: higher layers retry (with credential rotation).
    maxAttempts: (options.maxRetries ?? 0) + 1,
    requestHandler: fetchHandler,
  };
  if (region) config.region = region;
  if (options.profile) config.profile = options.profile;
  if (model.baseUrl && !(endpointRegion && (configured || profile))) config.endpoint = model.baseUrl;
  const token = bearerToken(options);
  if (token) {
    config.token = { token };
    config.authSchemePreference = ["httpBearerAuth"];
  } else if (options.credentials) {
    config.credentials = options.credentials;
    // Given keys mean SigV4, even when AWS_BEARER_TOKEN_BEDROCK is set in the environment.
    config.authSchemePreference = ["sigv4"];
  }
  return { config, region };
}

/**
 * What makes two requests able to share a client: the resolved settings plus the environment the SDK's
 * credential chain reads, so rotated keys or a new profile get a fresh client.
 */
export function clientKey(config: BedrockRuntimeClientConfig): string {
  const env = process.env;
  return JSON.stringify([
    config.region,
    config.endpoint,
    config.profile,
    config.maxAttempts,
    config.authSchemePreference,
    (config.token as { token?: string } | undefined)?.token,
    config.credentials,
    env.AWS_PROFILE,
    env.AWS_ACCESS_KEY_ID,
    env.AWS_SECRET_ACCESS_KEY,
    env.AWS_SESSION_TOKEN,
  ]);
}
