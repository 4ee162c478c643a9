/**
 * A pick-one list shown in the panel above the editor, keyboard-driven: type to fuzzy-filter (all
 * space-separated words must match, best matches first), ↑/↓ or PgUp/PgDn to move, Enter to choose, Esc to
 * cancel (Backspace on an empty filter too). Resolves with the chosen value, or undefined when cancelled.
 */
import { type Component, fuzzyFilter, matchesKey, type SelectItem, SelectList, Text } from "@mariozechner/pi-tui";
import { c, selectListTheme } from "./theme.js";

export interface SelectorOptions {
  /** The value highlighted first. */
  selected?: string;
  /** Rows of the list shown at once. */
  maxVisible?: number;
  /** Filter text already typed (e.g. `/model son` opens the picker on "son"). */
  filter?: string;
}

export class Selector implements Component {
  private title: Text;
  private list: SelectList;
  private items: SelectItem[];
  private shown: SelectItem[];
  private maxVisible: number;
  private filter: string;
  private resolve!: (value: string | undefined) => void;
  readonly done: Promise<string | undefined>;

  constructor(title: string, items: SelectItem[], options: SelectorOptions | string = {}) {
    const o = typeof options === "string" ? { selected: options } : options;
    this.title = new Text(c.bold(title) + c.gray("  (type to search · ↑↓ move · Enter choose · Esc cancel)"), 1, 0);
    this.items = items;
    this.shown = items;
    this.maxVisible = o.maxVisible ?? 10;
    this.filter = o.filter ?? "";
    this.done = new Promise((resolve) => {
      this.resolve = resolve;
    });
    this.list = this.makeList(items);
    if (this.filter) this.applyFilter();
    else {
      const index = o.selected === undefined ? -1 : items.findIndex((i) => i.value === o.selected);
      if (index > 0) this.list.setSelectedIndex(index);
    }
  }

  /** Filters on what the user sees (label and description), not on the hidden values. */
  private makeList(items: SelectItem[]): SelectList {
    const list = new SelectList(items, this.maxVisible, selectListTheme);
    list.onSelect = (item) => this.resolve(item.value);
    list.onCancel = () => this.resolve(undefined);
    return list;
  }

  private applyFilter(): void {
    this.shown = fuzzyFilter(this.items, this.filter, (i) => `${i.label} ${i.description ?? ""}`);
    this.list = this.makeList(this.shown);
  }

  /** The list shown now (it is rebuilt when the filter changes). */
  getSelectList(): SelectList {
    return this.list;
  }

  /** The filter typed so far. */
  get filterText(): string {
    return this.filter;
  }

  /** The value under the cursor (for tests and callers that preview). */
  get current(): string | undefined {
    return this.list.getSelectedItem()?.value;
  }

  handleInput(data: string): void {
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.resolve(undefined);
      return;
    }
    // Printable characters narrow the list; everything else (arrows, Enter) goes to the list.
    if (data.length === 1 && data >= " " && data !== "\x7f") {
      this.filter += data;
      this.applyFilter();
      return;
    }
    if (data === "\x7f" || data === "\b") {
      if (!this.filter) return;
      this.filter = this.filter.slice(0, -1);
      this.applyFilter();
      return;
    }
    if (matchesKey(data, "pageDown") || matchesKey(data, "pageUp")) {
      const n = this.shown.length;
      if (n === 0) return;
      const at = Math.max(
        0,
        this.shown.findIndex((i) => i.value === this.current),
      );
      const next = matchesKey(data, "pageDown")
        ? Math.min(n - 1, at + this.maxVisible)
        : Math.max(0, at - this.maxVisible);
      this.list.setSelectedIndex(next);
      return;
    }
    // Enter on an empty result does nothing (SelectList would not call onSelect anyway).
    this.list.handleInput(data);
  }

  invalidate(): void {
    this.title.invalidate();
    this.list.invalidate();
  }

  render(width: number): string[] {
    const count = c.gray(`${this.shown.length}/${this.items.length}`);
    const filter = [` ${c.cyan("search:")} ${this.filter}${c.inverse(" ")}  ${count}`];
    return ["", ...this.title.render(width), ...filter, ...this.list.render(width)];
  }
}
