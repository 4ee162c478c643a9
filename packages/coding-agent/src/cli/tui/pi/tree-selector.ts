/**
 * pi's `/tree` picker: a title, the key hints and the search typed so far over the tree's rows (tree-list.ts).
 * Shift+L on a row opens a label editor in place of the rows (Enter saves, an empty label removes it, Esc keeps
 * the old one); a saved label shows in the tree at once and goes to `onLabelChange`.
 */
import {
  type Component,
  Container,
  type Focusable,
  Input,
  Spacer,
  Text,
  TruncatedText,
  truncateToWidth,
} from "@mariozechner/pi-tui";
import type { SessionTreeNode } from "../../../session/types.js";
import type { TreeFilterMode } from "../../../settings/ui-settings.js";
import { DynamicBorder } from "./chrome.js";
import { isActionKey, keyHint, keyText } from "./keybindings.js";
import { currentTheme } from "./theme.js";
import { TreeList } from "./tree-list.js";

/** The label editor of one entry. */
class LabelEditor implements Component, Focusable {
  private readonly input = new Input();
  private _focused = false;

  constructor(
    private readonly onDone: (label: string | undefined | null) => void,
    current: string | undefined,
  ) {
    this.input.setValue(current ?? "");
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    this.input.focused = value;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = currentTheme();
    const fit = (s: string) => truncateToWidth(`  ${s}`, width);
    return [
      fit(t.fg("muted", "Label (empty to remove):")),
      ...this.input.render(Math.max(1, width - 2)).map(fit),
      fit(`${keyHint("tui.select.confirm", "save")}  ${keyHint("tui.select.cancel", "cancel")}`),
    ];
  }

  /** Enter answers the label (undefined: none), Esc null (unchanged). */
  handleInput(data: string): void {
    if (isActionKey(data, "tui.select.confirm")) this.onDone(this.input.getValue().trim() || undefined);
    else if (isActionKey(data, "tui.select.cancel")) this.onDone(null);
    else this.input.handleInput(data);
  }
}

/** The search line above the rows. */
class SearchLine implements Component {
  constructor(private readonly list: TreeList) {}
  invalidate(): void {}
  render(width: number): string[] {
    const t = currentTheme();
    const query = this.list.getSearchQuery();
    return [truncateToWidth(`  ${t.fg("muted", "Type to search:")}${query ? ` ${t.fg("accent", query)}` : ""}`, width)];
  }
}

/** The session tree picker (pi's `TreeSelectorComponent`); `getTreeList()` is the list of rows. */
export class TreeSelectorComponent extends Container implements Focusable {
  private readonly list: TreeList;
  private readonly body = new Container();
  private editor: LabelEditor | null = null;
  private _focused = false;

  constructor(
    tree: SessionTreeNode[],
    currentLeafId: string | null,
    terminalHeight: number,
    onSelect: (entryId: string) => void,
    onCancel: () => void,
    private readonly onLabelChange?: (entryId: string, label: string | undefined) => void,
    initialSelectedId?: string,
    initialFilterMode?: TreeFilterMode,
  ) {
    super();
    const t = currentTheme();
    this.list = new TreeList(
      tree,
      currentLeafId,
      Math.max(5, Math.floor(terminalHeight / 2)),
      initialSelectedId,
      initialFilterMode,
    );
    this.list.onSelect = onSelect;
    this.list.onCancel = onCancel;
    this.list.onLabelEdit = (id, label) => this.editLabel(id, label);
    this.body.addChild(this.list);
    const filters = ["default", "noTools", "userOnly", "labeledOnly", "all"]
      .map((f) => keyText(`app.tree.filter.${f}`))
      .join("/");
    const cycle = `${keyText("app.tree.filter.cycleForward")}/${keyText("app.tree.filter.cycleBackward")}`;
    const hints =
      `  ↑/↓: move. ←/→: page. ^←/^→ or Alt+←/Alt+→: fold/branch. ${keyText("app.tree.editLabel")}: label. ` +
      `${filters}: filters (${cycle} cycle). ${keyText("app.tree.toggleLabelTimestamp")}: label time`;
    for (const c of [
      new Spacer(1),
      new DynamicBorder(),
      new Text(t.bold("  Session Tree"), 1, 0),
      new TruncatedText(t.fg("muted", hints), 0, 0),
      new SearchLine(this.list),
      new DynamicBorder(),
      new Spacer(1),
      this.body,
      new Spacer(1),
      new DynamicBorder(),
    ]) {
      this.addChild(c);
    }
    // An empty session has nothing to move to: answer once the caller has shown the picker.
    if (tree.length === 0) queueMicrotask(onCancel);
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    if (this.editor) this.editor.focused = value;
  }

  private editLabel(entryId: string, current: string | undefined): void {
    const editor = new LabelEditor((label) => {
      if (label !== null) {
        this.list.updateNodeLabel(entryId, label);
        this.onLabelChange?.(entryId, label);
      }
      this.editor = null;
      this.body.clear();
      this.body.addChild(this.list);
    }, current);
    editor.focused = this._focused;
    this.editor = editor;
    this.body.clear();
    this.body.addChild(editor);
  }

  handleInput(data: string): void {
    if (this.editor) this.editor.handleInput(data);
    else this.list.handleInput(data);
  }

  /** The rows of the tree (pi's `TreeList`). */
  getTreeList(): TreeList {
    return this.list;
  }
}
