/**
 * Parsing and validating `models.json` (pi's format): `{ providers: { <name>: { baseUrl?, api?, apiKey?, headers?,
 * models?: [{ id, name?, reasoning?, input?, contextWindow?, maxTokens?, cost? }], modelOverrides? } } }`.
 * Comments and trailing commas are accepted (JSONC). Every problem is reported with its path in the file.
 */
import type {
  Api,
  AssistantMessageEventStream,
  Context,
  Model,
  OAuthProviderInterface,
  SimpleStreamOptions,
} from "@tiller/ai";

export interface ModelDefinition {
  id: string;
  name?: string;
  api?: string;
  baseUrl?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  contextWindow?: number;
  maxTokens?: number;
  cost?: Partial<Model["cost"]>;
  headers?: Record<string, string>;
  /** Per-API compatibility flags (pi's `Model["compat"]` shapes; validated by the provider that reads them). */
  compat?: object;
  thinkingLevelMap?: Model["thinkingLevelMap"];
}

/**
 * A registered provider's stream function (pi's: it returns the stream class, which `createAssistantMessageEventStream`
 * makes). A method type, so its options are compared bivariantly as for the API registry's functions.
 */
export type ProviderStreamFunction = {
  fn(model: Model<Api>, context: Context, options?: SimpleStreamOptions): AssistantMessageEventStream;
}["fn"];

export interface ProviderConfig {
  /** A display name (pi's; Tiller shows the provider id). */
  name?: string;
  baseUrl?: string;
  api?: string;
  /** Literal key, an environment variable name, or `!command` (run when the key is needed). */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Send the resolved key as `Authorization: Bearer <key>` too (for gateways that want it besides the API's own). */
  authHeader?: boolean;
  /**
   * Only from `registerProvider` (an extension's code; models.json cannot hold one): the stream function that
   * serves `api` (required with it). Registered as that API's provider until the provider is unregistered.
   */
  streamSimple?: ProviderStreamFunction;
  /**
   * Only from `registerProvider`: an OAuth login for this provider (its id is the provider name), registered with
   * the registry's AuthStorage so `login(name, …)` runs it and the stored credential turns into keys through it.
   */
  oauth?: Omit<OAuthProviderInterface, "id">;
  /** Per-API compatibility flags (pi's `Model["compat"]` shapes; validated by the provider that reads them). */
  compat?: object;
  models?: ModelDefinition[];
  /** Per built-in model id: fields to override. */
  modelOverrides?: Record<string, Partial<ModelDefinition>>;
}

/**
 * A model an extension registers (pi's `ProviderModelConfig`): complete, as pi requires, so what a runtime holds
 * reads as pi's. models.json's `ModelDefinition` may leave these out (the registry fills them in).
 */
export type ProviderModelConfig = ModelDefinition &
  Required<Pick<ModelDefinition, "name" | "reasoning" | "input" | "contextWindow" | "maxTokens">> & {
    cost: Model["cost"];
  };

/** What `registerProvider` takes from an extension (pi's `ProviderConfig`): models.json's shape, models complete. */
export interface ExtensionProviderConfig extends Omit<ProviderConfig, "models"> {
  models?: ProviderModelConfig[];
}

export interface ModelsJson {
  providers: Record<string, ProviderConfig>;
}

/** Removes `//` and `/* *\/` comments and trailing commas outside strings. */
export function stripJsonc(text: string): string {
  let out = "";
  let i = 0;
  let inString = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === "\\") {
        out += text[i + 1] ?? "";
        i += 2;
        continue;
      }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      // Keep newlines so JSON.parse positions still point at the right line.
      out += text.slice(i, end < 0 ? text.length : end + 2).replace(/[^\n]/g, " ");
      i = end < 0 ? text.length : end + 2;
    } else if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      // A trailing comma is dropped (it never spans a line, so line numbers in errors still match).
      if (text[j] !== "}" && text[j] !== "]") out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function checkModel(m: unknown, where: string, errors: string[], requireAll: boolean): void {
  if (!isObject(m)) {
    errors.push(`${where} must be an object`);
    return;
  }
  if (requireAll && (typeof m.id !== "string" || m.id === "")) errors.push(`${where}.id must be a non-empty string`);
  for (const k of ["name", "api", "baseUrl"] as const)
    if (m[k] !== undefined && typeof m[k] !== "string") errors.push(`${where}.${k} must be a string`);
  if (m.reasoning !== undefined && typeof m.reasoning !== "boolean")
    errors.push(`${where}.reasoning must be a boolean`);
  for (const k of ["contextWindow", "maxTokens"] as const)
    if (m[k] !== undefined && !(typeof m[k] === "number" && (m[k] as number) > 0))
      errors.push(`${where}.${k} must be a positive number`);
  if (m.input !== undefined && !(Array.isArray(m.input) && m.input.every((x) => x === "text" || x === "image")))
    errors.push(`${where}.input must be an array of "text" and "image"`);
  if (m.cost !== undefined) {
    if (!isObject(m.cost)) errors.push(`${where}.cost must be an object`);
    else
      for (const [k, v] of Object.entries(m.cost))
        if (typeof v !== "number" || v < 0) errors.push(`${where}.cost.${k} must be a non-negative number`);
  }
}

/**
 * Parses `text` (the content of `file`). Returns the config, or errors naming the file and the exact path of
 * each problem. `builtinProviders` may omit `baseUrl`/`api`; new providers need both, and models with ids.
 */
export function parseModelsJson(
  text: string,
  file: string,
  builtinProviders: ReadonlySet<string>,
): { config?: ModelsJson; errors: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(stripJsonc(text));
  } catch (err) {
    return { errors: [`${file}: invalid JSON: ${(err as Error).message}`] };
  }
  const errors: string[] = [];
  if (!isObject(raw) || !isObject(raw.providers))
    return { errors: [`${file}: top level must be an object with a "providers" object`] };
  for (const [name, p] of Object.entries(raw.providers)) {
    const where = `providers.${name}`;
    if (!isObject(p)) {
      errors.push(`${where} must be an object`);
      continue;
    }
    for (const k of ["baseUrl", "api", "apiKey"] as const)
      if (p[k] !== undefined && typeof p[k] !== "string") errors.push(`${where}.${k} must be a string`);
    if (
      p.headers !== undefined &&
      !(isObject(p.headers) && Object.values(p.headers).every((v) => typeof v === "string"))
    )
      errors.push(`${where}.headers must be an object of strings`);
    if (p.authHeader !== undefined && typeof p.authHeader !== "boolean")
      errors.push(`${where}.authHeader must be true or false`);
    const builtin = builtinProviders.has(name);
    if (p.models !== undefined && !Array.isArray(p.models)) errors.push(`${where}.models must be an array`);
    const models = Array.isArray(p.models) ? p.models : [];
    if (!builtin) {
      if (typeof p.baseUrl !== "string" && models.some((m) => !isObject(m) || typeof m.baseUrl !== "string"))
        errors.push(`${where}.baseUrl is required for a new provider`);
      if (typeof p.api !== "string" && models.some((m) => !isObject(m) || typeof m.api !== "string"))
        errors.push(`${where}.api is required for a new provider`);
      if (models.length === 0) errors.push(`${where}.models must list at least one model for a new provider`);
    }
    models.forEach((m, i) => {
      checkModel(m, `${where}.models[${i}]`, errors, true);
    });
    if (p.modelOverrides !== undefined) {
      if (!isObject(p.modelOverrides)) errors.push(`${where}.modelOverrides must be an object`);
      else
        for (const [id, o] of Object.entries(p.modelOverrides))
          checkModel(o, `${where}.modelOverrides.${id}`, errors, false);
    }
  }
  if (errors.length > 0) return { errors: errors.map((e) => `${file}: ${e}`) };
  return { config: raw as unknown as ModelsJson, errors: [] };
}
