/**
 * Tool-argument validation. Models get argument types wrong in predictable ways ("5" for 5, "true" for
 * true, an array sent as a JSON string); those are coerced. Whatever still fails is reported with every
 * failing path, because the error text goes back to the model so it can correct the call.
 */
import type { TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import { Value } from "typebox/value";
import { isTypeBoxSchema, jsonSchemaToTypeBox } from "./json-schema-typebox.js";
import type { Tool, ToolCall } from "./types.js";
import { formatValidationErrors } from "./validation-errors.js";

interface CompiledSchema {
  /** The schema coercion walks and the checker was compiled from (converted when the input was plain JSON). */
  schema: TSchema;
  check: Validator;
}

// Compiling is the expensive part (it generates code); a tool's schema object lives as long as the tool.
const compiled = new WeakMap<object, CompiledSchema>();

function compile(schema: TSchema): CompiledSchema {
  const cached = compiled.get(schema);
  if (cached) return cached;
  let result: CompiledSchema;
  if (isTypeBoxSchema(schema)) {
    try {
      result = { schema, check: Compile(schema) };
    } catch {
      // A schema the compiler rejects (an unresolvable keyword or reference): validate its JSON Schema form,
      // converted and widened, instead.
      const plain = jsonSchemaToTypeBox(JSON.parse(JSON.stringify(schema)));
      result = { schema: plain, check: Compile(plain) };
    }
  } else {
    const converted = jsonSchemaToTypeBox(schema);
    result = { schema: converted, check: Compile(converted) };
  }
  compiled.set(schema, result);
  return result;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NUMERIC = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?\s*$/i;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function schemaTypes(schema: JsonObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  if (isObject(schema.properties)) return ["object"];
  return [];
}

/** One coercion for a single declared type; returns `value` itself when nothing applies. */
function coerceTo(type: string, schema: JsonObject, value: unknown, depth: number): unknown {
  switch (type) {
    case "number":
    case "integer":
      if (typeof value === "string" && NUMERIC.test(value)) {
        const n = Number(value);
        // "1.5" for an integer stays a string so the error names the real problem instead of truncating.
        if (type === "number" || Number.isInteger(n)) return n;
      }
      return value;
    case "boolean":
      if (typeof value === "string") {
        const v = value.trim().toLowerCase();
        if (v === "true") return true;
        if (v === "false") return false;
      }
      return value;
    case "string":
      if (typeof value === "number" || typeof value === "boolean") return String(value);
      return value;
    case "null":
      if (value === "null" || value === "") return null;
      return value;
    case "array": {
      const arr = typeof value === "string" && value.trimStart().startsWith("[") ? parseJson(value) : value;
      if (!Array.isArray(arr)) return value;
      const items = schema.items;
      if (!isObject(items)) return arr === value ? [...arr] : arr;
      return arr.map((item) => coerce(items, item, depth + 1));
    }
    case "object": {
      const obj = typeof value === "string" && value.trimStart().startsWith("{") ? parseJson(value) : value;
      if (!isObject(obj)) return value;
      const props = isObject(schema.properties) ? schema.properties : {};
      const extra = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(obj)) {
        const sub = props[key];
        out[key] = isObject(sub) ? coerce(sub, v, depth + 1) : extra ? coerce(extra, v, depth + 1) : v;
      }
      return out;
    }
    default:
      return value;
  }
}

function matches(schema: JsonObject, value: unknown): boolean {
  try {
    return Value.Check(schema as TSchema, value);
  } catch {
    return false;
  }
}

/**
 * Returns a coerced copy of `value` for `schema` (TypeBox or plain JSON Schema shape). Never mutates `value`.
 * Unions keep a value that already matches a member; otherwise the first member it can be coerced into wins.
 */
function coerce(schema: JsonObject, value: unknown, depth: number): unknown {
  if (depth > 64) return value;
  if ("const" in schema) {
    const c = schema.const;
    if (typeof c === "number" || typeof c === "boolean") return coerceTo(typeof c, schema, value, depth);
    return value;
  }
  if (Array.isArray(schema.enum)) {
    if (schema.enum.includes(value)) return value;
    const hit = schema.enum.find((e) => typeof e !== "string" && String(e) === String(value).trim());
    return hit === undefined ? value : hit;
  }
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) {
    const members = variants.filter(isObject);
    if (members.some((m) => matches(m, value))) return value;
    for (const member of members) {
      const candidate = coerce(member, value, depth + 1);
      if (matches(member, candidate)) return candidate;
    }
    return value;
  }
  if (Array.isArray(schema.allOf)) {
    let current = value;
    for (const member of schema.allOf) if (isObject(member)) current = coerce(member, current, depth + 1);
    return current;
  }
  const types = schemaTypes(schema);
  if (types.length === 0) return value;
  for (const type of types) {
    if (valueHasType(value, type)) return coerceTo(type, schema, value, depth);
  }
  for (const type of types) {
    const candidate = coerceTo(type, schema, value, depth);
    if (candidate !== value) return candidate;
  }
  return value;
}

function valueHasType(value: unknown, type: string): boolean {
  switch (type) {
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return false;
  }
}

function cloneJson(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function stringifyArgs(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Validates `toolCall.arguments` against `tool.parameters` (a TypeBox schema or a plain JSON Schema) and
 * returns the coerced arguments. The input is never mutated. Throws an `Error` whose message lists every
 * failing path with its message, then the arguments as received — meant to be shown to the model.
 */
export function validateToolArguments(tool: Tool, toolCall: ToolCall): Record<string, unknown> {
  const { schema, check } = compile(tool.parameters);
  let raw: unknown = toolCall.arguments ?? {};
  // Some providers hand over the raw JSON text when it did not parse as an object.
  if (typeof raw === "string") raw = parseJson(raw) ?? raw;
  // A private copy: the caller may mutate the result (tools often do) without touching the transcript.
  raw = cloneJson(raw);
  const args = coerce(schema as JsonObject, raw, 0);
  if (check.Check(args)) return args as Record<string, unknown>;
  const lines = formatValidationErrors(schema, check.Errors(args));
  if (lines.length === 0) lines.push("root: arguments do not match the schema");
  throw new Error(
    `Validation failed for tool "${toolCall.name}":\n${lines.map((l) => `  - ${l}`).join("\n")}\n\n` +
      `Received arguments:\n${stringifyArgs(toolCall.arguments)}`,
  );
}

/** Finds the tool named by `toolCall` and validates its arguments. Throws `Tool "x" not found` otherwise. */
export function validateToolCall(tools: readonly Tool[], toolCall: ToolCall): Record<string, unknown> {
  const tool = tools.find((t) => t.name === toolCall.name);
  if (!tool) {
    const names = tools.map((t) => t.name).join(", ");
    throw new Error(`Tool "${toolCall.name}" not found. Available tools: ${names || "(none)"}`);
  }
  return validateToolArguments(tool, toolCall);
}
