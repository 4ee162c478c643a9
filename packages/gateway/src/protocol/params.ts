/**
 * Minimal declarative validation of method params. Errors are INVALID_REQUEST with a message naming the
 * method and the key ("agent: message: required non-empty string"). Unknown keys are ignored so newer
 * clients that send extra fields keep working.
 */
import { GatewayError } from "./frames.js";

export type FieldType = "string" | "integer" | "number" | "boolean" | "object" | "array" | "string|null";

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  /** Strings: must not be empty (after trim). */
  nonEmpty?: boolean;
  min?: number;
  max?: number;
  /** Strings: one of these. */
  oneOf?: readonly string[];
}

export type ParamSpec = Record<string, FieldSpec>;

/** Validates `params` (undefined/null count as `{}`) and returns it typed as T. */
export function validateParams<T>(method: string, params: unknown, spec: ParamSpec): T {
  const p = params ?? {};
  if (typeof p !== "object" || Array.isArray(p)) throw bad(method, "(params)", "expected an object");
  const obj = p as Record<string, unknown>;
  for (const [key, field] of Object.entries(spec)) {
    const v = obj[key];
    if (v === undefined) {
      if (field.required) throw bad(method, key, `required ${describe(field)}`);
      continue;
    }
    const problem = check(v, field);
    if (problem) throw bad(method, key, `${problem}, got ${preview(v)}`);
  }
  return obj as T;
}

function check(v: unknown, f: FieldSpec): string | undefined {
  switch (f.type) {
    case "string":
    case "string|null": {
      if (v === null && f.type === "string|null") return undefined;
      if (typeof v !== "string") return `expected ${describe(f)}`;
      if (f.nonEmpty && v.trim().length === 0) return `expected ${describe(f)}`;
      if (f.max !== undefined && v.length > f.max) return `expected at most ${f.max} characters`;
      if (f.oneOf && !f.oneOf.includes(v)) return `expected one of ${f.oneOf.join(" | ")}`;
      return undefined;
    }
    case "integer":
    case "number": {
      if (typeof v !== "number" || !Number.isFinite(v)) return `expected ${describe(f)}`;
      if (f.type === "integer" && !Number.isInteger(v)) return `expected ${describe(f)}`;
      if (f.min !== undefined && v < f.min) return `expected ${describe(f)}`;
      if (f.max !== undefined && v > f.max) return `expected ${describe(f)}`;
      return undefined;
    }
    case "boolean":
      return typeof v === "boolean" ? undefined : "expected true or false";
    case "object":
      return v !== null && typeof v === "object" && !Array.isArray(v) ? undefined : "expected an object";
    case "array":
      return Array.isArray(v) ? undefined : "expected an array";
  }
}

function describe(f: FieldSpec): string {
  switch (f.type) {
    case "string":
      return f.nonEmpty ? "non-empty string" : "string";
    case "string|null":
      return "string or null";
    case "integer":
    case "number": {
      const range =
        f.min !== undefined && f.max !== undefined
          ? ` in ${f.min}..${f.max}`
          : f.min !== undefined
            ? ` ≥ ${f.min}`
            : f.max !== undefined
              ? ` ≤ ${f.max}`
              : "";
      return `${f.type === "integer" ? "an integer" : "a number"}${range}`;
    }
    default:
      return f.type;
  }
}

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function bad(method: string, key: string, why: string): GatewayError {
  return new GatewayError("INVALID_REQUEST", `invalid ${method} params: ${key}: ${why}`, {
    code: "INVALID_PARAMS",
    key,
  });
}
