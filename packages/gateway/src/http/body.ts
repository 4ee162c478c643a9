/**
 * Request bodies: read up to `gateway.http.maxBodyBytes` (a bigger body is refused with 413 as soon as it is
 * known, without buffering the rest), parse JSON, and validate against a TypeBox schema. A failure is a 400 that
 * names the field (`messages[0].role: expected one of system | user | …`).
 */
import type { IncomingMessage } from "node:http";
import type { Static, TProperties, TSchema } from "typebox";
import { Compile, type Validator } from "typebox/compile";
import { badRequest, HttpApiError } from "./errors.js";

function tooLarge(max: number): HttpApiError {
  return new HttpApiError(413, `request body too large (max ${max} bytes)`, "invalid_request_error", "body_too_large");
}

/**
 * Reads and drops the rest of a refused body, so the client finishes sending and reads the 413 instead of
 * meeting a reset connection. Past `limit` bytes the connection is cut: nobody may stream forever.
 */
function discard(req: IncomingMessage, limit: number): void {
  let dropped = 0;
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > limit) req.destroy();
  });
  req.resume();
}

export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const discardLimit = Math.max(4 * maxBytes, 64 * 1024 * 1024);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(req, discardLimit);
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        discard(req, discardLimit);
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, size));
    });
    req.on("error", (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}

/** `/messages/0/role` → `messages[0].role`. */
export function fieldPath(instancePath: string): string {
  return instancePath
    .split("/")
    .filter(Boolean)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : `${i === 0 ? "" : "."}${p.replace(/~1/g, "/").replace(/~0/g, "~")}`))
    .join("");
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  message: string;
  params?: { requiredProperties?: string[]; allowedValue?: unknown };
}

/** The first error, in words, with the field it is about. */
function describe(errors: SchemaError[]): { field: string; message: string } {
  const first = errors[0] as SchemaError;
  const field = fieldPath(first.instancePath);
  if (first.keyword === "required") {
    const name = first.params?.requiredProperties?.[0] ?? "?";
    const full = field ? `${field}.${name}` : name;
    return { field: full, message: `${full}: required` };
  }
  // A union of literals reports each literal: name them all.
  const allowed = errors
    .filter((e) => e.keyword === "const" && e.instancePath === first.instancePath)
    .map((e) => JSON.stringify(e.params?.allowedValue));
  if (allowed.length > 1) return { field, message: `${field}: expected one of ${allowed.join(" | ")}` };
  return { field, message: `${field || "body"}: ${first.message}` };
}

/** A schema compiled once (at module load) for `validate`. */
export function compileSchema<S extends TSchema>(schema: S): Validator<TProperties, S> {
  return Compile(schema);
}

/** Validates `value`; throws a 400 naming the field. */
export function validate<S extends TSchema>(check: Validator<TProperties, S>, value: unknown): Static<S> {
  if (check.Check(value)) return value as Static<S>;
  const { field, message } = describe([...check.Errors(value)] as SchemaError[]);
  throw badRequest(message, field || null);
}

/** Reads, parses and validates a JSON request body. */
export async function readJson<S extends TSchema>(
  req: IncomingMessage,
  maxBytes: number,
  check: Validator<TProperties, S>,
): Promise<Static<S>> {
  const raw = await readBody(req, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw badRequest(`invalid JSON body: ${err instanceof Error ? err.message : String(err)}`, null, "invalid_json");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw badRequest("the body must be a JSON object", null, "invalid_json");
  }
  return validate(check, value);
}
