/**
 * The lookup structures of one session's entries (by id, current labels) plus whether the entries form one
 * unbranched chain. `add` is O(1); a file's entries are added after the whole file is read (see
 * `SessionManager.load`), appended ones as they are appended. For a chain the path to the last entry is the entry
 * list itself, so building the context needs no walk by id.
 */
import { pathToRoot } from "./context.js";
import type { SessionEntry } from "./types.js";

export class EntryIndex {
  readonly byId = new Map<string, SessionEntry>();
  readonly labels = new Map<string, string>();
  /** Timestamp of the label entry that set each current label (pi's `labelTimestamp`). */
  readonly labelTimestamps = new Map<string, string>();
  /**
   * True while the entries added so far are one chain: the first has no parent, each next one's parent is the
   * entry added before it, and no id repeats. Then the path from the root to the last entry is all entries.
   */
  private chained = true;
  private lastId: string | null = null;

  /** Indexes `e`, the entry after the ones added before. A bound function, usable as a callback. */
  readonly add = (e: SessionEntry): void => {
    const byId = this.byId;
    const before = byId.size;
    byId.set(e.id, e);
    // A repeated id replaced an entry (the map did not grow): the list is no longer the path.
    if (this.chained && (e.parentId !== this.lastId || byId.size === before)) this.chained = false;
    this.lastId = e.id;
    if (e.type === "label") {
      if (e.label) {
        this.labels.set(e.targetId, e.label);
        this.labelTimestamps.set(e.targetId, e.timestamp);
      } else {
        this.labels.delete(e.targetId);
        this.labelTimestamps.delete(e.targetId);
      }
    }
  };

  clear(): void {
    this.byId.clear();
    this.labels.clear();
    this.labelTimestamps.clear();
    this.chained = true;
    this.lastId = null;
  }

  /** Rebuilds the index from `entries` (after they were changed in place, e.g. migrated). */
  rebuild(entries: readonly SessionEntry[]): void {
    this.clear();
    for (const e of entries) this.add(e);
  }

  /**
   * True when the path from the root to `leafId` is exactly `entries` (which must be the entries added, in order):
   * the entries are one chain and `leafId` is the last one.
   */
  isWholeChain(entries: readonly SessionEntry[], leafId: string | null): boolean {
    return this.chained && leafId !== null && leafId === this.lastId && entries.length === this.byId.size;
  }

  /** Entries from the root to `leafId`, oldest first (a fresh array; `entries` are the entries added, in order). */
  pathTo(entries: readonly SessionEntry[], leafId: string | null): SessionEntry[] {
    return this.isWholeChain(entries, leafId) ? entries.slice() : pathToRoot(this.byId, leafId);
  }

  /** `pathTo` for reading only: `entries` itself when it is the whole path (no copy). */
  pathView(entries: readonly SessionEntry[], leafId: string | null): readonly SessionEntry[] {
    return this.isWholeChain(entries, leafId) ? entries : pathToRoot(this.byId, leafId);
  }
}
