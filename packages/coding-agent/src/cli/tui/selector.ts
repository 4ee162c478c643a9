/** A pick-one list shown in the panel above the editor; resolves with the chosen value or undefined on Esc. */
import { type Component, type SelectItem, SelectList, Text } from "@mariozechner/pi-tui";
import { c, selectListTheme } from "./theme.js";

export class Selector implements Component {
  private title: Text;
  private list: SelectList;
  private items: SelectItem[];
  private maxVisible: number;
  private filter = "";
  private resolve!: (value: string | undefined) => void;
  readonly done: Promise<string | undefined>;

  constructor(title: string, items: SelectItem[], selected?: string, maxVisible = 10) {
    this.title = new Text(c.bold(title) + c.gray("  (↑↓ move · type to filter · Enter choose · Esc cancel)"), 1, 0);
    this.items = items;
    this.maxVisible = maxVisible;
    this.done = new Promise((resolve) => {
      this.resolve = resolve;
    });
    this.list = this.makeList(items);
    const index = selected === undefined ? -1 : items.findIndex((i) => i.value === selected);
    if (index > 0) this.list.setSelectedIndex(index);
  }

  /** Filters on what the user sees (label and description), case-insensitively, not on the hidden values. */
  private makeList(items: SelectItem[]): SelectList {
    const list = new SelectList(items, this.maxVisible, selectListTheme);
    list.onSelect = (item) => this.resolve(item.value);
    list.onCancel = () => this.resolve(undefined);
    return list;
  }

  private applyFilter(): void {
    const f = this.filter.toLowerCase();
    const shown = f
      ? this.items.filter((i) => `${i.label} ${i.description ?? ""}`.toLowerCase().includes(f))
      : this.items;
    this.list = this.makeList(shown);
  }

  handleInput(data: string): void {
    // Printable characters narrow the list; everything else (arrows, Enter, Esc) goes to the list.
    if (data.length === 1 && data >= " " && data !== "\x7f") {
      this.filter += data;
      this.applyFilter();
      return;
    }
    if ((data === "\x7f" || data === "\b") && this.filter) {
      this.filter = this.filter.slice(0, -1);
      this.applyFilter();
      return;
    }
    this.list.handleInput(data);
  }

  invalidate(): void {
    this.title.invalidate();
    this.list.invalidate();
  }

  render(width: number): string[] {
    const filter = this.filter ? [c.gray(` filter: ${this.filter}`)] : [];
    return ["", ...this.title.render(width), ...filter, ...this.list.render(width)];
  }
}
