/** A pick-one list shown in the panel above the editor; resolves with the chosen value or undefined on Esc. */
import { type Component, type SelectItem, SelectList, Text } from "@mariozechner/pi-tui";
import { c, selectListTheme } from "./theme.js";

export class Selector implements Component {
  private title: Text;
  readonly list: SelectList;
  readonly done: Promise<string | undefined>;
  private filter = "";

  constructor(title: string, items: SelectItem[], selected?: string, maxVisible = 10) {
    this.title = new Text(c.bold(title) + c.gray("  (↑↓ move · type to filter · Enter choose · Esc cancel)"), 1, 0);
    this.list = new SelectList(items, maxVisible, selectListTheme);
    const index = selected === undefined ? -1 : items.findIndex((i) => i.value === selected);
    if (index > 0) this.list.setSelectedIndex(index);
    this.done = new Promise((resolve) => {
      this.list.onSelect = (item) => resolve(item.value);
      this.list.onCancel = () => resolve(undefined);
    });
  }

  handleInput(data: string): void {
    // Printable characters narrow the list; everything else (arrows, Enter, Esc) goes to the list.
    if (data.length === 1 && data >= " " && data !== "\x7f") {
      this.filter += data;
      this.list.setFilter(this.filter);
      return;
    }
    if ((data === "\x7f" || data === "\b") && this.filter) {
      this.filter = this.filter.slice(0, -1);
      this.list.setFilter(this.filter);
      return;
    }
    this.list.handleInput(data);
  }

  invalidate(): void {
    this.title.invalidate();
    this.list.invalidate();
  }

  render(width: number): string[] {
    return ["", ...this.title.render(width), ...this.list.render(width)];
  }
}
