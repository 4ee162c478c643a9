/**
 * A text built from many small appends (a reply's deltas), joined only when read. `+=` per delta keeps a 32-byte
 * rope node per delta for the whole message; a growing array of pieces copies its backing store every time it
 * outgrows it (about three times the final array, promoted to the old generation with it, in every session
 * streaming at once). Here the pieces go into fixed blocks of BLOCK slots allocated once each: 4–8 bytes per
 * piece, nothing copied until the text is read. Tiller addition (pi-ai has no such export).
 */
const BLOCK = 256;

export class PieceText {
  private full: string[][] = [];
  /** The block being filled: BLOCK slots, the unused ones holes (`join` reads them as ""). */
  private block: string[] = new Array<string>(BLOCK);
  private used = 0;
  private chars = 0;

  /** Characters appended so far. */
  get length(): number {
    return this.chars;
  }

  append(piece: string): void {
    if (piece.length === 0) return;
    if (this.used === BLOCK) {
      this.full.push(this.block);
      this.block = new Array<string>(BLOCK);
      this.used = 0;
    }
    this.block[this.used++] = piece;
    this.chars += piece.length;
  }

  /**
   * The text from character `start` on, without joining what comes before it: the pieces after `start` are
   * joined (the first one cut), so reading each new tail of a growing text costs its length, not the whole text's.
   */
  sliceFrom(start: number): string {
    if (start >= this.chars) return "";
    if (start <= 0) return this.toString();
    const need = this.chars - start;
    const tail: string[] = [];
    let got = 0;
    // Newest block first, newest piece first, until the tail is covered.
    for (let b = this.full.length; b >= 0 && got < need; b--) {
      const block = b === this.full.length ? this.block : (this.full[b] as string[]);
      for (let i = (b === this.full.length ? this.used : BLOCK) - 1; i >= 0 && got < need; i--) {
        const piece = block[i] as string;
        tail.push(piece);
        got += piece.length;
      }
    }
    const joined = tail.length === 1 ? (tail[0] as string) : tail.reverse().join("");
    return got > need ? joined.slice(got - need) : joined;
  }

  /**
   * Whether the text equals `s`, compared piece by piece (no join, nothing allocated): a caller holding the same
   * text built elsewhere (the finished message's) can use that string instead of joining a second copy.
   */
  equals(s: string): boolean {
    if (s.length !== this.chars) return false;
    let at = 0;
    for (let b = 0; b <= this.full.length; b++) {
      const block = b === this.full.length ? this.block : (this.full[b] as string[]);
      const n = b === this.full.length ? this.used : BLOCK;
      for (let i = 0; i < n; i++) {
        const piece = block[i] as string;
        if (!s.startsWith(piece, at)) return false;
        at += piece.length;
      }
    }
    return true;
  }

  /**
   * Returns the text (one flat string) and empties this, keeping the block being filled for the next appends:
   * for a reader that moves the text elsewhere at every read, without an allocation per read beyond the join.
   */
  take(): string {
    const text = this.full.length === 0 && this.used <= 1 ? (this.block[0] ?? "") : this.join();
    this.full = [];
    this.block.fill(undefined as unknown as string, 0, this.used);
    this.used = 0;
    this.chars = 0;
    return text;
  }

  /** The whole text (one flat string; later appends go after it). */
  toString(): string {
    if (this.full.length === 0 && this.used <= 1) return this.block[0] ?? "";
    // One flat string (`join` makes one); later reads start from it.
    const flat = this.join();
    this.full = [];
    this.block = new Array<string>(BLOCK);
    this.block[0] = flat;
    this.used = 1;
    return flat;
  }

  private join(): string {
    if (this.full.length === 0) return this.block.join("");
    const parts = this.full.map((b) => b.join(""));
    parts.push(this.block.join(""));
    return parts.join("");
  }
}
