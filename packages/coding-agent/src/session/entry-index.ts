/**
 * The lookup structures of one session's entries (by id, current labels) plus whether the entries form one
 * unbranched chain. Adding is O(1) per entry and cheap enough to run while a file is read (`addFrom` is
 * `readSessionFile`'s `onEntries`), when the entries are still in the CPU cache: it compares each parent with the
 * previous id, notes labels, the latest entries that decide a context (thinking level, model, compaction), each
 * entry's context message and the hash of its id (into an `IdHashSet`). The `Map` by id is built only when
 * something asks for an entry by id (from the entry list, in one pass over entries that have left V8's young
 * generation by then), and kept current from then on. Opening a chain and building its context needs no map: the
 * path to the last entry is the entry list itself, its context is a copy of the messages noted, and a fresh id only
 * needs the hash set to be sure it is unused.
 */
import { ChainMessages } from "./chain-messages.js";
import { pathToRoot } from "./context.js";
import { IdHashSet } from "./id-hash-set.js";
import { contextOfChain, contextOfPath, notePathLatestFrom, type PathLatest } from "./path-context.js";
import type { SessionContext, SessionEntry } from "./types.js";

export class EntryIndex {
  readonly labels = new Map<string, string>();
  /** Timestamp of the label entry that set each current label (pi's `labelTimestamp`). */
  readonly labelTimestamps = new Map<string, string>();
  private readonly ids = new IdHashSet();
  /** The context messages of the entries added, for the context of the whole chain. */
  private readonly messages = new ChainMessages();
  /** Ids that may be taken (false positives only): what `newEntryId` needs, without building the map. */
  readonly takenIds: { has(id: string): boolean } = { has: (id) => this.ids.mightHave(id) };
  /** The list the entries were added from, in order (the manager appends to it as it adds). */
  private entries: readonly SessionEntry[] = [];
  private map: Map<string, SessionEntry> | undefined;
  private count = 0;
  /** True while each entry added so far has the one added before it as parent (the first: none). */
  private chained = true;
  /** An id hashed like an earlier one: it may repeat, which only the map can tell. */
  private maybeRepeated = false;
  private lastId: string | null = null;
  /** The latest positions that decide a context, over the entry list in order (the whole chain's path). */
  private readonly latest: PathLatest = { thinkingAt: -1, modelAt: -1, compactionAt: -1 };

  /** Indexes `e`, the entry after the ones added before. */
  add(e: SessionEntry): void {
    this.addFrom([e], 0, 1);
  }

  /**
   * Indexes `list[from]` to `list[to - 1]`, the entries after the ones added before, in order. A bound function,
   * usable as `readSessionFile`'s `onEntries`: a file's entries arrive a chunk at a time, while they are in the CPU
   * cache, and each concern runs as one loop over them (a fresh process runs these loops interpreted at first, where
   * a call per entry costs about as much as the work).
   */
  readonly addFrom = (list: readonly SessionEntry[], from: number, to: number): void => {
    if (to <= from) return;
    notePathLatestFrom(this.latest, list, from, to, this.count);
    this.messages.addFrom(list, from, to, this.count);
    // Hashed here, while the ids are in the cache: after the read, a pass over the entries of a long file costs two
    // cache misses per entry (the entry, its id string), 6-11 ms on a 100 MB file.
    if (this.ids.addIdsOf(list, from, to)) this.maybeRepeated = true;
    let chained = this.chained;
    let lastId = this.lastId;
    const map = this.map;
    for (let k = from; k < to; k++) {
      const e = list[k] as SessionEntry;
      if (chained && e.parentId !== lastId) chained = false;
      lastId = e.id;
      map?.set(e.id, e);
      if (e.type === "label") {
        if (e.label) {
          this.labels.set(e.targetId, e.label);
          this.labelTimestamps.set(e.targetId, e.timestamp);
        } else {
          this.labels.delete(e.targetId);
          this.labelTimestamps.delete(e.targetId);
        }
      }
    }
    this.chained = chained;
    this.lastId = lastId;
    this.count += to - from;
  };

  /**
   * Ties the index to `entries`, which must hold exactly the entries added, in order; the owner pushes every entry
   * it adds later onto the same list.
   */
  attach(entries: readonly SessionEntry[]): void {
    if (entries.length !== this.count)
      throw new Error(`entry index holds ${this.count} entries, the list ${entries.length}`);
    this.entries = entries;
  }

  /** Entries by id (a repeated id: the later entry). Built on first use. */
  get byId(): ReadonlyMap<string, SessionEntry> {
    if (this.map === undefined) {
      const m = new Map<string, SessionEntry>();
      for (const e of this.entries) m.set(e.id, e);
      this.map = m;
    }
    return this.map;
  }

  clear(): void {
    this.labels.clear();
    this.labelTimestamps.clear();
    this.ids.clear();
    this.messages.clear();
    this.entries = [];
    this.map = undefined;
    this.count = 0;
    this.chained = true;
    this.maybeRepeated = false;
    this.lastId = null;
    this.latest.thinkingAt = this.latest.modelAt = this.latest.compactionAt = -1;
  }

  /** Rebuilds the index from `entries` (after they were changed in place, e.g. migrated) and attaches it. */
  rebuild(entries: readonly SessionEntry[]): void {
    this.clear();
    this.addFrom(entries, 0, entries.length);
    this.entries = entries;
  }

  /**
   * True when the path from the root to `leafId` is exactly the entry list: the entries are one chain, no id
   * repeats, and `leafId` is the last one.
   */
  isWholeChain(leafId: string | null): boolean {
    if (!this.chained || leafId === null || leafId !== this.lastId) return false;
    return !this.maybeRepeated || this.byId.size === this.count;
  }

  /** Entries from the root to `leafId`, oldest first (a fresh array). */
  pathTo(leafId: string | null): SessionEntry[] {
    return this.isWholeChain(leafId) ? this.entries.slice() : pathToRoot(this.byId, leafId);
  }

  /**
   * The context of the path to `leafId`. For the whole chain it comes from what was noted while the entries were
   * added (the latest positions, the messages): no entry is visited again.
   */
  contextTo(leafId: string | null): SessionContext {
    return this.isWholeChain(leafId)
      ? contextOfChain(this.entries, this.latest, this.messages)
      : contextOfPath(pathToRoot(this.byId, leafId));
  }

  /** `pathTo` for reading only: the entry list itself when it is the whole path (no copy). */
  pathView(leafId: string | null): readonly SessionEntry[] {
    return this.isWholeChain(leafId) ? this.entries : pathToRoot(this.byId, leafId);
  }
}
