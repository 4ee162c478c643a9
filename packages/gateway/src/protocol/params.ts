/**
 * Method params checked against their compiled schema. Errors are INVALID_REQUEST / INVALID_PARAMS with a
 * message naming the method and the key ("invalid agent params: message: required non-empty string") and
 * `details.key`. Unknown keys are allowed by the schemas, so newer clients that send extra fields keep working.
 */
import type { Static, TSchema } from "typebox";
import { GatewayError } from "./frames.js";
import { type CompiledSchema, preview, type SchemaIssue } from "./schema/validate.js";

/** Returns `params` (undefined/null count as `{}`) typed by the schema, or throws the INVALID_PARAMS error. */
export function parseParams<T extends TSchema>(method: string, schema: CompiledSchema<T>, params: unknown): Static<T> {
  const p = params ?? {};
  if (schema.check(p)) return p;
  throw invalidParams(method, schema.issue(p));
}

/** The INVALID_PARAMS error for one issue. */
export function invalidParams(method: string, issue: SchemaIssue | undefined): GatewayError {
  const key = issue?.path || "(params)";
  const why = !issue
    ? "invalid"
    : issue.kind === "missing"
      ? `required ${issue.expected}`
      : issue.kind === "unknown_key"
        ? `unknown key (allowed: ${issue.expected})`
        : `expected ${issue.expected}, got ${preview(issue.got)}`;
  return new GatewayError("INVALID_REQUEST", `invalid ${method} params: ${key}: ${why}`, {
    code: "INVALID_PARAMS",
    key,
  });
}
