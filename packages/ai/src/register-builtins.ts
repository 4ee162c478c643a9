/**
 * Built-in wire APIs, registered lazily: a provider module (and its vendor SDK) is only loaded by the first
 * request that needs it, so importing @tiller/ai stays cheap. The stream is returned at once; events flow
 * once the module has loaded. A module that fails to load becomes an `error` event, never a throw.
 */
import { registerApiProvider } from "./api-registry.js";
import { createErrorMessage, createErrorStream, describeThrown } from "./error-stream.js";
import { createAssistantMessageEventStream } from "./event-stream.js";
import type { BedrockOptions } from "./providers/amazon-bedrock.js";
import type { AzureOpenAIResponsesOptions } from "./providers/azure-openai-responses.js";
import type { GoogleVertexOptions } from "./providers/google-vertex.js";
import type { MistralOptions } from "./providers/mistral.js";
import type { OpenAICodexResponsesOptions } from "./providers/openai-codex-responses.js";
import type {
  Api,
  AssistantMessageEventStreamLike,
  Context,
  Model,
  SimpleStreamOptions,
  StreamFunction,
  StreamOptions,
} from "./types.js";

/** The two functions a lazily loaded API module supplies. */
export interface LoadedApiFunctions {
  stream: StreamFunction<Api, StreamOptions>;
  streamSimple: StreamFunction<Api, SimpleStreamOptions>;
}

/** An API whose implementation is fetched on first use by `load` (called at most once while it succeeds). */
export interface LazyApiProvider {
  api: Api;
  load: () => Promise<LoadedApiFunctions>;
}

/** Source id of the built-in registrations. */
export const BUILTIN_SOURCE_ID = "tiller:builtin";

/** Built-in module per api: path relative to this file and the names of its two exported stream functions. */
const BUILTIN_MODULES: Record<
  string,
  { specifier: string; importModule: () => Promise<unknown>; stream: string; streamSimple: string }
> = {
  "openai-completions": {
    specifier: "./providers/openai-completions.js",
    importModule: () => import("./providers/openai-completions.js"),
    stream: "streamOpenAICompletions",
    streamSimple: "streamSimpleOpenAICompletions",
  },
  "openai-responses": {
    specifier: "./providers/openai-responses.js",
    importModule: () => import("./providers/openai-responses.js"),
    stream: "streamOpenAIResponses",
    streamSimple: "streamSimpleOpenAIResponses",
  },
  "anthropic-messages": {
    specifier: "./providers/anthropic.js",
    importModule: () => import("./providers/anthropic.js"),
    stream: "streamAnthropic",
    streamSimple: "streamSimpleAnthropic",
  },
  "google-generative-ai": {
    specifier: "./providers/google.js",
    importModule: () => import("./providers/google.js"),
    stream: "streamGoogle",
    streamSimple: "streamSimpleGoogle",
  },
  "bedrock-converse-stream": {
    specifier: "./providers/amazon-bedrock.js",
    // A module given to setBedrockProviderModule replaces the built-in one (and the AWS SDK it loads).
    importModule: () => bedrockOverride ?? import("./providers/amazon-bedrock.js"),
    stream: "streamBedrock",
    streamSimple: "streamSimpleBedrock",
  },
  faux: {
    specifier: "./providers/faux.js",
    importModule: () => import("./providers/faux.js"),
    stream: "streamFaux",
    streamSimple: "streamSimpleFaux",
  },
  offline: {
    specifier: "./providers/offline.js",
    importModule: () => import("./providers/offline.js"),
    stream: "streamOffline",
    streamSimple: "streamSimpleOffline",
  },
  "azure-openai-responses": {
    specifier: "./providers/azure-openai-responses.js",
    importModule: () => import("./providers/azure-openai-responses.js"),
    stream: "streamAzureOpenAIResponses",
    streamSimple: "streamSimpleAzureOpenAIResponses",
  },
  "openai-codex-responses": {
    specifier: "./providers/openai-codex-responses.js",
    importModule: () => import("./providers/openai-codex-responses.js"),
    stream: "streamOpenAICodexResponses",
    streamSimple: "streamSimpleOpenAICodexResponses",
  },
  "google-vertex": {
    specifier: "./providers/google-vertex.js",
    importModule: () => import("./providers/google-vertex.js"),
    stream: "streamGoogleVertex",
    streamSimple: "streamSimpleGoogleVertex",
  },
  "mistral-conversations": {
    specifier: "./providers/mistral.js",
    importModule: () => import("./providers/mistral.js"),
    stream: "streamMistral",
    streamSimple: "streamSimpleMistral",
  },
};

/** Loads `specifier` and picks the two named functions; rejects with a readable reason otherwise. */
async function loadModule(
  specifier: string,
  importModule: () => Promise<unknown>,
  streamName: string,
  simpleName: string,
): Promise<LoadedApiFunctions> {
  // Literal import() calls (one per provider) keep each provider and its SDK out of start-up, and let a
  // bundler split them into their own chunks.
  const mod = (await importModule()) as Record<string, unknown>;
  const stream = mod[streamName];
  const streamSimple = mod[simpleName];
  if (typeof stream !== "function" || typeof streamSimple !== "function") {
    throw new Error(`module ${specifier} does not export ${streamName} and ${simpleName}`);
  }
  return {
    stream: stream as LoadedApiFunctions["stream"],
    streamSimple: streamSimple as LoadedApiFunctions["streamSimple"],
  };
}

type Pick2 = (fns: LoadedApiFunctions) => StreamFunction<Api, StreamOptions & SimpleStreamOptions>;

/**
 * Registers an API whose functions are loaded on first use. Until loaded, each call returns a stream that
 * forwards the real provider's events; afterwards calls go straight to the provider (no forwarding cost).
 */
export function registerLazyApiProvider(provider: LazyApiProvider, sourceId?: string): void {
  let loaded: LoadedApiFunctions | undefined;
  let loading: Promise<LoadedApiFunctions> | undefined;
  const ensure = (): Promise<LoadedApiFunctions> => {
    loading ??= provider.load().then(
      (fns) => {
        loaded = fns;
        return fns;
      },
      (error: unknown) => {
        loading = undefined; // a later request tries again (the failure may be transient)
        throw error;
      },
    );
    return loading;
  };

  const call = (pick: Pick2, model: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
    if (loaded) {
      try {
        return pick(loaded)(model, context, options);
      } catch (error) {
        return createErrorStream(model, `Provider for api "${model.api}" threw: ${describeThrown(error)}`);
      }
    }
    return forwardWhenLoaded(ensure(), pick, model, context, options);
  };

  registerApiProvider(
    {
      api: provider.api,
      stream: (model, context, options) => call((f) => f.stream, model, context, options),
      streamSimple: (model, context, options) => call((f) => f.streamSimple, model, context, options),
    },
    sourceId,
  );
}

function forwardWhenLoaded(
  pending: Promise<LoadedApiFunctions>,
  pick: Pick2,
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStreamLike {
  const outer = createAssistantMessageEventStream();
  const fail = (text: string) => {
    const reason = options?.signal?.aborted ? "aborted" : "error";
    outer.push({ type: "error", reason, error: createErrorMessage(model, text, reason) });
  };
  void (async () => {
    let fns: LoadedApiFunctions;
    try {
      fns = await pending;
    } catch (error) {
      fail(`Failed to load provider for api "${model.api}": ${describeThrown(error)}`);
      return;
    }
    try {
      const inner = pick(fns)(model, context, options);
      for await (const event of inner) {
        outer.push(event);
        if (event.type === "done" || event.type === "error") return;
      }
      fail(`Provider for api "${model.api}" ended its stream without a final event`);
    } catch (error) {
      fail(`Provider for api "${model.api}" failed: ${describeThrown(error)}`);
    }
  })();
  return outer;
}

/** Registers every built-in API (lazily). Safe to call again: it replaces the built-in entries. */
export function registerBuiltInApiProviders(): void {
  for (const [api, entry] of Object.entries(BUILTIN_MODULES)) {
    registerLazyApiProvider(
      { api, load: () => loadModule(entry.specifier, entry.importModule, entry.stream, entry.streamSimple) },
      BUILTIN_SOURCE_ID,
    );
  }
}

/** Apis registered by `registerBuiltInApiProviders`. */
export function getBuiltInApis(): Api[] {
  return Object.keys(BUILTIN_MODULES);
}

/** Loaded functions of each built-in module, shared by the per-API exports below. */
const builtinLoads = new Map<string, Promise<LoadedApiFunctions>>();

function loadBuiltin(api: string): Promise<LoadedApiFunctions> {
  let pending = builtinLoads.get(api);
  if (!pending) {
    const entry = BUILTIN_MODULES[api];
    if (!entry) return Promise.reject(new Error(`no built-in module for api "${api}"`));
    pending = loadModule(entry.specifier, entry.importModule, entry.stream, entry.streamSimple);
    pending.catch(() => builtinLoads.delete(api)); // a later call tries again
    builtinLoads.set(api, pending);
  }
  return pending;
}

/**
 * One built-in provider function as a module export (pi's `streamAnthropic`, `streamMistral`, …): the provider
 * module loads on the first call, so exporting it costs nothing at import. Goes straight to the provider and
 * ignores the registry, like pi's.
 */
export function builtinStreamFunction<TApi extends Api, TOptions extends StreamOptions>(
  api: TApi,
  which: keyof LoadedApiFunctions,
): StreamFunction<TApi, TOptions> {
  let loaded: LoadedApiFunctions | undefined;
  return (model, context, options) => {
    if (loaded) return loaded[which](model, context, options);
    const pending = loadBuiltin(api).then((fns) => {
      loaded = fns;
      return fns;
    });
    return forwardWhenLoaded(pending, (fns) => fns[which], model, context, options);
  };
}

export const streamAzureOpenAIResponses = builtinStreamFunction<"azure-openai-responses", AzureOpenAIResponsesOptions>(
  "azure-openai-responses",
  "stream",
);
export const streamSimpleAzureOpenAIResponses = builtinStreamFunction<"azure-openai-responses", SimpleStreamOptions>(
  "azure-openai-responses",
  "streamSimple",
);
export const streamOpenAICodexResponses = builtinStreamFunction<"openai-codex-responses", OpenAICodexResponsesOptions>(
  "openai-codex-responses",
  "stream",
);
export const streamSimpleOpenAICodexResponses = builtinStreamFunction<"openai-codex-responses", SimpleStreamOptions>(
  "openai-codex-responses",
  "streamSimple",
);
export const streamGoogleVertex = builtinStreamFunction<"google-vertex", GoogleVertexOptions>(
  "google-vertex",
  "stream",
);
export const streamSimpleGoogleVertex = builtinStreamFunction<"google-vertex", SimpleStreamOptions>(
  "google-vertex",
  "streamSimple",
);
export const streamMistral = builtinStreamFunction<"mistral-conversations", MistralOptions>(
  "mistral-conversations",
  "stream",
);
export const streamSimpleMistral = builtinStreamFunction<"mistral-conversations", SimpleStreamOptions>(
  "mistral-conversations",
  "streamSimple",
);
/** The two functions of a Bedrock provider module (pi-ai's `bedrockProviderModule` shape). */
export interface BedrockProviderModule {
  streamBedrock: StreamFunction<Api, BedrockOptions>;
  streamSimpleBedrock: StreamFunction<Api, SimpleStreamOptions>;
}

let bedrockOverride: Promise<BedrockProviderModule> | undefined;

/** The Bedrock functions: the override when one is set, else the built-in module (see BUILTIN_MODULES). */
const loadBedrock = (): Promise<LoadedApiFunctions> => loadBuiltin("bedrock-converse-stream");

/**
 * Uses `module` for the `bedrock-converse-stream` api from now on (also after `resetApiProviders`) instead of
 * the built-in module, e.g. for a bundle that ships its own Bedrock build.
 */
export function setBedrockProviderModule(module: BedrockProviderModule): void {
  bedrockOverride = Promise.resolve(module);
  builtinLoads.delete("bedrock-converse-stream");
  registerLazyApiProvider({ api: "bedrock-converse-stream", load: loadBedrock }, BUILTIN_SOURCE_ID);
}

/** `streamBedrock` (providers/amazon-bedrock.ts), loaded with the AWS SDK on first call. */
export const streamBedrock: StreamFunction<Api, BedrockOptions> = (model, context, options) =>
  forwardWhenLoaded(loadBedrock(), (f) => f.stream, model, context, options);

/** `streamSimpleBedrock`, loaded on first call. */
export const streamSimpleBedrock: StreamFunction<Api, SimpleStreamOptions> = (model, context, options) =>
  forwardWhenLoaded(loadBedrock(), (f) => f.streamSimple, model, context, options);
