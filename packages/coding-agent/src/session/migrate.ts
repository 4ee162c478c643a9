/** Upgrading older session files (v1: linear, no ids; v2: `hookMessage` role) to version 3, in memory. */
import { newEntryId } from "./ids.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

/** Upgrades v1 (no ids) and v2 (`hookMessage` role) entries in place. Returns true when something changed. */
export function migrate(header: SessionHeader, entries: SessionEntry[]): boolean {
  const version = header.version ?? 1;
  if (version >= CURRENT_SESSION_VERSION) return false;
  if (version < 2) {
    const taken = new Set<string>();
    let parent: string | null = null;
    for (const e of entries) {
      const id = newEntryId(taken);
      taken.add(id);
      e.id = id;
      e.parentId = parent;
      parent = id;
    }
  }
  for (const e of entries) {
    const m = e.type === "message" ? (e.message as { role: string }) : undefined;
    if (m && m.role === "hookMessage") m.role = "custom";
  }
  header.version = CURRENT_SESSION_VERSION;
  return true;
}
