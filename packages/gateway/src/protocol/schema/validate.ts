/**
 * Compiled validators for the schemas and one error formatter, so every rejection names the key and says what
 * was expected in words derived from the schema itself ("message: required non-empty string",
 * "gateway.port: expected an integer 0..65535, got \"x\"").
 */
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";

/** The first problem of a value, located and explained. */
export interface SchemaIssue {
  /** Dotted path of the offending key ("client.id", "agents.list[0].id"); "" for the value itself. */
  path: string;
  kind: "missing" | "unknown_key" | "invalid";
  /** What the schema wants there ("an integer 0..65535"); for unknown_key, the allowed keys. */
  expected: string;
  /** The value found (undefined when missing). */
  got: unknown;
}

export interface CompiledSchema<T extends TSchema> {
  readonly schema: T;
  check(value: unknown): value is Static<T>;
  /** The first issue, or undefined when the value is valid. */
  issue(value: unknown): SchemaIssue | undefined;
}

type S = Record<string, unknown>;

/** Compiles `schema` once (TypeBox JIT); `issue` is only computed for values that fail `check`. */
export function compileSchema<T extends TSchema>(schema: T): CompiledSchema<T> {
  const validator = Compile(schema);
  return {
    schema,
    check: (value): value is Static<T> => validator.Check(value),
    issue(value) {
      if (validator.Check(value)) return undefined;
      const errors = validator.Errors(value) as unknown as {
        keyword: string;
        instancePath: string;
        params: Record<string, unknown>;
      }[];
      // Prefer a missing or unknown key, then the deepest error (a branch of a union names its own key).
      const first =
        errors.find((e) => e.keyword === "required" || e.keyword === "additionalProperties") ??
        errors.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a), errors[0] ?? fallback);
      const segments = first.instancePath.split("/").slice(1).map(unescapePointer);
      if (first.keyword === "required") {
        const parent = valueAt(value, segments) as S | undefined;
        const key = (first.params.requiredProperties as string[]).find((k) => parent?.[k] === undefined) ?? "";
        const full = [...segments, key];
        return { path: dotted(full), kind: "missing", expected: describe(schemaAt(schema, full)), got: undefined };
      }
      if (first.keyword === "additionalProperties") {
        const key = (first.params.additionalProperties as string[])[0] ?? "";
        const parent = schemaAt(schema, segments);
        return {
          path: dotted([...segments, key]),
          kind: "unknown_key",
          expected: propertyNames(parent).join(", "),
          got: valueAt(value, [...segments, key]),
        };
      }
      return {
        path: dotted(segments),
        kind: "invalid",
        expected: describe(schemaAt(schema, segments)),
        got: valueAt(value, segments),
      };
    },
  };
}

const fallback = { keyword: "type", instancePath: "", params: {} };

function unescapePointer(s: string): string {
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

function dotted(segments: readonly string[]): string {
  let out = "";
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  return out;
}

function valueAt(value: unknown, segments: readonly string[]): unknown {
  let v = value;
  for (const s of segments) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as S)[s];
  }
  return v;
}

/** The members of an allOf / anyOf (an intersection or union), else the schema itself. */
function members(schema: S): S[] {
  const all = (schema.allOf ?? schema.anyOf) as S[] | undefined;
  return all ? all.flatMap(members) : [schema];
}

function propertyNames(schema: S | undefined): string[] {
  if (!schema) return [];
  return members(schema).flatMap((m) => Object.keys((m.properties as S | undefined) ?? {}));
}

/** The sub-schema that describes the value at `segments` (through objects, records, arrays, unions). */
export function schemaAt(root: TSchema, segments: readonly string[]): S | undefined {
  let current: S | undefined = root as unknown as S;
  for (const seg of segments) {
    if (!current) return undefined;
    let next: S | undefined;
    for (const m of members(current)) {
      const props = m.properties as S | undefined;
      if (props?.[seg]) next = props[seg] as S;
      else if (m.items && /^\d+$/.test(seg)) next = m.items as S;
      else if (m.patternProperties) next = Object.values(m.patternProperties as S)[0] as S;
      if (next) break;
    }
    current = next;
  }
  return current;
}

/** What a schema accepts, in words. */
export function describe(schema: S | undefined): string {
  if (!schema) return "nothing (unknown key)";
  // A schema may word its rule itself (a pattern, a union of shapes).
  if (typeof schema.expected === "string") return schema.expected;
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as S[];
    const literals = branches.filter((b) => b.const !== undefined);
    const rest = branches.filter((b) => b.const === undefined && b.type !== "null");
    const nullable = branches.some((b) => b.type === "null");
    const parts: string[] = [];
    if (literals.length > 0) parts.push(`one of ${literals.map((b) => String(b.const)).join(" | ")}`);
    for (const b of rest) parts.push(describe(b));
    if (nullable) parts.push("null");
    return parts.join(" or ");
  }
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(String).join(" | ")}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case "string":
      if (schema.minLength === 1 || schema.pattern === "\\S") {
        return schema.maxLength !== undefined
          ? `non-empty string of at most ${schema.maxLength} characters`
          : "non-empty string";
      }
      return schema.maxLength !== undefined ? `a string of at most ${schema.maxLength} characters` : "a string";
    case "integer":
    case "number": {
      const noun = schema.type === "integer" ? "an integer" : "a number";
      const min = schema.minimum as number | undefined;
      const max = schema.maximum as number | undefined;
      if (min !== undefined && max !== undefined) return `${noun} ${min}..${max}`;
      if (min !== undefined) return `${noun} ≥ ${min}`;
      if (max !== undefined) return `${noun} ≤ ${max}`;
      return noun;
    }
    case "boolean":
      return "true or false";
    case "array":
      return "an array";
    case "object":
      return "an object";
    case "null":
      return "null";
    default:
      return schema.allOf ? "an object" : "a value";
  }
}

/** A short JSON preview of a value for error messages. */
export function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
