/** Upgrading older session files (v1: linear, no ids; v2: `hookMessage` role) to version 3, in memory. */
import { newEntryId } from "./ids.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

/**
 * Upgrades v1 (no ids) and v2 (`hookMessage` role) entries in place. Returns true when something changed.
 * A v1 compaction names its first kept entry by `firstKeptEntryIndex`, a line index in the file (the header is
 * line 0); `indexOf` maps it to an index in `entries` (default: one less, for a file whose header comes first).
 */
export function migrate(
  header: SessionHeader,
  entries: SessionEntry[],
  indexOf: (fileIndex: number) => number = (fileIndex) => fileIndex - 1,
): boolean {
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
      const legacy = e as { type: string; firstKeptEntryIndex?: unknown; firstKeptEntryId?: string };
      if (legacy.type === "compaction" && typeof legacy.firstKeptEntryIndex === "number") {
        // The kept entry precedes its compaction, so it already has its new id.
        const kept = entries[indexOf(legacy.firstKeptEntryIndex)];
        if (kept) legacy.firstKeptEntryId = kept.id;
        delete legacy.firstKeptEntryIndex;
      }
    }
  }
  for (const e of entries) {
    const m = e.type === "message" ? (e.message as { role: string }) : undefined;
    if (m && m.role === "hookMessage") m.role = "custom";
  }
  header.version = CURRENT_SESSION_VERSION;
  return true;
}
