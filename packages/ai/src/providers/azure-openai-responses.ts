/**
 * Azure OpenAI Responses API (`{resource}.openai.azure.com/openai/v1/responses?api-version=…`) through the
 * official SDK's `AzureOpenAI` client: the `api-key` header, the `api-version` query, and the Azure deployment
 * name in place of the model id. Requests and events are the OpenAI Responses ones (openai-responses.ts).
 */
import { AzureOpenAI } from "openai";
import { getEnvApiKey } from "../env-api-keys.js";
import type { AssistantMessageEventStream } from "../event-stream.js";
import type { Api, Context, Model, ModelThinkingLevel, SimpleStreamOptions } from "../types.js";
import { buildResponsesParams, type OpenAIResponsesOptions, streamResponsesRequest } from "./openai-responses.js";
import { applyOnPayload, mergeHeaders, ProviderStreamError, runStream } from "./stream-shared.js";
import { effectiveLevel, streamWithThinkingFallback } from "./thinking-shared.js";

export interface AzureOpenAIResponsesOptions extends OpenAIResponsesOptions {
  /** Reasoning level; undefined sends no reasoning settings. `off` is Tiller's addition (pi: undefined). */
  reasoningEffort?: ModelThinkingLevel;
  /** Reasoning summary detail; default `auto`, `null` asks for none. */
  reasoningSummary?: "auto" | "detailed" | "concise" | null;
  /** Default: AZURE_OPENAI_API_VERSION, else `v1` (the version-less v1 API). */
  azureApiVersion?: string;
  /** `https://{name}.openai.azure.com/openai/v1` when no base URL is given. Default: AZURE_OPENAI_RESOURCE_NAME. */
  azureResourceName?: string;
  /** Wins over the resource name and the model's baseUrl. Default: AZURE_OPENAI_BASE_URL. */
  azureBaseUrl?: string;
  /** Sent as the model name. Default: AZURE_OPENAI_DEPLOYMENT_NAME_MAP (`model=deployment,…`), else the model id. */
  azureDeploymentName?: string;
}

const DEFAULT_API_VERSION = "v1";

/** `model=deployment,model2=deployment2` → the deployment of `modelId`, if listed. */
function deploymentFromMap(map: string | undefined, modelId: string): string | undefined {
  for (const entry of (map ?? "").split(",")) {
    const eq = entry.indexOf("=");
    if (eq > 0 && entry.slice(0, eq).trim() === modelId) return entry.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export function resolveAzureDeploymentName(
  model: Model<Api>,
  options: AzureOpenAIResponsesOptions | undefined,
): string {
  return (
    options?.azureDeploymentName ??
    deploymentFromMap(process.env.AZURE_OPENAI_DEPLOYMENT_NAME_MAP, model.id) ??
    model.id
  );
}

/**
 * The client's base URL. A bare Azure host (`https://x.openai.azure.com` or `/openai`) gets the `/openai/v1`
 * path the v1 API lives under; any other URL (a proxy, a loopback server) is used as given.
 */
export function resolveAzureBaseUrl(model: Model<Api>, options: AzureOpenAIResponsesOptions | undefined): string {
  const resource = options?.azureResourceName ?? process.env.AZURE_OPENAI_RESOURCE_NAME;
  const raw =
    options?.azureBaseUrl?.trim() ||
    process.env.AZURE_OPENAI_BASE_URL?.trim() ||
    (resource ? `https://${resource}.openai.azure.com/openai/v1` : "") ||
    model.baseUrl.trim();
  if (!raw) {
    throw new ProviderStreamError(
      "No Azure OpenAI endpoint: set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName or a model baseUrl",
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderStreamError(`Invalid Azure OpenAI base URL: ${raw}`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  const azureHost = /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/.test(url.hostname);
  if (azureHost && (path === "" || path === "/openai")) {
    url.pathname = "/openai/v1";
    url.search = "";
  }
  return url.toString().replace(/\/+$/, "");
}

function createAzureClient(model: Model<Api>, options: AzureOpenAIResponsesOptions | undefined): AzureOpenAI {
  const apiKey = options?.apiKey ?? getEnvApiKey(model.provider) ?? process.env.AZURE_OPENAI_API_KEY;
  if (!apiKey) {
    throw new ProviderStreamError(
      `No API key for provider "${model.provider}": pass options.apiKey or set AZURE_OPENAI_API_KEY`,
    );
  }
  return new AzureOpenAI({
    apiKey,
    apiVersion: options?.azureApiVersion ?? process.env.AZURE_OPENAI_API_VERSION ?? DEFAULT_API_VERSION,
    baseURL: resolveAzureBaseUrl(model, options),
    defaultHeaders: mergeHeaders(model.headers, options?.headers),
    maxRetries: options?.maxRetries ?? 0,
    ...(options?.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    dangerouslyAllowBrowser: true,
    logLevel: "off",
  });
}

/** Streams one assistant turn from Azure OpenAI. Never throws; failures end in an `error` event. */
export function streamAzureOpenAIResponses(
  model: Model<Api>,
  context: Context,
  options?: AzureOpenAIResponsesOptions,
): AssistantMessageEventStream {
  return runStream(model, options, async (b) => {
    const client = createAzureClient(model, options);
    const params = buildResponsesParams(model, context, options);
    params.model = resolveAzureDeploymentName(model, options);
    const reasoning = params.reasoning as Record<string, unknown> | undefined;
    if (reasoning?.summary !== undefined && options?.reasoningSummary !== undefined) {
      if (options.reasoningSummary === null) delete reasoning.summary;
      else reasoning.summary = options.reasoningSummary;
    }
    const payload = await applyOnPayload(params, model, options);
    await streamResponsesRequest(b, model, client, payload, options);
  });
}

/** Like `streamAzureOpenAIResponses`, with one provider-neutral `reasoning` level. */
export function streamSimpleAzureOpenAIResponses(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  const level = effectiveLevel(model, options?.reasoning);
  return streamWithThinkingFallback(model, level, (reasoningEffort) =>
    streamAzureOpenAIResponses(model, context, { ...options, reasoningEffort }),
  );
}
