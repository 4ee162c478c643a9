/**
 * `ModelRegistry`: the built-in catalog of @tiller/ai plus the user's `models.json`, which adds providers and
 * models and overrides built-in ones (base URL, headers, per-model fields). Reports which models have
 * credentials and resolves a model's key: runtime, then auth.json, then environment, then models.json's
 * `apiKey`. A bad `models.json` is reported in `errors` (file and path named) and the built-ins stay usable.
 */
import { execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  type Api,
  BUILTIN_SOURCE_ID,
  getApiProvider,
  getBuiltInApis,
  getModels,
  getProviders,
  loadBuiltInApi,
  type Model,
  registerApiProvider,
  registerLazyApiProvider,
  unregisterApiProviders,
} from "@tiller/ai";
import { type AuthStatus, AuthStorage } from "../auth/auth-storage.js";
import { getTillerPaths } from "../home.js";
import { type ModelDefinition, type ProviderConfig, parseModelsJson } from "./models-json.js";

/** Providers that need no credentials. */
const KEYLESS = new Set(["offline", "faux"]);

/** The API-registry source of a provider's `streamSimple` (so unregistering removes exactly it). */
const providerSource = (name: string) => `provider:${name}`;

function toModel(provider: string, def: ModelDefinition, p: ProviderConfig, base?: Model<Api>): Model<Api> {
  const model: Model<Api> = {
    id: def.id,
    name: def.name ?? base?.name ?? def.id,
    api: (def.api ?? p.api ?? base?.api ?? "openai-completions") as Api,
    provider,
    baseUrl: def.baseUrl ?? p.baseUrl ?? base?.baseUrl ?? "",
    reasoning: def.reasoning ?? base?.reasoning ?? false,
    input: def.input ?? base?.input ?? ["text"],
    cost: {
      input: def.cost?.input ?? base?.cost.input ?? 0,
      output: def.cost?.output ?? base?.cost.output ?? 0,
      cacheRead: def.cost?.cacheRead ?? base?.cost.cacheRead ?? 0,
      cacheWrite: def.cost?.cacheWrite ?? base?.cost.cacheWrite ?? 0,
    },
    contextWindow: def.contextWindow ?? base?.contextWindow ?? 128000,
    maxTokens: def.maxTokens ?? base?.maxTokens ?? 16384,
  };
  const headers = { ...base?.headers, ...p.headers, ...def.headers };
  if (Object.keys(headers).length > 0) model.headers = headers;
  const thinking = def.thinkingLevelMap ?? base?.thinkingLevelMap;
  if (thinking) model.thinkingLevelMap = thinking;
  const compat = { ...(base?.compat as Record<string, unknown>), ...p.compat, ...def.compat };
  if (Object.keys(compat).length > 0) model.compat = compat as Model<Api>["compat"];
  return model;
}

/** Resolves a configured `apiKey` value: `!cmd` runs the command, an env var name reads it, else literal. */
export function resolveConfigValue(value: string): string | undefined {
  if (value.startsWith("!")) {
    try {
      return (
        execSync(value.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000 }).trim() ||
        undefined
      );
    } catch {
      return undefined;
    }
  }
  if (/^[A-Z_][A-Z0-9_]*$/.test(value)) return process.env[value] || undefined;
  return value;
}

export class ModelRegistry {
  private models = new Map<string, Model<Api>>();
  private providerConfigs = new Map<string, ProviderConfig>();
  private registered = new Map<string, ProviderConfig>();
  /** Problems in models.json (the file's models are then ignored; built-ins still work). */
  errors: string[] = [];

  private constructor(
    readonly authStorage: AuthStorage,
    readonly modelsJsonPath: string | undefined,
  ) {
    this.refresh();
  }

  static create(
    authStorage: AuthStorage = AuthStorage.create(),
    modelsJsonPath: string = getTillerPaths().models,
  ): ModelRegistry {
    return new ModelRegistry(authStorage, modelsJsonPath);
  }
  static inMemory(authStorage: AuthStorage = AuthStorage.inMemory()): ModelRegistry {
    return new ModelRegistry(authStorage, undefined);
  }

  /** Rebuilds from the catalog, models.json and registered providers. */
  refresh(): void {
    this.models.clear();
    this.providerConfigs.clear();
    this.errors = [];
    const builtin = new Set(getProviders());
    for (const provider of builtin) for (const m of getModels(provider)) this.models.set(key(provider, m.id), m);
    if (this.modelsJsonPath && existsSync(this.modelsJsonPath)) {
      const { config, errors } = parseModelsJson(
        readFileSync(this.modelsJsonPath, "utf8"),
        this.modelsJsonPath,
        builtin,
      );
      this.errors.push(...errors);
      if (config) for (const [name, p] of Object.entries(config.providers)) this.apply(name, p);
    }
    for (const [name, p] of this.registered) this.apply(name, p);
  }

  private apply(name: string, p: ProviderConfig): void {
    this.providerConfigs.set(name, p);
    // Provider-level overrides apply to the provider's existing (built-in) models.
    if (p.baseUrl || p.headers || p.compat || p.api) {
      for (const [k, m] of this.models) if (m.provider === name) this.models.set(k, toModel(name, { id: m.id }, p, m));
    }
    for (const [id, o] of Object.entries(p.modelOverrides ?? {})) {
      const base = this.models.get(key(name, id));
      if (base) this.models.set(key(name, id), toModel(name, { ...o, id }, {}, base));
    }
    // A new model of a built-in provider inherits the provider's api and base URL from its catalog models.
    const sibling = [...this.models.values()].find((m) => m.provider === name);
    const inherited: ProviderConfig = { ...p };
    if (inherited.api === undefined && sibling) inherited.api = sibling.api;
    if (inherited.baseUrl === undefined && sibling) inherited.baseUrl = sibling.baseUrl;
    for (const def of p.models ?? [])
      this.models.set(key(name, def.id), toModel(name, def, inherited, this.models.get(key(name, def.id))));
  }

  /**
   * Adds (or replaces) a provider at run time, same shape as a models.json entry. With `streamSimple` (needs
   * `api`) that function serves the `api` from now on (Tiller's API registry), until `unregisterProvider`.
   */
  registerProvider(name: string, config: ProviderConfig): void {
    const { streamSimple, api } = config;
    if (streamSimple && !api) throw new Error(`Provider ${name}: "api" is required when registering streamSimple.`);
    if (typeof streamSimple === "function" && api) {
      registerApiProvider({ api, stream: streamSimple, streamSimple }, providerSource(name));
    }
    if (config.oauth) this.authStorage.registerOAuthProvider({ ...config.oauth, id: name });
    this.registered.set(name, config);
    this.refresh();
  }
  unregisterProvider(name: string): void {
    const config = this.registered.get(name);
    if (!config) return;
    this.registered.delete(name);
    if (config.oauth) this.authStorage.unregisterOAuthProvider(name);
    unregisterApiProviders(providerSource(name));
    // A built-in API the provider's stream function had replaced serves again.
    const api = config.api;
    if (config.streamSimple && api && !getApiProvider(api) && getBuiltInApis().includes(api))
      registerLazyApiProvider({ api, load: () => loadBuiltInApi(api) }, BUILTIN_SOURCE_ID);
    this.refresh();
  }

  /**
   * The headers a request for `model` adds: `Authorization: Bearer <key>` when its provider asked for it
   * (`authHeader`), with `apiKey` (the request's key) or the registry's; none otherwise.
   */
  authHeaderFor(model: Pick<Model<Api>, "provider">, apiKey?: string): Record<string, string> | undefined {
    if (!this.providerConfigs.get(model.provider)?.authHeader) return undefined;
    const key = apiKey ?? this.getApiKey(model);
    return key ? { Authorization: `Bearer ${key}` } : undefined;
  }

  getAll(): Model<Api>[] {
    return [...this.models.values()];
  }
  find(provider: string, modelId: string): Model<Api> | undefined {
    return this.models.get(key(provider, modelId));
  }
  /** True when a key for the model's provider is available (or the provider needs none). */
  hasConfiguredAuth(model: Pick<Model<Api>, "provider">): boolean {
    if (KEYLESS.has(model.provider)) return true;
    if (this.authStorage.hasAuth(model.provider)) return true;
    const configured = this.providerConfigs.get(model.provider)?.apiKey;
    return configured !== undefined && (configured.startsWith("!") || resolveConfigValue(configured) !== undefined);
  }
  /** Models that can be used now. */
  getAvailable(): Model<Api>[] {
    return this.getAll().filter((m) => this.hasConfiguredAuth(m));
  }
  /** The key for `model`: runtime, auth.json, environment, then models.json `apiKey`. */
  getApiKey(model: Pick<Model<Api>, "provider">): string | undefined {
    return this.authStorage.getApiKeyNow(model.provider) ?? this.configuredKey(model.provider);
  }

  private configuredKey(provider: string): string | undefined {
    const configured = this.providerConfigs.get(provider)?.apiKey;
    return configured ? resolveConfigValue(configured) : undefined;
  }

  // ---- pi's names ----

  /** The first problem found in models.json, if any. */
  getError(): string | undefined {
    return this.errors[0];
  }

  /** The key and extra headers a request for `model` needs; `ok: false` when a models.json value fails. */
  async getApiKeyAndHeaders(
    model: Pick<Model<Api>, "provider" | "headers">,
  ): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string> } | { ok: false; error: string }> {
    try {
      const apiKey = await this.getApiKeyForProvider(model.provider);
      if (this.providerConfigs.get(model.provider)?.authHeader && !apiKey)
        return { ok: false, error: `No API key found for "${model.provider}"` };
      const headers = {
        ...this.providerConfigs.get(model.provider)?.headers,
        ...model.headers,
        ...this.authHeaderFor(model, apiKey),
      };
      return {
        ok: true,
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
      };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Whether `provider` has a key, and where it comes from (auth storage first, then models.json). */
  getProviderAuthStatus(provider: string): AuthStatus {
    const status = this.authStorage.getAuthStatus(provider);
    if (status.configured) return status;
    const configured = this.providerConfigs.get(provider)?.apiKey;
    if (!configured) return status;
    if (configured.startsWith("!")) return { configured: true, source: "models_json_command" };
    if (process.env[configured]) return { configured: true, source: "environment", label: configured };
    return { configured: true, source: "models_json_key" };
  }

  /** A human name for `provider` (the id itself for providers Tiller has no name for). */
  getProviderDisplayName(provider: string): string {
    return PROVIDER_NAMES[provider] ?? provider;
  }

  /** As `getApiKey`, refreshing an expired OAuth credential first (AuthStorage.getApiKey). */
  async getApiKeyForProvider(provider: string): Promise<string | undefined> {
    return (await this.authStorage.getApiKey(provider)) ?? this.configuredKey(provider);
  }

  /** True when the provider's stored credential is an OAuth one. */
  isUsingOAuth(model: Pick<Model<Api>, "provider">): boolean {
    return this.authStorage.get(model.provider)?.type === "oauth";
  }
}

const PROVIDER_NAMES: Record<string, string> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
  google: "Google",
  "google-vertex": "Google Vertex AI",
  "amazon-bedrock": "Amazon Bedrock",
  "azure-openai-responses": "Azure OpenAI",
  mistral: "Mistral",
  xai: "xAI",
  groq: "Groq",
  openrouter: "OpenRouter",
  deepseek: "DeepSeek",
  offline: "Offline",
};

function key(provider: string, id: string): string {
  return `${provider}\u0000${id}`;
}
