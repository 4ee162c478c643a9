/**
 * Amazon Bedrock ConverseStream (`POST /model/{modelId}/converse-stream`). The official client
 * (`@aws-sdk/client-bedrock-runtime`) builds and signs the request (SigV4 from the AWS credential chain, or a
 * bearer token for Bedrock API keys) and maps HTTP errors; the binary `application/vnd.amazon.eventstream`
 * body is read by Tiller's decoder (amazon-bedrock-eventstream.ts, the reason is given there). This module,
 * and the SDK with it, loads on the first Bedrock request.
 */
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseStreamCommand,
} from "@aws-sdk/client-bedrock-runtime";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type {
  Api,
  Context,
  Model,
  ModelThinkingLevel,
  SimpleStreamOptions,
  StreamOptions,
  ThinkingBudgets,
} from "../types.js";
import { type BedrockCredentials, bedrockClientConfig, clientKey, type RawResponse } from "./amazon-bedrock-client.js";
import {
  applyBedrockMessage,
  bedrockStopReason,
  createBedrockStreamState,
  describeBedrockError,
} from "./amazon-bedrock-events.js";
import { EventStreamDecoder } from "./amazon-bedrock-eventstream.js";
import { type BedrockThinkingDisplay, buildConverseInput } from "./amazon-bedrock-request.js";
import { applyOnPayload, type MessageBuilder, mergeHeaders, ProviderStreamError, runStream } from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export type { BedrockCredentials } from "./amazon-bedrock-client.js";
export type { BedrockThinkingDisplay } from "./amazon-bedrock-request.js";

export interface BedrockOptions extends StreamOptions {
  /** Signing region; default AWS_REGION, AWS_DEFAULT_REGION, the region of a standard endpoint, us-east-1. */
  region?: string;
  /** Named profile from ~/.aws/config and ~/.aws/credentials (default AWS_PROFILE). */
  profile?: string;
  toolChoice?: "auto" | "any" | "none" | { type: "tool"; name: string };
  /** Thinking level for Claude models (sent in `additionalModelRequestFields`); undefined or "off" sends none. */
  reasoning?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
  /** Interleaved thinking beta for budget-based Claude models; default true. */
  interleavedThinking?: boolean;
  /** How Claude returns thinking text; default "summarized". */
  thinkingDisplay?: BedrockThinkingDisplay;
  /** Cost-allocation tags attached to the request (Converse `requestMetadata`). */
  requestMetadata?: Record<string, string>;
  /**
   * Bedrock API key: sent as `Authorization: Bearer` instead of SigV4. Default: `apiKey` when it is a real key
   * (not the `<authenticated>` marker `getEnvApiKey` returns for ambient credentials), then
   * AWS_BEARER_TOKEN_BEDROCK.
   */
  bearerToken?: string;
  /** Tiller addition: AWS keys to sign with, instead of the SDK's credential chain. */
  credentials?: BedrockCredentials;
}

/** Adds model and option headers to the request before it is signed (so they are covered by the signature). */
function addHeaders(command: ConverseStreamCommand, headers: Record<string, string> | undefined): void {
  if (!headers) return;
  command.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) Object.assign(request.headers, headers);
      return next(args);
    },
    { step: "build", name: "tillerHeaders" },
  );
}

/**
 * The SDK serializes only the fields it models, so fields `onPayload` added (a Converse feature newer than the
 * SDK, a gateway's extension) are copied into the JSON body here, before signing. Runs only with `onPayload`.
 */
function keepExtraFields(command: ConverseStreamCommand, payload: Record<string, unknown>): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string> };
      const raw = request.body;
      const text = typeof raw === "string" ? raw : raw instanceof Uint8Array ? Buffer.from(raw).toString("utf8") : "";
      if (!text) return next(args);
      const body = JSON.parse(text) as Record<string, unknown>;
      let added = false;
      for (const [key, value] of Object.entries(payload)) {
        if (key !== "modelId" && value !== undefined && !(key in body)) {
          body[key] = value;
          added = true;
        }
      }
      if (added) {
        request.body = JSON.stringify(body);
        if (request.headers) request.headers["content-length"] = String(Buffer.byteLength(request.body as string));
      }
      return next(args);
    },
    { step: "build", name: "tillerExtraFields" },
  );
}

const VERSION_WARNING_OFF = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";

/**
 * A new client. The SDK warns once per process on Node 20 that *future* SDK releases will need Node 22; the
 * pinned release runs on Node 20, and the multi-line warning would land in the middle of a terminal UI. The
 * switch the SDK reads is set only while a client is built (synchronously), so no child process or other
 * code sees it, and a user who set it keeps their value.
 */
function newClient(config: BedrockRuntimeClientConfig): BedrockRuntimeClient {
  if (process.env[VERSION_WARNING_OFF] !== undefined) return new BedrockRuntimeClient(config);
  process.env[VERSION_WARNING_OFF] = "true";
  try {
    return new BedrockRuntimeClient(config);
  } finally {
    delete process.env[VERSION_WARNING_OFF];
  }
}

/**
 * Clients by settings, most recently used last. Reusing one keeps its resolved credentials (memoized by the
 * SDK until they expire), so a turn does not re-run the credential chain (profile files, SSO cache, ECS or
 * instance metadata calls).
 */
const clients = new Map<string, BedrockRuntimeClient>();
const MAX_CLIENTS = 8;

function clientFor(config: BedrockRuntimeClientConfig): BedrockRuntimeClient {
  const key = clientKey(config);
  let client = clients.get(key);
  if (client) clients.delete(key);
  else client = newClient(config);
  clients.set(key, client);
  if (clients.size > MAX_CLIENTS) {
    const [oldest] = clients.keys();
    if (oldest !== undefined) clients.delete(oldest);
  }
  return client;
}

/** Keeps the raw response of this command (status, headers, body) as the handler returned it. */
function captureResponse(command: ConverseStreamCommand, keep: (response: RawResponse) => void): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      keep(result.response as RawResponse);
      return result;
    },
    { step: "build", name: "tillerRawResponse" },
  );
}

async function run(
  b: MessageBuilder,
  model: Model<Api>,
  context: Context,
  options: BedrockOptions | undefined,
): Promise<void> {
  const opts = options ?? {};
  const { config, region } = bedrockClientConfig(model, opts);
  const client = clientFor(config);
  const input = await applyOnPayload(buildConverseInput(model, context, { ...opts, region }), model, options);
  const command = new ConverseStreamCommand(input);
  addHeaders(command, mergeHeaders(model.headers, opts.headers));
  if (opts.onPayload) keepExtraFields(command, input as unknown as Record<string, unknown>);
  let received: RawResponse | undefined;
  captureResponse(command, (response) => {
    received = response;
  });
  const signal =
    opts.timeoutMs === undefined
      ? opts.signal
      : AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), ...(opts.signal ? [opts.signal] : [])]);
  try {
    // The output's own `stream` is never iterated: Tiller's decoder reads the raw body below.
    await client.send(command, { abortSignal: signal });
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    const info = describeBedrockError(error);
    throw new ProviderStreamError(info.message, info.status);
  }
  const response = received as RawResponse | undefined;
  if (!response?.rawBody) throw new ProviderStreamError("Bedrock returned no event stream");
  await opts.onResponse?.({ status: response.statusCode, headers: response.headers }, model);
  const state = createBedrockStreamState();
  const decoder = new EventStreamDecoder();
  const apply = (message: Parameters<typeof applyBedrockMessage>[2]) => applyBedrockMessage(b, state, message);
  try {
    for await (const chunk of response.rawBody) decoder.push(chunk, apply);
    decoder.end();
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    const info = describeBedrockError(error);
    throw new ProviderStreamError(info.message, info.status);
  }
  if (opts.signal?.aborted) throw new Error("aborted");
  b.done(bedrockStopReason(state.stopReason, b.hasToolCalls()));
}

/** Streams one assistant turn from Bedrock ConverseStream. Never throws; failures end in an `error` event. */
export function streamBedrock(
  model: Model<Api>,
  context: Context,
  options?: BedrockOptions,
): AssistantMessageEventStream {
  return runStream(model, options, (b) => run(b, model, context, options));
}

/** Like `streamBedrock`, with one provider-neutral `reasoning` level mapped to Claude thinking. */
export function streamSimpleBedrock(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  // Converse's own default output limit is low for some models, and Bedrock reserves quota for the whole
  // limit up front: ask for the model's limit, capped at 32k, unless the caller chose one (as pi-ai does).
  const maxTokens = options?.maxTokens ?? (model.maxTokens > 0 ? Math.min(model.maxTokens, 32_000) : undefined);
  return streamWithThinkingFallback(model, level, (reasoning) =>
    streamBedrock(model, context, { ...options, maxTokens, reasoning, thinkingBudgets: options?.thinkingBudgets }),
  );
}
