/**
 * Turns a plain JSON Schema (from MCP servers, JSON files, or a TypeBox of another version, i.e. anything
 * without TypeBox 1.x's `~kind` / `~unsafe` markers) into an equivalent TypeBox schema so one compiled checker serves
 * every tool. Keywords TypeBox cannot express are widened, never narrowed: an unsupported construct accepts
 * any value rather than rejecting valid arguments.
 */
import { type TSchema, Type } from "typebox";

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * True when `schema` was built by TypeBox 1.x (any copy of it: the markers are plain, non-enumerable string
 * keys, `~kind` on built types and `~unsafe` on `Type.Unsafe`, so a JSON round trip removes them).
 */
export function isTypeBoxSchema(schema: unknown): schema is TSchema {
  return isObject(schema) && ("~kind" in schema || "~unsafe" in schema);
}

const NUMBER_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const;
// `format` is dropped on purpose: TypeBox rejects every string whose format is not registered.
const STRING_KEYS = ["minLength", "maxLength", "pattern"] as const;
const ARRAY_KEYS = ["minItems", "maxItems", "uniqueItems"] as const;

function pick(schema: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) if (schema[key] !== undefined) out[key] = schema[key];
  if (typeof schema.description === "string") out.description = schema.description;
  return out;
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function literal(value: unknown): TSchema {
  if (value === null) return Type.Null();
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return Type.Literal(value);
  return Type.Unknown();
}

function resolveRef(ref: string, root: JsonObject): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function convert(schema: unknown, root: JsonObject, refDepth: number): TSchema {
  if (schema === true || schema === undefined) return Type.Unknown();
  if (schema === false) return Type.Never();
  if (!isObject(schema)) return Type.Unknown();

  if (typeof schema.$ref === "string") {
    // Recursive schemas are cut off after a few levels and widened to "anything".
    if (refDepth > 8) return Type.Unknown();
    const target = resolveRef(schema.$ref, root);
    return target === undefined ? Type.Unknown() : convert(target, root, refDepth + 1);
  }
  if ("const" in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isPrimitive);
    if (values.length !== schema.enum.length || values.length === 0) return Type.Unknown();
    return values.length === 1 ? literal(values[0]) : Type.Union(values.map(literal));
  }
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) {
    const members = variants.map((v) => convert(v, root, refDepth));
    return members.length === 1 ? (members[0] as TSchema) : Type.Union(members);
  }
  if (Array.isArray(schema.allOf)) {
    const members = schema.allOf.map((v) => convert(v, root, refDepth));
    return members.length === 1 ? (members[0] as TSchema) : Type.Intersect(members);
  }
  if (Array.isArray(schema.type)) {
    const members = schema.type.map((t) => convert({ ...schema, type: t }, root, refDepth));
    return members.length === 1 ? (members[0] as TSchema) : Type.Union(members);
  }

  const type = schema.type ?? (isObject(schema.properties) ? "object" : undefined);
  switch (type) {
    case "string":
      return Type.String(pick(schema, STRING_KEYS));
    case "number":
      return Type.Number(pick(schema, NUMBER_KEYS));
    case "integer":
      return Type.Integer(pick(schema, NUMBER_KEYS));
    case "boolean":
      return Type.Boolean(pick(schema, []));
    case "null":
      return Type.Null();
    case "array": {
      const items = isObject(schema.items) || typeof schema.items === "boolean" ? schema.items : undefined;
      return Type.Array(convert(items, root, refDepth), pick(schema, ARRAY_KEYS));
    }
    case "object":
      return convertObject(schema, root, refDepth);
    default:
      return Type.Unknown();
  }
}

function convertObject(schema: JsonObject, root: JsonObject, refDepth: number): TSchema {
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  const properties: Record<string, TSchema> = {};
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const [key, value] of Object.entries(props)) {
    const converted = convert(value, root, refDepth);
    properties[key] = required.has(key) ? converted : Type.Optional(converted);
  }
  const options = pick(schema, []);
  if (schema.additionalProperties === false) options.additionalProperties = false;
  else if (isObject(schema.additionalProperties)) {
    options.additionalProperties = convert(schema.additionalProperties, root, refDepth);
  }
  return Type.Object(properties, options);
}

/** The TypeBox equivalent of a plain JSON Schema document (`$ref`s resolve against the document itself). */
export function jsonSchemaToTypeBox(schema: unknown): TSchema {
  return convert(schema, isObject(schema) ? schema : {}, 0);
}
