/**
 * Model lookup over the shipped catalog, cost accounting and reasoning-level clamping. Lookups are O(1) maps
 * built once at import; nothing here touches the network.
 */
import { MODELS } from "./models-catalog.js";
import type { Api, Model, ModelThinkingLevel, Provider, Usage } from "./types.js";

type Catalog = typeof MODELS;
/** Providers that have models in the shipped catalog. */
export type CatalogProvider = keyof Catalog;
/** Model ids the catalog ships for `P`. */
export type CatalogModelId<P extends CatalogProvider> = keyof Catalog[P] & string;
type CatalogApi<P extends CatalogProvider, I extends CatalogModelId<P>> = Catalog[P][I] extends { api: infer A }
  ? A extends Api
    ? A
    : Api
  : Api;

const registry = new Map<string, Map<string, Model<Api>>>();
for (const [provider, models] of Object.entries(MODELS)) {
  const byId = new Map<string, Model<Api>>();
  for (const [id, model] of Object.entries(models as Record<string, Model<Api>>)) byId.set(id, model);
  registry.set(provider, byId);
}

/**
 * The catalog model `id` of `provider`. With literal arguments the result is typed (api included); with
 * arbitrary strings it is `undefined` when the catalog has no such model.
 */
export function getModel<P extends CatalogProvider, I extends CatalogModelId<P>>(
  provider: P,
  modelId: I,
): Model<CatalogApi<P, I>>;
export function getModel(provider: Provider, modelId: string): Model<Api> | undefined;
export function getModel(provider: Provider, modelId: string): Model<Api> | undefined {
  return registry.get(provider)?.get(modelId);
}

/** Providers with at least one catalog model, in catalog order. */
export function getProviders(): Provider[] {
  return [...registry.keys()];
}

/** Every catalog model of `provider` (empty for an unknown provider). */
export function getModels(provider: Provider): Model<Api>[] {
  const models = registry.get(provider);
  return models ? [...models.values()] : [];
}

/**
 * Fills `usage.cost` (dollars) from the model's per-million-token prices and returns it. Mutates `usage`,
 * as pi-ai does, so a provider can call it after each usage update of the message it is building.
 */
export function calculateCost<TApi extends Api>(model: Model<TApi>, usage: Usage): Usage["cost"] {
  const perToken = 1 / 1_000_000;
  usage.cost.input = model.cost.input * perToken * usage.input;
  usage.cost.output = model.cost.output * perToken * usage.output;
  usage.cost.cacheRead = model.cost.cacheRead * perToken * usage.cacheRead;
  usage.cost.cacheWrite = model.cost.cacheWrite * perToken * usage.cacheWrite;
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  return usage.cost;
}

/** All levels, weakest first. The order drives clamping. */
export const THINKING_LEVELS: readonly ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/**
 * Levels the model accepts. A non-reasoning model supports only `off`. For a reasoning model every level is
 * supported unless its `thinkingLevelMap` maps it to `null`, except `xhigh`, which must be mapped explicitly.
 */
export function getSupportedThinkingLevels<TApi extends Api>(model: Model<TApi>): ModelThinkingLevel[] {
  if (!model.reasoning) return ["off"];
  const map = model.thinkingLevelMap;
  return THINKING_LEVELS.filter((level) => {
    const mapped = map?.[level];
    if (mapped === null) return false;
    return level === "xhigh" ? mapped !== undefined : true;
  });
}

/**
 * The level to actually use for `level` on `model`: the level itself when supported, else the nearest
 * stronger supported level, else the nearest weaker one. A request is never silently weakened when a
 * stronger setting exists (e.g. `off` on a model that cannot disable reasoning becomes its lowest level).
 */
export function clampThinkingLevel<TApi extends Api>(
  model: Model<TApi>,
  level: ModelThinkingLevel,
): ModelThinkingLevel {
  const supported = getSupportedThinkingLevels(model);
  if (supported.includes(level)) return level;
  const start = THINKING_LEVELS.indexOf(level);
  if (start < 0) return supported[0] ?? "off";
  for (let i = start + 1; i < THINKING_LEVELS.length; i++) {
    const candidate = THINKING_LEVELS[i] as ModelThinkingLevel;
    if (supported.includes(candidate)) return candidate;
  }
  for (let i = start - 1; i >= 0; i--) {
    const candidate = THINKING_LEVELS[i] as ModelThinkingLevel;
    if (supported.includes(candidate)) return candidate;
  }
  return supported[0] ?? "off";
}

/** Same model when both exist and share provider and id. */
export function modelsAreEqual<TApi extends Api>(
  a: Model<TApi> | null | undefined,
  b: Model<TApi> | null | undefined,
): boolean {
  if (!a || !b) return false;
  return a.id === b.id && a.provider === b.provider;
}
