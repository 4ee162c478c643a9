/**
 * pi-ai's per-provider entry points (`streamAnthropic`, `streamSimpleGoogle`, …). Each calls its provider
 * directly, whatever is registered for the api, and keeps the provider module (and its vendor SDK) out of
 * start-up: the first call loads it and forwards its events, later calls go straight to it.
 */
import type { AnthropicOptions } from "./providers/anthropic.js";
import type { GoogleOptions } from "./providers/google.js";
import type { OpenAICompletionsOptions } from "./providers/openai-completions.js";
import type { OpenAIResponsesOptions } from "./providers/openai-responses.js";
import { forwardWhenLoaded, type LoadedApiFunctions, loadBuiltInApi } from "./register-builtins.js";
import type { Api, SimpleStreamOptions, StreamFunction, StreamOptions } from "./types.js";

/** The `which` function of the built-in provider for `api`, loaded on first call. */
export function builtInStreamFunction<TApi extends Api, TOptions extends StreamOptions>(
  api: TApi,
  which: keyof LoadedApiFunctions,
): StreamFunction<TApi, TOptions> {
  let loaded: LoadedApiFunctions | undefined;
  return (model, context, options) => {
    if (loaded) return loaded[which](model, context, options);
    const pending = loadBuiltInApi(api).then((fns) => {
      loaded = fns;
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
