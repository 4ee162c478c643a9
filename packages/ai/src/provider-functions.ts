/**
 * pi-ai's per-provider entry points (`streamAnthropic`, `streamSimpleGoogle`, …). Each calls its provider
 * directly, whatever is registered for the api, and keeps the provider module (and its vendor SDK) out of
 * start-up: the first call loads it and forwards its events, later calls go straight to it.
 */
import type { BedrockOptions } from "./providers/amazon-bedrock.js";
import type { AnthropicOptions } from "./providers/anthropic.js";
import type { AzureOpenAIResponsesOptions } from "./providers/azure-openai-responses.js";
import type { GoogleOptions } from "./providers/google.js";
import type { GoogleVertexOptions } from "./providers/google-vertex.js";
import type { MistralOptions } from "./providers/mistral.js";
import type { OpenAICodexResponsesOptions } from "./providers/openai-codex-responses.js";
import type { OpenAICompletionsOptions } from "./providers/openai-completions.js";
import type { OpenAIResponsesOptions } from "./providers/openai-responses.js";
import { forwardWhenLoaded, type LoadedApiFunctions, loadBuiltInApi } from "./register-builtins.js";
import type { Api, SimpleStreamOptions, StreamFunction, StreamOptions } from "./types.js";

/** The `which` function of the built-in provider for `api`, loaded on first call. */
export function builtInStreamFunction<TApi extends Api, TOptions extends StreamOptions>(
  api: TApi,
  which: keyof LoadedApiFunctions,
): StreamFunction<TApi, TOptions> {
  // The functions of the load they came from: a new load (e.g. after setBedrockProviderModule) replaces them.
  let loaded: { from: Promise<LoadedApiFunctions>; fns: LoadedApiFunctions } | undefined;
  return (model, context, options) => {
    const from = loadBuiltInApi(api);
    if (loaded?.from === from) return loaded.fns[which](model, context, options);
    const pending = from.then((fns) => {
      loaded = { from, fns };
      return fns;
    });
    return forwardWhenLoaded(pending, (fns) => fns[which], model, context, options);
  };
}

export const streamAnthropic = builtInStreamFunction<"anthropic-messages", AnthropicOptions>(
  "anthropic-messages",
  "stream",
);
export const streamSimpleAnthropic = builtInStreamFunction<"anthropic-messages", SimpleStreamOptions>(
  "anthropic-messages",
  "streamSimple",
);
export const streamGoogle = builtInStreamFunction<"google-generative-ai", GoogleOptions>(
  "google-generative-ai",
  "stream",
);
export const streamSimpleGoogle = builtInStreamFunction<"google-generative-ai", SimpleStreamOptions>(
  "google-generative-ai",
  "streamSimple",
);
export const streamOpenAICompletions = builtInStreamFunction<"openai-completions", OpenAICompletionsOptions>(
  "openai-completions",
  "stream",
);
export const streamSimpleOpenAICompletions = builtInStreamFunction<"openai-completions", SimpleStreamOptions>(
  "openai-completions",
  "streamSimple",
);
export const streamOpenAIResponses = builtInStreamFunction<"openai-responses", OpenAIResponsesOptions>(
  "openai-responses",
  "stream",
);
export const streamSimpleOpenAIResponses = builtInStreamFunction<"openai-responses", SimpleStreamOptions>(
  "openai-responses",
  "streamSimple",
);
export const streamAzureOpenAIResponses = builtInStreamFunction<"azure-openai-responses", AzureOpenAIResponsesOptions>(
  "azure-openai-responses",
  "stream",
);
export const streamSimpleAzureOpenAIResponses = builtInStreamFunction<"azure-openai-responses", SimpleStreamOptions>(
  "azure-openai-responses",
  "streamSimple",
);
export const streamOpenAICodexResponses = builtInStreamFunction<"openai-codex-responses", OpenAICodexResponsesOptions>(
  "openai-codex-responses",
  "stream",
);
export const streamSimpleOpenAICodexResponses = builtInStreamFunction<"openai-codex-responses", SimpleStreamOptions>(
  "openai-codex-responses",
  "streamSimple",
);
export const streamGoogleVertex = builtInStreamFunction<"google-vertex", GoogleVertexOptions>(
  "google-vertex",
  "stream",
);
export const streamSimpleGoogleVertex = builtInStreamFunction<"google-vertex", SimpleStreamOptions>(
  "google-vertex",
  "streamSimple",
);
export const streamMistral = builtInStreamFunction<"mistral-conversations", MistralOptions>(
  "mistral-conversations",
  "stream",
);
export const streamSimpleMistral = builtInStreamFunction<"mistral-conversations", SimpleStreamOptions>(
  "mistral-conversations",
  "streamSimple",
);
/** `streamBedrock` (providers/amazon-bedrock.ts, or the module given to `setBedrockProviderModule`). */
export const streamBedrock = builtInStreamFunction<"bedrock-converse-stream", BedrockOptions>(
  "bedrock-converse-stream",
  "stream",
);
export const streamSimpleBedrock = builtInStreamFunction<"bedrock-converse-stream", SimpleStreamOptions>(
  "bedrock-converse-stream",
  "streamSimple",
);
