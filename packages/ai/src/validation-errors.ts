/**
 * Turns TypeBox 1.x validation errors (JSON-Schema keyword, pointer paths) into the lines Tiller shows a
 * model: `path: message`, one line per problem. The wording is Tiller's own and stays stable across TypeBox
 * versions (the model reads it, and prompts and tests quote it), so it is derived from the keyword and its
 * params here rather than taken from TypeBox's locale, which is process-global and shared with other users.
 */
import type { TLocalizedValidationError } from "typebox/error";

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `/a/0/b` → `a[0].b`; the root is `root`. */
export function formatPath(pointer: string): string {
  if (!pointer || pointer === "/") return "root";
  let out = "";
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The sub-schema a `schemaPath` (`#/properties/a/anyOf/0`) names, or undefined. */
function schemaAt(root: unknown, schemaPath: string): JsonObject | undefined {
  let node: unknown = root;
  for (const raw of schemaPath.replace(/^#/, "").split("/").filter(Boolean)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return isObject(node) ? node : undefined;
}

function showValue(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

function numberKind(root: unknown, error: TLocalizedValidationError): string {
  return schemaAt(root, error.schemaPath)?.type === "integer" ? "integer" : "number";
}

/** One line's message for an error that is not a union (unions are described by their branches). */
function describe(root: unknown, error: TLocalizedValidationError): string {
  switch (error.keyword) {
    case "type": {
      const type = error.params.type;
      return `Expected ${Array.isArray(type) ? type.join(" or ") : type}`;
    }
    case "const":
      return `Expected ${showValue(error.params.allowedValue)}`;
    case "enum":
      return `Expected union value (${error.params.allowedValues.map((v) => `Expected ${showValue(v)}`).join("; ")})`;
    case "minimum":
      return `Expected ${numberKind(root, error)} to be greater or equal to ${error.params.limit}`;
    case "maximum":
      return `Expected ${numberKind(root, error)} to be less or equal to ${error.params.limit}`;
    case "exclusiveMinimum":
      return `Expected ${numberKind(root, error)} to be greater than ${error.params.limit}`;
    case "exclusiveMaximum":
      return `Expected ${numberKind(root, error)} to be less than ${error.params.limit}`;
    case "multipleOf":
      return `Expected ${numberKind(root, error)} to be a multiple of ${error.params.multipleOf}`;
    case "minLength":
      return `Expected string length greater or equal to ${error.params.limit}`;
    case "maxLength":
      return `Expected string length less or equal to ${error.params.limit}`;
    case "pattern":
      return `Expected string to match '${String(error.params.pattern)}'`;
    case "format":
      return `Expected string to match '${error.params.format}' format`;
    case "minItems":
      return `Expected array length to be greater or equal to ${error.params.limit}`;
    case "maxItems":
      return `Expected array length to be less or equal to ${error.params.limit}`;
    case "uniqueItems":
      return "Expected array elements to be unique";
    case "boolean":
      return "Value is not allowed here";
    default:
      return error.message;
  }
}

function isUnion(error: TLocalizedValidationError): boolean {
  return error.keyword === "anyOf" || error.keyword === "oneOf";
}

/**
 * The lines for `errors` against `root` (the schema that produced them). Branch errors of a union are folded
 * into the union's line, `Expected union value (<first problem per branch>; …)`, because "no branch matched"
 * alone tells the model nothing. A missing required property is one line per property.
 */
export function formatValidationErrors(root: unknown, errors: readonly TLocalizedValidationError[]): string[] {
  const unions = errors.filter(isUnion);
  const branchOf = (error: TLocalizedValidationError): TLocalizedValidationError | undefined =>
    unions.find((u) => u !== error && error.schemaPath.startsWith(`${u.schemaPath}/${u.keyword}/`));
  const lines: string[] = [];
  const seen = new Set<string>();
  const push = (pointer: string, message: string): void => {
    const line = `${formatPath(pointer)}: ${message}`;
    if (seen.has(line)) return;
    seen.add(line);
    lines.push(line);
  };
  for (const error of errors) {
    if (branchOf(error)) continue;
    // `additionalProperties: false` reports each key twice (a `false` schema, then the list); keep the list.
    if (error.keyword === "boolean" && error.schemaPath.endsWith("/additionalProperties")) continue;
    switch (error.keyword) {
      case "required":
        for (const key of error.params.requiredProperties) {
          push(`${error.instancePath}/${escapePointer(key)}`, "Expected required property");
        }
        break;
      case "additionalProperties":
        for (const key of error.params.additionalProperties) {
          push(`${error.instancePath}/${escapePointer(key)}`, "Unexpected property");
        }
        break;
      case "anyOf":
      case "oneOf": {
        const wanted = new Set<string>();
        const prefix = `${error.schemaPath}/${error.keyword}/`;
        const firstPerBranch = new Map<string, TLocalizedValidationError>();
        for (const other of errors) {
          if (!other.schemaPath.startsWith(prefix) || isUnion(other)) continue;
          const branch = other.schemaPath.slice(prefix.length).split("/")[0] ?? "";
          if (!firstPerBranch.has(branch)) firstPerBranch.set(branch, other);
        }
        for (const first of firstPerBranch.values()) {
          wanted.add(first.keyword === "required" ? "Expected required property" : describe(root, first));
        }
        push(
          error.instancePath,
          wanted.size ? `Expected union value (${[...wanted].join("; ")})` : "Expected union value",
        );
        break;
      }
      default:
        push(error.instancePath, describe(root, error));
    }
  }
  return lines;
}
