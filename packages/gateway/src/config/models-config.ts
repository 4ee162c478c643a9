/**
 * Providers and models: the @tiller/ai catalog plus $TILLER_HOME/models.json, which adds custom providers
 * (any OpenAI-compatible endpoint, a local server) or overrides catalog base URLs and keys:
 *
 *   { "providers": { "local": { "baseUrl": "http://127.0.0.1:8080/v1", "api": "openai-completions",
 *       "apiKey": "sk-…", "models": [{ "id": "qwen3", "contextWindow": 32768 }] } } }
 *
 * A model reference is "provider/model-id". With nothing configured the gateway runs the offline model.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Api, getEnvApiKey, getModel, getModels, getProviders, type Model } from "@tiller/ai";
import { ConfigError, parseJsonc } from "./jsonc.js";

export const OFFLINE_MODEL_REF = "offline/tiller-offline";

/** A resolved model plus the credential to call it with (undefined: the provider needs none or env). */
export interface ResolvedModel {
  ref: string;
  model: Model<Api>;
  apiKey?: string;
}

interface ProviderEntry {
  baseUrl?: string;
  api?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  models: Model<Api>[];
}

/** Model lookup for the gateway. Built once at start-up; `resolve` is a map lookup. */
export class ModelRegistry {
  private readonly custom = new Map<string, ProviderEntry>();

  constructor(readonly defaultRef: string) {}

  /** Reads `$home/models.json` (JSON with comments). Missing file: catalog only. Throws ConfigError. */
  static load(home: string, configuredDefault: string): ModelRegistry {
    const file = join(home, "models.json");
    const entries = new Map<string, ProviderEntry>();
    if (existsSync(file)) {
      const parsed = parseJsonc(readFileSync(file, "utf8"), file) as { providers?: unknown };
      const providers = parsed?.providers;
      if (providers === undefined || providers === null || typeof providers !== "object") {
        throw new ConfigError(`${file}: providers: expected an object of provider entries`);
      }
      for (const [name, raw] of Object.entries(providers as Record<string, unknown>)) {
        entries.set(name, parseProvider(file, name, raw));
      }
    }
    let def = configuredDefault.trim();
    if (!def) {
      const first = [...entries.entries()].find(([, p]) => p.models.length > 0);
      def = first ? `${first[0]}/${(first[1].models[0] as Model<Api>).id}` : OFFLINE_MODEL_REF;
    }
    const reg = new ModelRegistry(def);
    for (const [k, v] of entries) reg.custom.set(k, v);
    return reg;
  }

  /** "provider/id" (or a bare id of a models.json or catalog model) → model; undefined when unknown. */
  resolve(ref?: string, providerHint?: string): ResolvedModel | undefined {
    const wanted = (ref ?? "").trim() || this.defaultRef;
    let provider = providerHint;
    let id = wanted;
    const slash = wanted.indexOf("/");
    if (!provider && slash > 0) {
      provider = wanted.slice(0, slash);
      id = wanted.slice(slash + 1);
    }
    if (!provider) {
      for (const [name, entry] of this.custom) if (entry.models.some((m) => m.id === id)) provider = name;
      if (!provider) provider = getProviders().find((p) => getModel(p, id) !== undefined);
    }
    if (!provider) return undefined;
    const entry = this.custom.get(provider);
    const custom = entry?.models.find((m) => m.id === id);
    const catalog = getModel(provider, id);
    const base = custom ?? catalog;
    if (!base) return undefined;
    const model: Model<Api> = {
      ...base,
      ...(entry?.baseUrl && !custom ? { baseUrl: entry.baseUrl } : {}),
      ...(entry?.headers ? { headers: { ...entry.headers, ...base.headers } } : {}),
    };
    return { ref: `${provider}/${id}`, model, apiKey: entry?.apiKey ?? getEnvApiKey(provider) };
  }

  /** Every model the gateway can run: custom ones first, then the catalog. */
  list(): Model<Api>[] {
    const out: Model<Api>[] = [];
    for (const entry of this.custom.values()) out.push(...entry.models);
    for (const p of getProviders()) out.push(...getModels(p));
    return out;
  }

  /** True when the default model is the offline one (no provider configured). */
  get isOffline(): boolean {
    return this.defaultRef === OFFLINE_MODEL_REF;
  }
}

function parseProvider(file: string, name: string, raw: unknown): ProviderEntry {
  const at = `${file}: providers.${name}`;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new ConfigError(`${at}: expected an object`);
  const o = raw as Record<string, unknown>;
  const str = (key: string): string | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string") throw new ConfigError(`${at}.${key}: expected a string, got ${JSON.stringify(v)}`);
    return v;
  };
  const baseUrl = str("baseUrl");
  const api = str("api");
  const apiKey = str("apiKey");
  const headers = o.headers as Record<string, string> | undefined;
  const modelsRaw = o.models ?? [];
  if (!Array.isArray(modelsRaw)) throw new ConfigError(`${at}.models: expected an array`);
  const models = modelsRaw.map((m, i): Model<Api> => {
    const mp = `${at}.models[${i}]`;
    if (m === null || typeof m !== "object") throw new ConfigError(`${mp}: expected an object`);
    const mo = m as Record<string, unknown>;
    if (typeof mo.id !== "string" || !mo.id) throw new ConfigError(`${mp}.id: expected a non-empty string`);
    const mApi = (mo.api as string | undefined) ?? api;
    const mBase = (mo.baseUrl as string | undefined) ?? baseUrl;
    if (!mApi) throw new ConfigError(`${mp}.api: missing (set it on the model or the provider)`);
    if (mBase === undefined) throw new ConfigError(`${mp}.baseUrl: missing (set it on the model or the provider)`);
    const num = (key: string, def: number): number => {
      const v = mo[key];
      if (v === undefined) return def;
      if (typeof v !== "number" || v < 0) throw new ConfigError(`${mp}.${key}: expected a number ≥ 0`);
      return v;
    };
    const cost = (mo.cost ?? {}) as Record<string, number>;
    return {
      id: mo.id,
      name: typeof mo.name === "string" ? mo.name : mo.id,
      api: mApi,
      provider: name,
      baseUrl: mBase,
      reasoning: mo.reasoning === true,
      input: Array.isArray(mo.input) ? (mo.input as ("text" | "image")[]) : ["text"],
      cost: {
        input: cost.input ?? 0,
        output: cost.output ?? 0,
        cacheRead: cost.cacheRead ?? 0,
        cacheWrite: cost.cacheWrite ?? 0,
      },
      contextWindow: num("contextWindow", 128_000),
      maxTokens: num("maxTokens", 16_384),
      ...(mo.compat ? { compat: mo.compat as Record<string, unknown> } : {}),
      ...(headers || mo.headers ? { headers: { ...headers, ...(mo.headers as Record<string, string>) } } : {}),
    } as Model<Api>;
  });
  return { baseUrl, api, apiKey, headers, models };
}
