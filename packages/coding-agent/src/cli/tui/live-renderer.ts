/**
 * Inline renderer that keeps the terminal's scrollback intact and never clears the screen.
 *
 * Finished content (past messages, completed tool calls) is written once with `commit()` and then belongs to the
 * terminal's scrollback. Only the live region at the bottom (the message being streamed, the editor, the status
 * line) is redrawn, and only from its first changed line, inside synchronized-output brackets, so nothing flickers.
 * When the live region would grow taller than the screen, its top lines are committed (they scrolled out of view
 * and could not be redrawn without clearing the screen — what makes other TUIs lose scrollback).
 */
import { type Component, CURSOR_MARKER, type Terminal, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";

/** A live component whose top lines can be handed to the scrollback. */
export interface LiveRoot extends Component {
  /** Drops the first `n` rendered lines from future renders (they were committed). */
  consumeTop(n: number): void;
  /** How many of the top lines may be committed (lines of finished or streaming items, not editor or status). */
  committableTop(width: number): number;
  /**
   * These lines, drawn at an earlier width, went into the scrollback on their own (a narrower window re-wrapped
   * the live region taller than the screen): treat their content as committed.
   */
  consumeRendered?(lines: readonly string[]): void;
}

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
const RESET = "\x1b[0m";
const ERASE_ROW = "\x1b[2K";
const MIN_INTERVAL_MS = 16;

export class LiveRenderer {
  readonly terminal: Terminal;
  private root: LiveRoot;
  private prev: string[] = [];
  private pendingCommit: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];
  private lastRender = 0;
  private stopped = true;
  private width = 0;
  /** Width the live region on screen was drawn at; after a resize its lines may have re-wrapped. */
  private drawnWidth = 0;
  /** Screen height at the last frame; a shorter screen pushed the top of the live region out of reach. */
  private drawnRows = 0;
  /**
   * A lower bound of the screen row of the live region's first line (we do not know where the shell left the
   * cursor, so start at 0). tmux keeps the cursor's row when it re-wraps on a resize, so the rows above the
   * cursor are all a redraw can reach; under-estimating them is safe, over-estimating leaves stale copies.
   */
  private liveTop = 0;
  /** Number of frames written (for tests and diagnostics). */
  frames = 0;

  constructor(terminal: Terminal, root: LiveRoot) {
    this.terminal = terminal;
    this.root = root;
  }

  start(onInput: (data: string) => void): void {
    this.stopped = false;
    this.terminal.start(onInput, () => this.onResize());
    this.terminal.hideCursor();
    this.width = this.terminal.columns;
    this.renderNow();
  }

  /** Restores the terminal: cursor below the live region, visible. */
  stop(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.renderNow();
    for (const w of this.waiters.splice(0)) w();
    this.stopped = true;
    this.terminal.write("\r\n");
    this.terminal.showCursor();
    this.terminal.stop();
  }

  /** Schedules a redraw (coalesced to at most one per 16 ms). The `force` flag is accepted for pi-tui components. */
  requestRender(_force?: boolean): void {
    if (this.stopped || this.timer) return;
    const wait = Math.max(0, MIN_INTERVAL_MS - (Date.now() - this.lastRender));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.renderNow();
      if (!this.timer) for (const w of this.waiters.splice(0)) w();
    }, wait);
  }

  /** Resolves once no frame is scheduled any more (the last requested frame has been written). */
  idle(): Promise<void> {
    if (!this.timer) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes finished lines above the live region; they go to scrollback and are never redrawn. */
  commit(lines: readonly string[]): void {
    if (lines.length === 0) return;
    for (const l of lines) this.pendingCommit.push(l);
    this.requestRender();
  }

  private onResize(): void {
    const width = this.terminal.columns;
    if (width !== this.width) {
      this.width = width;
      this.root.invalidate();
    }
    this.requestRender();
  }

  private renderNow(): void {
    if (this.stopped) return;
    this.lastRender = Date.now();
    const width = Math.max(10, this.terminal.columns);
    const rows = Math.max(4, this.terminal.rows);
    // Row of the cursor (last live line), as a lower bound; on a resize the terminal keeps it there.
    const cursorRow = Math.min(rows - 1, this.liveTop + Math.max(0, this.prev.length - 1));
    const reshaped = this.prev.length > 0 && (this.drawnWidth !== width || this.drawnRows !== rows);
    if (reshaped) this.dropUnreachable(width, cursorRow);
    let lines = this.root.render(width);
    // Keep the live region within the screen: hand overflowing top lines to the scrollback.
    const overflow = lines.length - (rows - 1);
    if (overflow > 0) {
      const n = Math.min(overflow, this.root.committableTop(width));
      if (n > 0) {
        for (let i = 0; i < n; i++) this.pendingCommit.push(lines[i]!);
        this.root.consumeTop(n);
        lines = lines.slice(n);
      }
    }
    // Still too tall (the first item is a running tool and a later one outgrew the screen): show the bottom. The
    // hidden top is written when its item finishes; drawing it would scroll rows we can no longer reach.
    if (lines.length > rows - 1) lines = lines.slice(lines.length - (rows - 1));
    const live = lines.map((l) => fit(l, width));
    const committed = this.pendingCommit.splice(0).map((l) => fit(l, width));
    let out = SYNC_START;
    const resized = reshaped;
    /** Screen row (lower bound) where the first committed or live line is written. */
    let startRow = this.liveTop;
    // Lines are overwritten in place, each row erased first (fit adds EL 2); ED runs only after the last line.
    // Never ED from the top-left corner: tmux and VTE then push the whole screen into the scrollback.
    if (this.prev.length === 0 || resized) {
      // Back to the top of the live region, write the committed lines over it, then the live region.
      const up = this.rowsUp(width);
      out += `${up > 0 ? `\x1b[${up}A` : ""}\r`;
      startRow = this.prev.length === 0 ? 0 : Math.max(0, cursorRow - up);
      // After a resize the rows hold the terminal's re-wrapped copy of the old lines, marked as continuation
      // rows; the EL 2 that starts every line (fit) clears that mark too (xterm.js keeps it through a plain
      // overwrite), else widening the window later would join our separate lines.
      const erase = resized || committed.length + live.length < this.prev.length;
      for (const l of committed) out += `${l}\r\n`;
      out += (erase ? eraseBelowLast(live) : live).join("\r\n");
    } else {
      // Committed lines are usually the top of what is on screen already (a finished item, or the top of a
      // streaming reply that outgrew the screen): diff committed + live against the previous frame, so they stay
      // where they are and scroll into the scrollback as new lines are written below, with nothing rewritten.
      const all = committed.length > 0 ? [...committed, ...live] : live;
      let first = 0;
      const max = Math.min(all.length, this.prev.length);
      while (first < max && all[first] === this.prev[first]) first++;
      if (first === all.length && all.length === this.prev.length) {
        this.prev = live;
        this.liveTop += committed.length;
        return; // nothing changed on screen
      }
      if (first >= all.length) {
        // Only lines were removed: go to the new last line, rewrite it and erase what was below.
        const target = Math.max(0, all.length - 1);
        const up = this.prev.length - 1 - target;
        if (up > 0) out += `\x1b[${up}A`;
        out += `\r${eraseBelowLast([all[target] ?? ""])[0]}`;
      } else if (all.length === this.prev.length) {
        // Same height: rewrite only the changed rows, then step back down to the last row (the panel below a
        // growing line stays untouched).
        let last = all.length - 1;
        while (last > first && all[last] === this.prev[last]) last--;
        const up = this.prev.length - 1 - first;
        if (up > 0) out += `\x1b[${up}A`;
        out += `\r${all.slice(first, last + 1).join("\r\n")}`;
        const down = all.length - 1 - last;
        if (down > 0) out += `\x1b[${down}B`;
      } else {
        const up = this.prev.length - 1 - first;
        if (up > 0) out += `\x1b[${up}A`;
        else if (up < 0) out += "\r\n".repeat(-up);
        const rest = all.slice(first);
        out += `\r${(all.length < this.prev.length ? eraseBelowLast(rest) : rest).join("\r\n")}`;
      }
    }
    out += SYNC_END;
    this.terminal.write(out);
    const total = committed.length + live.length;
    const endRow = Math.min(rows - 1, startRow + Math.max(0, total - 1));
    this.liveTop = Math.max(0, endRow - Math.max(0, live.length - 1));
    this.prev = live;
    this.drawnWidth = width;
    this.drawnRows = rows;
    this.frames++;
  }

  /** Rows a line drawn at an earlier width takes once the terminal re-wrapped it to `width`. */
  private rowsAt(line: string, width: number): number {
    return Math.max(1, Math.ceil(visibleWidth(line) / width));
  }

  /**
   * After narrowing, the terminal has re-wrapped the old live region; if it is now taller than the screen its top
   * rows scrolled where the cursor cannot go. Those lines are in the scrollback already (re-wrapped, readable):
   * count them as committed, and redraw only from the first line that is wholly on screen.
   */
  private dropUnreachable(width: number, cursorRow: number): void {
    let total = 0;
    for (const l of this.prev) total += this.rowsAt(l, width);
    if (total - 1 <= cursorRow) return;
    let k = 0;
    while (k < this.prev.length - 1 && total - 1 > cursorRow) total -= this.rowsAt(this.prev[k++]!, width);
    if (k === 0 || !this.root.consumeRendered) return;
    this.root.consumeRendered(this.prev.slice(0, k));
    this.prev = this.prev.slice(k);
  }

  /**
   * Rows from the cursor (end of the last live line) up to the first live line. After a width change the
   * terminal has re-wrapped the old lines: count the rows they take at the new width (terminals that reflow,
   * like tmux, xterm and iTerm2, keep the cursor with the text).
   */
  private rowsUp(width: number): number {
    if (this.prev.length === 0) return 0;
    let rows = this.prev.length;
    if (this.drawnWidth !== width && width > 0) {
      rows = 0;
      for (const l of this.prev) rows += this.rowsAt(l, width);
    }
    return rows - 1;
  }
}

/**
 * Strips the cursor marker, truncates to the width (a wrapped line would break the row arithmetic), and writes
 * the row as EL 2 (erase the whole row, cursor at column 0) + text + SGR reset. Erasing first rather than after:
 * tmux remembers how far a row was ever written and re-wraps it at that length on a resize unless EL 2 resets it,
 * and EL 2 is safe after a full-width line (whose cursor sits on the last cell, where EL would erase a character).
 * Trailing blanks (pi-tui's Text pads to the width) are dropped: the erase already blanked them.
 */
/**
 * The last line starts with ED (erase this row and all below) instead of EL 2: it clears what a taller previous
 * frame left below, from column 0, so it never eats the last cell of a full-width line.
 */
function eraseBelowLast(lines: string[]): string[] {
  if (lines.length === 0) return lines;
  const out = lines.slice();
  const last = out[out.length - 1]!;
  out[out.length - 1] = last.startsWith(ERASE_ROW) ? `\x1b[J${last.slice(ERASE_ROW.length)}` : `\x1b[J${last}`;
  return out;
}

function fit(line: string, width: number): string {
  const clean = line.includes(CURSOR_MARKER) ? line.split(CURSOR_MARKER).join("") : line;
  const cut = truncateToWidth(clean, width, "").replace(/ +$/, "");
  // EL after the text as well, where it is safe (not full width): a terminal that draws a grapheme wider than
  // measured (a ZWJ emoji as three glyphs) wraps the overflow onto the next row, and EL then clears that row.
  return visibleWidth(cut) < width ? `${ERASE_ROW}${cut}${RESET}\x1b[K` : `${ERASE_ROW}${cut}${RESET}`;
}
