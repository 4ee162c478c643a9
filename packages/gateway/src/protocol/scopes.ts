/**
 * Operator scopes and which one each method needs. `operator.admin` implies write, write implies read.
 * Methods not listed need admin (the safe default for anything added later).
 */
export type Scope = "operator.read" | "operator.write" | "operator.admin" | "operator.approvals" | "operator.pairing";

const READ = "operator.read";
const WRITE = "operator.write";
const ADMIN = "operator.admin";

const METHOD_SCOPES: Record<string, Scope> = {
  health: READ,
  status: READ,
  "agents.list": READ,
  "agent.wait": READ,
  "chat.history": READ,
  "sessions.list": READ,
  "sessions.subscribe": READ,
  "models.list": READ,
  agent: WRITE,
  "chat.send": WRITE,
  "chat.abort": WRITE,
  "sessions.send": WRITE,
  "sessions.abort": WRITE,
  "sessions.reset": WRITE,
  "sessions.compact": WRITE,
  "sessions.patch": WRITE,
  "sessions.delete": ADMIN,
};

export function requiredScope(method: string): Scope {
  return METHOD_SCOPES[method] ?? ADMIN;
}

/** True when `granted` covers `needed` under admin ⊇ write ⊇ read. */
export function hasScope(granted: readonly string[], needed: Scope): boolean {
  if (granted.includes(ADMIN)) return true;
  if (needed === READ) return granted.includes(READ) || granted.includes(WRITE);
  return granted.includes(needed);
}
