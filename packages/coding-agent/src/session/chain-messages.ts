/**
 * The context messages of a session's entry list, collected as the entries are added. The context of a whole chain
 * is then a copy of this list (of two ranges of it after a compaction) instead of a second visit to every entry: by
 * the time a long file is read its entries are spread over the heap, and that visit costs a cache miss per entry
 * (10-18 ms on a 100 MB session), while `addFrom` reads each chunk's entries right after they were parsed.
 */
import type { AgentMessage } from "@tiller/agent";
import { entryMessage } from "./path-context.js";
import type { SessionEntry } from "./types.js";

export class ChainMessages {
  /**
   * The message each contributing entry gives, in entry order. An entry whose message is made afresh for every
   * context (a custom message or a branch summary, as the tree walk makes them) holds its place with `undefined`.
   */
  private messages: (AgentMessage | undefined)[] = [];
  /** The entry index (in the entry list) of each element of `messages`, ascending. */
  private at = new Int32Array(256);
  /** Positions in `messages` of the places made afresh, ascending. */
  private made: number[] = [];
  /** The entries of the places made afresh, by position in `made`. */
  private madeFrom: SessionEntry[] = [];

  /** Notes `list[from]` to `list[to - 1]`, the entries at indexes `first`, `first + 1`, … of the entry list. */
  addFrom(list: readonly SessionEntry[], from: number, to: number, first: number): void {
    const messages = this.messages;
    if (messages.length + (to - from) > this.at.length) {
      let size = this.at.length * 2;
      while (messages.length + (to - from) > size) size *= 2;
      const bigger = new Int32Array(size);
      bigger.set(this.at);
      this.at = bigger;
    }
    const at = this.at;
    for (let k = from, index = first; k < to; k++, index++) {
      const entry = list[k] as SessionEntry;
      let message: AgentMessage | undefined;
      if (entry.type === "message") {
        // A line without a message (a corrupt file) contributes nothing, as in the tree walk.
        message = entry.message;
        if (message === undefined || message === null) continue;
      } else if (entry.type === "custom_message" || (entry.type === "branch_summary" && entry.summary)) {
        this.made.push(messages.length);
        this.madeFrom.push(entry);
      } else continue;
      at[messages.length] = index;
      messages.push(message);
    }
  }

  clear(): void {
    this.messages = [];
    this.at = new Int32Array(256);
    this.made = [];
    this.madeFrom = [];
  }

  /** The messages of entries `from` (inclusive) to `to` (exclusive) of the list, in order: a fresh array. */
  range(from: number, to: number): AgentMessage[] {
    const start = lowerBound(this.at, this.messages.length, from);
    const end = lowerBound(this.at, this.messages.length, to);
    if (start >= end) return [];
    // One native copy of the range, then the places made afresh within it.
    const out = this.messages.slice(start, end) as AgentMessage[];
    for (
      let m = lowerBound(this.made, this.made.length, start);
      m < this.made.length && (this.made[m] as number) < end;
      m++
    )
      out[(this.made[m] as number) - start] = entryMessage(this.madeFrom[m] as SessionEntry) as AgentMessage;
    return out;
  }
}

/** The first position in `sorted[0]` to `sorted[length - 1]` (ascending) holding `value` or more. */
function lowerBound(sorted: ArrayLike<number>, length: number, value: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
