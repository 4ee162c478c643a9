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
