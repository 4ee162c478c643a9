/**
 * A text built from many small appends (a reply's deltas), joined only when read. `+=` per delta keeps a 32-byte
 * rope node per delta for the whole message; a growing array of pieces copies its backing store every time it
 * outgrows it (about three times the final array, promoted to the old generation with it, in every session
 * streaming at once). Here the pieces go into fixed blocks of BLOCK slots allocated once each: 8 bytes per piece,
 * nothing copied until the text is read.
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

  /** The whole text (one flat string; later appends go after it). */
  toString(): string {
    if (this.full.length === 0 && this.used <= 1) return this.block[0] ?? "";
    const parts = this.full.map((b) => b.join(""));
    parts.push(this.block.join(""));
    // One flat string (`join` makes one); later reads start from it.
    const flat = parts.join("");
    this.full = [];
    this.block = new Array<string>(BLOCK);
    this.block[0] = flat;
    this.used = 1;
    return flat;
  }
}
