/**
 * Registry of wire APIs: maps `model.api` to the functions that stream from it. Built-ins register at
 * import of `stream.ts`; anyone can add a custom API (a company gateway, a test double) the same way.
 * `sourceId` groups registrations so an extension can remove exactly what it added.
 */
import { createErrorStream } from "./error-stream.js";
import type {
  Api,
  AssistantMessageEventStreamLike,
  Context,
  Model,
  SimpleStreamOptions,
  StreamFunction,
  StreamOptions,
} from "./types.js";

/** pi-ai's name for a registered full-options stream function (any api). */
export type ApiStreamFunction = StreamFunction<Api, StreamOptions>;
/** pi-ai's name for a registered provider-neutral stream function (any api). */
export type ApiStreamSimpleFunction = StreamFunction<Api, SimpleStreamOptions>;

/** What a wire API provides: a full-options stream function and one taking the provider-neutral options. */
export interface ApiProvider<TApi extends Api = Api, TOptions extends StreamOptions = StreamOptions> {
  api: TApi;
  stream: StreamFunction<TApi, TOptions>;
  streamSimple: StreamFunction<TApi, SimpleStreamOptions>;
}

/** A registered provider as stored: functions accept any model and reject (as a stream) a foreign api. */
export interface RegisteredApiProvider {
  api: Api;
  stream: (model: Model<Api>, context: Context, options?: StreamOptions) => AssistantMessageEventStreamLike;
  streamSimple: (model: Model<Api>, context: Context, options?: SimpleStreamOptions) => AssistantMessageEventStreamLike;
  sourceId?: string;
}

const providers = new Map<Api, RegisteredApiProvider>();

function guard<TOptions>(
  api: Api,
  fn: (model: Model<Api>, context: Context, options?: TOptions) => AssistantMessageEventStreamLike,
) {
  return (model: Model<Api>, context: Context, options?: TOptions): AssistantMessageEventStreamLike => {
    if (model.api !== api) {
      return createErrorStream(model, `Mismatched api: model uses "${model.api}", provider serves "${api}"`);
    }
    return fn(model, context, options);
  };
}

/** Registers (or replaces) the provider for `provider.api`. */
export function registerApiProvider<TApi extends Api, TOptions extends StreamOptions>(
  provider: ApiProvider<TApi, TOptions>,
  sourceId?: string,
): void {
  const api = provider.api;
  providers.set(api, {
    api,
    stream: guard(api, provider.stream as StreamFunction<Api, StreamOptions>),
    streamSimple: guard(api, provider.streamSimple as StreamFunction<Api, SimpleStreamOptions>),
    sourceId,
  });
}

export function getApiProvider(api: Api): RegisteredApiProvider | undefined {
  return providers.get(api);
}

export function getApiProviders(): RegisteredApiProvider[] {
  return [...providers.values()];
}

/** Removes every provider registered with `sourceId`. */
export function unregisterApiProviders(sourceId: string): void {
  for (const [api, provider] of providers) {
    if (provider.sourceId === sourceId) providers.delete(api);
  }
}

/** Removes all providers, built-ins included (see `resetApiProviders` to restore them). */
export function clearApiProviders(): void {
  providers.clear();
}
