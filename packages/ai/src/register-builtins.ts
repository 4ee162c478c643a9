/**
 * Built-in wire APIs, registered lazily: a provider module (and its vendor SDK) is only loaded by the first
 * request that needs it, so importing @tiller/ai stays cheap. The stream is returned at once; events flow
 * once the module has loaded. A module that fails to load becomes an `error` event, never a throw.
 */
import { registerApiProvider } from "./api-registry.js";
import { createErrorMessage, createErrorStream, describeThrown } from "./error-stream.js";
import { createAssistantMessageEventStream } from "./event-stream.js";
import type { BedrockOptions } from "./providers/amazon-bedrock.js";
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

/** Returns a stream at once that forwards the events of `pick(loaded)` once `pending` resolves. */
export function forwardWhenLoaded(
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

/** Loaded functions of each built-in module, shared by the per-API exports (provider-functions.ts). */
const builtinLoads = new Map<string, Promise<LoadedApiFunctions>>();

/**
 * Loads the built-in module of `api` once and returns its two stream functions (rejects for an unknown api;
 * a failed load is tried again by the next call).
 */
export function loadBuiltInApi(api: Api): Promise<LoadedApiFunctions> {
  let pending = builtinLoads.get(api);
  if (!pending) {
    const entry = BUILTIN_MODULES[api];
    if (!entry) return Promise.reject(new Error(`no built-in provider for api "${api}"`));
    pending = loadModule(entry.specifier, entry.importModule, entry.stream, entry.streamSimple);
    pending.catch(() => builtinLoads.delete(api));
    builtinLoads.set(api, pending);
  }
  return pending;
}

/** The two functions of a Bedrock provider module (pi-ai's `bedrockProviderModule` shape). */
export interface BedrockProviderModule {
  streamBedrock: StreamFunction<Api, BedrockOptions>;
  streamSimpleBedrock: StreamFunction<Api, SimpleStreamOptions>;
}

let bedrockOverride: Promise<BedrockProviderModule> | undefined;

/**
 * Uses `module` for the `bedrock-converse-stream` api from now on (also after `resetApiProviders`) instead of
 * the built-in module, e.g. for a bundle that ships its own Bedrock build.
 */
export function setBedrockProviderModule(module: BedrockProviderModule): void {
  bedrockOverride = Promise.resolve(module);
  builtinLoads.delete("bedrock-converse-stream");
  registerLazyApiProvider(
    { api: "bedrock-converse-stream", load: () => loadBuiltInApi("bedrock-converse-stream") },
    BUILTIN_SOURCE_ID,
  );
}
