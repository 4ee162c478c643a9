/**
 * `$TILLER_HOME/exec-approvals.json`: one TypeBox schema gives the file's types, its validation (errors name the
 * key) and the README's description. Every key is optional; an absent file means `security: full, ask: off`
 * (commands run without asking, as before approvals existed).
 */
import { type Static, type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";

const Security = Type.Union([Type.Literal("deny"), Type.Literal("allowlist"), Type.Literal("full")], {
  description: "deny: no command runs · allowlist: only commands whose every segment matches · full: any command",
});
const Ask = Type.Union([Type.Literal("off"), Type.Literal("on-miss"), Type.Literal("always")], {
  description: "off: never ask · on-miss: ask when the allowlist does not match · always: ask for every command",
});
const AskFallback = Type.Union([Type.Literal("deny"), Type.Literal("allowlist"), Type.Literal("full")], {
  description: "What decides when asking is needed but nobody can be asked (print mode) or the request times out",
});

export const AllowlistEntrySchema = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      // An absolute path glob, a ~/ path glob, or a bare command name glob (matches commands found through PATH).
      pattern: "^(?:[~/]|[^/]*$)",
      description: "Resolved executable path glob (/usr/bin/git, ~/bin/*) or bare command name glob (rg)",
    }),
    source: Type.Optional(Type.Literal("allow-always", { description: "Added by an allow-always decision" })),
    addedAt: Type.Optional(Type.Number({ description: "Epoch ms" })),
  },
  { additionalProperties: false },
);

export const ExecApprovalsFileSchema = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    security: Type.Optional(Security),
    ask: Type.Optional(Ask),
    askFallback: Type.Optional(AskFallback),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, description: "How long a request waits for a decision; then askFallback decides" }),
    ),
    allowlist: Type.Optional(Type.Array(AllowlistEntrySchema)),
  },
  { additionalProperties: false },
);

export type ExecSecurity = Static<typeof Security>;
export type ExecAsk = Static<typeof Ask>;
export type ExecAskFallback = Static<typeof AskFallback>;
export type AllowlistEntry = Static<typeof AllowlistEntrySchema>;
export type ExecApprovalsFile = Static<typeof ExecApprovalsFileSchema>;

/** The policy with every default filled in. */
export interface ExecPolicy {
  security: ExecSecurity;
  ask: ExecAsk;
  askFallback: ExecAskFallback;
  timeoutMs?: number;
  allowlist: AllowlistEntry[];
}

export const DEFAULT_EXEC_POLICY: Readonly<ExecPolicy> = Object.freeze({
  security: "full",
  ask: "off",
  askFallback: "deny",
  allowlist: [],
});

const checker = Compile(ExecApprovalsFileSchema);

/** One message per offending key, e.g. `security must be one of "deny", "allowlist", "full" (got "yes")`. */
export function validateExecApprovalsFile(value: unknown): string[] {
  if (checker.Check(value)) return [];
  const out: string[] = [];
  explain(ExecApprovalsFileSchema, value, "", out);
  return out.length > 0 ? out : ["does not match the exec approvals schema"];
}

interface SchemaShape {
  anyOf?: SchemaShape[];
  const?: unknown;
  type?: string;
  properties?: Record<string, TSchema>;
  required?: string[];
  items?: TSchema;
}

const join = (base: string, key: string | number) => (base === "" ? String(key) : `${base}.${key}`);

/**
 * Walks the schema beside the value and reports each offending key once. (TypeBox's own error list stops after a
 * few errors and reports a union once per member, so it is only used for the leaf message.)
 */
function explain(schema: TSchema, value: unknown, key: string, out: string[]): void {
  if (Value.Check(schema, value as unknown)) return; // (a cast: the guard must not narrow `value` below)
  const shape = schema as unknown as SchemaShape;
  const name = key === "" ? "the file" : key;
  if (shape.anyOf?.every((member) => "const" in member)) {
    const allowed = shape.anyOf.map((member) => JSON.stringify(member.const));
    out.push(`${name} must be one of ${allowed.join(", ")} (got ${describe(value)})`);
  } else if (shape.const !== undefined) {
    out.push(`${name} must be ${JSON.stringify(shape.const)} (got ${describe(value)})`);
  } else if (shape.type === "object" && shape.properties) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      out.push(`${name} must be an object (got ${describe(value)})`);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) if (!(k in shape.properties)) out.push(`${join(key, k)} is not a known key`);
    for (const k of shape.required ?? []) if (!(k in record)) out.push(`${join(key, k)} is required`);
    for (const [k, sub] of Object.entries(shape.properties))
      if (k in record) explain(sub, record[k], join(key, k), out);
  } else if (shape.type === "array" && shape.items) {
    if (!Array.isArray(value)) {
      out.push(`${name} must be an array (got ${describe(value)})`);
      return;
    }
    for (const [i, item] of value.entries()) explain(shape.items, item, join(key, i), out);
  } else {
    const first = Value.Errors(schema, value)[0];
    if (first?.keyword === "pattern") {
      out.push(`${name} must be an absolute path glob (/… or ~/…) or a bare command name (got ${describe(value)})`);
    } else out.push(`${name} ${first?.message ?? "is invalid"} (got ${describe(value)})`);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The policy a valid file describes. */
export function policyOf(file: ExecApprovalsFile): ExecPolicy {
  const policy: ExecPolicy = {
    security: file.security ?? DEFAULT_EXEC_POLICY.security,
    ask: file.ask ?? DEFAULT_EXEC_POLICY.ask,
    askFallback: file.askFallback ?? DEFAULT_EXEC_POLICY.askFallback,
    allowlist: (file.allowlist ?? []).slice(),
  };
  if (file.timeoutMs !== undefined) policy.timeoutMs = file.timeoutMs;
  return policy;
}
