/**
 * Operator scopes and which one each method needs (from the method catalog). `operator.admin` implies write,
 * write implies read. Methods not in the catalog need admin (the safe default for anything added later).
 */
import { METHOD_SPECS, type Scope } from "./schema/methods.js";

export type { Scope } from "./schema/methods.js";

const READ = "operator.read";
const WRITE = "operator.write";
const ADMIN = "operator.admin";

export function requiredScope(method: string): Scope {
  return (METHOD_SPECS as Record<string, { scope: Scope }>)[method]?.scope ?? ADMIN;
}

/** True when `granted` covers `needed` under admin ⊇ write ⊇ read. */
export function hasScope(granted: readonly string[], needed: Scope): boolean {
  if (granted.includes(ADMIN)) return true;
  if (needed === READ) return granted.includes(READ) || granted.includes(WRITE);
  return granted.includes(needed);
}
