/**
 * A content block's string field while the model streams it (a text block's `text`, a thinking block's
 * `thinking`), kept without a rope node per delta.
 *
 * `block.text += delta` keeps a rope node per delta, and the delta it points to, for the whole message: both are
 * promoted to the old generation in every session streaming at once, although most streams' text is read only
 * when the block ends. Here the field is an own enumerable accessor over the deltas kept as pieces
 * (`PieceText`): reading it appends what arrived since the last read to the value (one rope node per read, not
 * per delta), so a reader at every event sees what `+=` gave and pays what it paid, and a stream nobody reads
 * mid-way joins its text once. Assigning the field replaces the text. `seal()`, at the block's end, turns it back
 * into a plain data property holding the whole text, so a finished message is the plain object pi-ai builds.
 */
import { PieceText } from "./piece-text.js";

export class StreamedField<K extends string> {
  private value: string;
  private pending = new PieceText();
  private sealed = false;

  constructor(
    private readonly target: { [P in K]: string },
    private readonly key: K,
  ) {
    this.value = target[key];
    Object.defineProperty(target, key, {
      get: () => this.read(),
      set: (v: string) => {
        this.value = v;
        this.pending = new PieceText();
      },
      enumerable: true,
      configurable: true,
    });
  }

  append(delta: string): void {
    if (this.sealed) this.target[this.key] += delta;
    else this.pending.append(delta);
  }

  /** The text so far. */
  read(): string {
    if (this.pending.length > 0) {
      const tail = this.pending.take();
      this.value = this.value.length === 0 ? tail : this.value + tail;
    }
    return this.value;
  }

  /** Ends the streaming: the field becomes a plain writable data property with the whole text, which it returns. */
  seal(): string {
    const value = this.read();
    if (!this.sealed) {
      this.sealed = true;
      Object.defineProperty(this.target, this.key, { value, writable: true, enumerable: true, configurable: true });
    }
    return value;
  }
}
