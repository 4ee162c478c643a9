/**
 * Streaming markdown code tracker: fed one character at a time, it says whether the next character is inside an
 * inline code span or a fenced block. A run of N backticks opens a span that only a run of exactly N closes, which
 * covers ``` fences too. The decision for a run is taken at the first character after it, so runs split across
 * deltas are handled with O(1) state.
 */
export class CodeSpanTracker {
  private openRun = 0;
  private run = 0;

  /** True while inside code (after the opening run has been closed by a non-backtick character). */
  get inCode(): boolean {
    return this.openRun > 0;
  }

  /** Feeds one character; returns whether that character is inside code (backticks count as code). */
  feed(ch: string): boolean {
    if (ch === "`") {
      this.run++;
      return true;
    }
    if (this.run > 0) {
      if (this.openRun === 0) this.openRun = this.run;
      else if (this.run === this.openRun) this.openRun = 0;
      this.run = 0;
    }
    return this.openRun > 0;
  }

  reset(): void {
    this.openRun = 0;
    this.run = 0;
  }
}
