/**
 * A set of 32-bit hashes of entry ids, kept in a typed array: membership with false positives (two ids of one
 * hash) and never a false negative. It is what opening a session needs to know about ids (can a repeated id make
 * the entry list differ from the path? is a fresh id unused?) without a `Map` of every entry: filling a map while
 * a large file is parsed stores a pointer to each young entry into an old table, and every scavenge of the parse
 * then pays for those slots; integers in a typed array cost the collector nothing.
 */

/**
 * A 32-bit hash of `id`. An entry id is 8 hex digits: their value is the hash (exact for those ids, leading zeros
 * included), read by the native `Number("0x…")`, which reads the whole string or gives NaN. A fresh process runs the
 * loops that hash a file's ids interpreted at first, where one native call costs less than a loop over 8 characters.
 * Any other id gets FNV-1a over its UTF-16 code units. Equal hashes of different ids (`ABCDEF01` and `abcdef01`) are
 * a collision.
 */
function hashId(id: string): number {
  let h: number;
  if (id.length === 8 && (h = Number(`0x${id}`)) === h) return h | 0;
  h = 0x811c9dc5 | 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h;
}

export class IdHashSet {
  /** Open addressing, linear probing, at most half full. */
  private table = new Int32Array(256);
  private mask = 255;
  private count = 0;
  /** Whether hash 0 was added: 0 marks an empty slot of the table, so that one hash is kept beside it. */
  private zero = false;

  /** Adds the hash of `id`. Returns true when it was already there (`id` may have been added before). */
  add(id: string): boolean {
    return this.addHash(hashId(id));
  }

  /** Adds `h`, a `hashId` value. Returns true when it was already there. */
  addHash(h: number): boolean {
    if (h === 0) {
      const had = this.zero;
      this.zero = true;
      return had;
    }
    let j = h & this.mask;
    for (;;) {
      const v = this.table[j] as number;
      if (v === 0) break;
      if (v === h) return true;
      j = (j + 1) & this.mask;
    }
    this.table[j] = h;
    if (++this.count * 2 > this.mask) this.grow();
    return false;
  }

  /**
   * Adds the id of each of `items[from]` to `items[to - 1]` (a value that is not a string as `String` gives it), with
   * room reserved for all of them first. Returns true when any hash was already there.
   */
  addIdsOf(items: readonly { readonly id?: unknown }[], from: number, to: number): boolean {
    this.reserve(to - from);
    let repeated = false;
    for (let k = from; k < to; k++) {
      const raw = (items[k] as { readonly id?: unknown }).id;
      if (this.addHash(hashId(typeof raw === "string" ? raw : String(raw)))) repeated = true;
    }
    return repeated;
  }

  /** False when `id` was certainly never added; true when it may have been. */
  mightHave(id: string): boolean {
    const h = hashId(id);
    if (h === 0) return this.zero;
    let j = h & this.mask;
    for (;;) {
      const v = this.table[j] as number;
      if (v === 0) return false;
      if (v === h) return true;
      j = (j + 1) & this.mask;
    }
  }

  /** Makes room for `more` further ids without growing the table on the way (one allocation for a batch). */
  reserve(more: number): void {
    let size = this.table.length;
    while ((this.count + more) * 2 > size - 1) size *= 2;
    if (size > this.table.length) this.rehash(size);
  }

  clear(): void {
    this.table = new Int32Array(256);
    this.mask = 255;
    this.count = 0;
    this.zero = false;
  }

  private grow(): void {
    this.rehash(this.table.length * 2);
  }

  private rehash(size: number): void {
    const old = this.table;
    this.table = new Int32Array(size);
    this.mask = this.table.length - 1;
    for (let i = 0; i < old.length; i++) {
      const v = old[i] as number;
      if (v === 0) continue;
      let j = v & this.mask;
      while (this.table[j] !== 0) j = (j + 1) & this.mask;
      this.table[j] = v;
    }
  }
}
