/**
 * The gateway's view of the models it can run. `models.json` has one reader: the coding agent's `ModelRegistry`
 * (the @tiller/ai catalog plus `$TILLER_HOME/models.json`, keys from auth.json, the environment or the file),
 * built once at start-up and shared with every run's AgentSession. This class adds what the gateway needs on
 * top: the default model, "provider/id" (or bare id) resolution with the key to call it, and the offline
 * fallback when nothing is configured.
 */
import { join } from "node:path";
import { type Api, getProviders, type Model } from "@tiller/ai";
import { AuthStorage, ModelRegistry as ModelCatalog } from "@tiller/coding-agent";
import { ConfigError } from "./jsonc.js";

export const OFFLINE_MODEL_REF = "offline/tiller-offline";

/** A resolved model plus the credential to call it with (undefined: the provider needs none or env). */
export interface ResolvedModel {
  ref: string;
  model: Model<Api>;
  apiKey?: string;
}

export class ModelRegistry {
  private readonly builtin = new Set<string>(getProviders());

  private constructor(
    readonly defaultRef: string,
    /** The coding agent's registry (the one reader of models.json); runs' AgentSessions share it. */
    readonly catalog: ModelCatalog,
  ) {}

  /** Reads `$home/models.json` (JSON with comments) once. Missing file: catalog only. Throws ConfigError. */
  static load(home: string, configuredDefault: string): ModelRegistry {
    const catalog = ModelCatalog.create(AuthStorage.create(join(home, "auth.json")), join(home, "models.json"));
    // A bad models.json must stop the gateway with the file and key named, not run on without its providers.
    if (catalog.errors.length > 0) throw new ConfigError(catalog.errors.join("; "));
    let def = configuredDefault.trim();
    if (!def) {
      const builtin = new Set<string>(getProviders());
      const first = catalog.getAll().find((m) => !builtin.has(m.provider));
      def = first ? `${first.provider}/${first.id}` : OFFLINE_MODEL_REF;
    }
    return new ModelRegistry(def, catalog);
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
    // A bare id: models.json's own providers first, then the catalog.
    const model = provider ? this.catalog.find(provider, id) : this.list().find((m) => m.id === id);
    if (!model) return undefined;
    return { ref: `${model.provider}/${model.id}`, model, apiKey: this.catalog.getApiKey(model) };
  }

  /** Every model the gateway can run: models.json's own providers first, then the catalog. */
  list(): Model<Api>[] {
    const all = this.catalog.getAll();
    return [...all.filter((m) => !this.builtin.has(m.provider)), ...all.filter((m) => this.builtin.has(m.provider))];
  }

  /** True when the default model is the offline one (no provider configured). */
  get isOffline(): boolean {
    return this.defaultRef === OFFLINE_MODEL_REF;
  }
}
