/**
 * Entry points: pick the provider registered for `model.api`, resolve the API key, and stream. Importing
 * this module registers the built-in APIs. Every failure, including an unknown api, arrives as a stream that
 * ends in an `error` event; these functions do not throw.
 */
import { clearApiProviders, getApiProvider } from "./api-registry.js";
import { getEnvApiKey } from "./env-api-keys.js";
import { createErrorStream, describeThrown } from "./error-stream.js";
import { clampThinkingLevel } from "./models.js";
import { registerBuiltInApiProviders } from "./register-builtins.js";
import type {
  Api,
  AssistantMessage,
  AssistantMessageEventStreamLike,
  Context,
  Model,
  ProviderStreamOptions,
  SimpleStreamOptions,
  StreamOptions,
} from "./types.js";

registerBuiltInApiProviders();

/** Drops every registration (custom ones included) and registers the built-ins again. */
export function resetApiProviders(): void {
  clearApiProviders();
  registerBuiltInApiProviders();
}

/** `options.apiKey` wins; otherwise the provider's environment variable, read now (not at import). */
function withApiKey<T extends StreamOptions>(model: Model<Api>, options: T | undefined): T {
  const apiKey = options?.apiKey || getEnvApiKey(model.provider);
  return (apiKey === undefined ? { ...options } : { ...options, apiKey }) as T;
}

function unknownApi(model: Model<Api>): AssistantMessageEventStreamLike {
  return createErrorStream(
    model,
    `No API provider registered for api "${model.api}" (model ${model.provider}/${model.id}). ` +
      "Use a built-in api or call registerApiProvider first.",
  );
}

/** Streams a reply with provider-specific options. */
export function stream<TApi extends Api>(
  model: Model<TApi>,
  context: Context,
  options?: ProviderStreamOptions,
): AssistantMessageEventStreamLike {
  const provider = getApiProvider(model.api);
  if (!provider) return unknownApi(model);
  try {
    return provider.stream(model, context, withApiKey(model, options));
  } catch (error) {
    return createErrorStream(model, `Provider for api "${model.api}" threw: ${describeThrown(error)}`);
  }
}

/** The final message of `stream` (an error is a message with stopReason "error"/"aborted", not a rejection). */
export function complete<TApi extends Api>(
  model: Model<TApi>,
  context: Context,
  options?: ProviderStreamOptions,
): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}

/**
 * Streams with provider-neutral options. `reasoning` is clamped to a level the model supports (a
 * non-reasoning model always gets "off") before the provider maps it to its wire value.
 */
export function streamSimple<TApi extends Api>(
  model: Model<TApi>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStreamLike {
  const provider = getApiProvider(model.api);
  if (!provider) return unknownApi(model);
  const resolved = withApiKey(model, options);
  if (resolved.reasoning !== undefined) resolved.reasoning = clampThinkingLevel(model, resolved.reasoning);
  try {
    return provider.streamSimple(model, context, resolved);
  } catch (error) {
    return createErrorStream(model, `Provider for api "${model.api}" threw: ${describeThrown(error)}`);
  }
}

/** The final message of `streamSimple`. */
export function completeSimple<TApi extends Api>(
  model: Model<TApi>,
  context: Context,
  options?: SimpleStreamOptions,
): Promise<AssistantMessage> {
  return streamSimple(model, context, options).result();
}
