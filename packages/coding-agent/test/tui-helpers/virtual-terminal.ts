/**
 * A pi-tui `Terminal` backed by @xterm/headless: what the renderer writes is interpreted by a real terminal
 * emulator (cursor movement, wrapping, wide characters, reflow on resize, scrollback), and tests read the
 * resulting screen cell by cell. Character widths come from xterm's Unicode 11 tables, independent of the
 * pi-tui width functions the renderer uses, so a width mistake shows up as misaligned cells.
 */
import type { Terminal } from "@mariozechner/pi-tui";
import unicode11 from "@xterm/addon-unicode11";
import xterm from "@xterm/headless";

export interface Cell {
  chars: string;
  width: number;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  /** Palette index (0–255) of the foreground, or -1 for the default colour. */
  fg: number;
}

export class VirtualTerminal implements Terminal {
  readonly xterm: InstanceType<typeof xterm.Terminal>;
  columns: number;
  rows: number;
  kittyProtocolActive = false;
  /** Every chunk written, in order. */
  writes: string[] = [];
  bytes = 0;
  private onResize: (() => void) | undefined;

  constructor(columns = 80, rows = 24, scrollback = 1000) {
    this.columns = columns;
    this.rows = rows;
    this.xterm = new xterm.Terminal({ cols: columns, rows, scrollback, allowProposedApi: true });
    // Unicode 11 widths, as tmux, iTerm2, kitty and VTE use (emoji are two columns); xterm's default is Unicode 6.
    this.xterm.loadAddon(new unicode11.Unicode11Addon());
    this.xterm.unicode.activeVersion = "11";
  }

  start(_onInput: (data: string) => void, onResize: () => void): void {
    this.onResize = onResize;
  }
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.writes.push(data);
    this.bytes += Buffer.byteLength(data);
    this.xterm.write(data);
  }
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}

  /** Resizes the emulator (it reflows like xterm does) and tells the renderer. */
  resize(columns: number, rows = this.rows): void {
    this.columns = columns;
    this.rows = rows;
    this.xterm.resize(columns, rows);
    this.onResize?.();
  }

  /** Resolves once the emulator has parsed everything written so far. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.xterm.write("", resolve));
  }

  /** The visible screen, one string per row, trailing blanks removed. */
  screen(): string[] {
    const buf = this.xterm.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "");
    return out;
  }

  /** Scrollback and screen, all rows. */
  allLines(): string[] {
    const buf = this.xterm.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? "");
    while (out.length > 0 && out[out.length - 1] === "") out.pop();
    return out;
  }

  /** The cell at column `x` of screen row `y`. */
  cell(x: number, y: number): Cell {
    const buf = this.xterm.buffer.active;
    const c = buf.getLine(buf.viewportY + y)?.getCell(x);
    if (!c) throw new Error(`no cell at ${x},${y}`);
    return {
      chars: c.getChars(),
      width: c.getWidth(),
      bold: c.isBold() !== 0,
      italic: c.isItalic() !== 0,
      underline: c.isUnderline() !== 0,
      fg: c.isFgDefault() ? -1 : c.getFgColor(),
    };
  }

  /** Screen row and column where `text` starts (columns count wide characters as two), or undefined. */
  find(text: string): { x: number; y: number } | undefined {
    const buf = this.xterm.buffer.active;
    for (let y = 0; y < this.rows; y++) {
      const line = buf.getLine(buf.viewportY + y);
      if (!line) continue;
      // Rebuild the row cell by cell so the index is a column, not a string offset.
      const cols: string[] = [];
      for (let x = 0; x < this.columns; x++) cols.push(line.getCell(x)?.getChars() || " ");
      const cells: number[] = [];
      let s = "";
      cols.forEach((ch, x) => {
        const w = line.getCell(x)?.getWidth() ?? 1;
        if (w === 0) return;
        cells.push(...Array.from(ch, () => x));
        s += ch;
      });
      const i = s.indexOf(text);
      if (i >= 0) return { x: cells[i]!, y };
    }
    return undefined;
  }
}

/** Polls until `pred` holds (frames are scheduled on timers), then lets the emulator catch up. */
export async function until(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
