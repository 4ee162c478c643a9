/**
 * Tool parameter schemas cleaned for provider quirks. TypeBox emits standard JSON Schema; providers accept
 * subsets: Gemini rejects several keywords (`additionalProperties`, `const`, `$schema`, type arrays…), and
 * OpenAI/Anthropic want a plain object at the top level (no `anyOf`/`oneOf` there).
 */

type Json = Record<string, unknown>;

/** Keywords Gemini's function-declaration schema understands; everything else is dropped. */
const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "description",
  "nullable",
  "enum",
  "properties",
  "required",
  "items",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "propertyOrdering",
  "title",
]);

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Which quirk set a provider (or API) name needs. */
export function schemaDialect(provider: string): "gemini" | "openai" | "anthropic" | "generic" {
  const p = provider.toLowerCase();
  if (/google|gemini|vertex/.test(p)) return "gemini";
  if (/anthropic|claude/.test(p)) return "anthropic";
  if (/openai|azure|xai|groq|openrouter|mistral|deepseek|cerebras|codex/.test(p)) return "openai";
  return "generic";
}

/** `anyOf` of constants (TypeBox's literal unions) as a single `enum`. */
function literalUnionToEnum(node: Json): Json | undefined {
  const variants = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (!Array.isArray(variants) || variants.length === 0) return undefined;
  if (!variants.every((v) => isObject(v) && "const" in v)) return undefined;
  const values = variants.map((v) => (v as Json).const);
  const types = new Set(values.map((v) => typeof v));
  if (types.size !== 1) return undefined;
  const out: Json = { type: [...types][0] === "number" ? "number" : [...types][0], enum: values };
  if (typeof node.description === "string") out.description = node.description;
  return out;
}

function geminiNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(geminiNode);
  if (!isObject(node)) return node;
  const asEnum = literalUnionToEnum(node);
  if (asEnum) return asEnum;
  const out: Json = {};
  let src: Json = node;
  if ("const" in src) src = { ...src, enum: [src.const] };
  if (src.oneOf && !src.anyOf) src = { ...src, anyOf: src.oneOf };
  for (const [key, value] of Object.entries(src)) {
    if (!GEMINI_KEYWORDS.has(key)) continue;
    if (key === "type" && Array.isArray(value)) {
      const real = value.filter((t) => t !== "null");
      out.type = real[0] ?? "string";
      if (real.length !== value.length) out.nullable = true;
    } else if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, geminiNode(v)]));
    } else if (key === "items" || key === "anyOf") {
      out[key] = geminiNode(value);
    } else out[key] = value;
  }
  if (out.enum && out.type === undefined)
    out.type = typeof (out.enum as unknown[])[0] === "number" ? "number" : "string";
  return out;
}

/** Merge a top-level union of object schemas into one object: all properties, required where all require. */
function mergeTopLevelUnion(schema: Json): Json {
  const variants = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as unknown[] | undefined;
  if (!Array.isArray(variants)) return schema;
  const objects = variants.filter(isObject);
  const properties: Json = {};
  let required: string[] | undefined;
  const isAllOf = Array.isArray(schema.allOf);
  for (const v of objects) {
    Object.assign(properties, isObject(v.properties) ? v.properties : {});
    const req = Array.isArray(v.required) ? (v.required as string[]) : [];
    if (isAllOf) required = [...new Set([...(required ?? []), ...req])];
    else required = required === undefined ? req : required.filter((r) => req.includes(r));
  }
  const out: Json = { type: "object", properties };
  if (required && required.length > 0) out.required = required;
  if (typeof schema.description === "string") out.description = schema.description;
  return out;
}

function ensureObjectTop(schema: Json): Json {
  let out = schema;
  if (out.anyOf || out.oneOf || out.allOf) out = mergeTopLevelUnion(out);
  if (out.type !== "object")
    out = { type: "object", properties: {}, ...(out.properties ? { properties: out.properties } : {}) };
  if (!isObject(out.properties)) out = { ...out, properties: {} };
  for (const key of ["enum", "not", "const"])
    if (key in out) out = Object.fromEntries(Object.entries(out).filter(([k]) => k !== key));
  return out;
}

/**
 * A plain-JSON copy of `schema` that `provider` accepts. The original is not modified; TypeBox's symbol
 * markers are dropped (the copy is for the wire).
 */
export function normalizeToolSchema(schema: unknown, provider: string): Json {
  const plain = JSON.parse(JSON.stringify(schema ?? {})) as Json;
  const dialect = schemaDialect(provider);
  delete plain.$schema;
  delete plain.$id;
  if (dialect === "gemini") return ensureObjectTop(geminiNode(ensureObjectTop(plain)) as Json);
  return ensureObjectTop(plain);
}
