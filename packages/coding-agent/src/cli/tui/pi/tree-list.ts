/**
 * The rows of pi's session tree (pi's `TreeList`): every entry a filter keeps, drawn as a tree (tree-layout.ts),
 * the current branch marked `•`, labels in brackets, the highlighted row bold. Typing searches (every word must
 * appear in the entry's text, label or kind), Esc clears the search and then cancels; ↑/↓ move (wrapping), ←/→
 * page, Ctrl/Alt+←/→ fold a branch or jump between forks; Ctrl+D/T/U/L/A choose a filter (default, no tool
 * results, user messages, labeled, everything) and Ctrl+O cycles them; Shift+L edits the highlighted entry's
 * label, Shift+T shows when labels were set. Assistant messages with only tool calls are hidden in every filter
 * (unless they failed or are the current leaf).
 */
import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { SessionTreeNode } from "../../../session/types.js";
import type { TreeFilterMode } from "../../../settings/ui-settings.js";
import { isActionKey } from "./keybindings.js";
import { currentTheme } from "./theme.js";
import { collectToolCalls, entryText, hasText, labelTime, searchText } from "./tree-entry-text.js";
import { displayOrder, layoutVisible, type TreeLayout, type TreeRow } from "./tree-layout.js";
import type { AppKeybinding } from "./types.js";

const FILTERS: readonly TreeFilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];
const FILTER_TAG: Record<TreeFilterMode, string> = {
  default: "",
  "no-tools": " [no-tools]",
  "user-only": " [user]",
  "labeled-only": " [labeled]",
  all: " [all]",
};
/** The filter keys: each toggles its filter and the default. */
const FILTER_KEYS: ReadonlyArray<[AppKeybinding, TreeFilterMode]> = [
  ["app.tree.filter.noTools", "no-tools"],
  ["app.tree.filter.userOnly", "user-only"],
  ["app.tree.filter.labeledOnly", "labeled-only"],
  ["app.tree.filter.all", "all"],
];
/** C0 and C1 control characters and DEL: keys, not text to search for. */
const isControl = (ch: string) => {
  const code = ch.charCodeAt(0);
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
};
const BOOKKEEPING = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

export class TreeList implements Component {
  /** Enter: the highlighted entry's id. */
  onSelect?: (entryId: string) => void;
  /** Esc with an empty search. */
  onCancel?: () => void;
  /** Shift+L: the highlighted entry and its label (the selector opens the label editor). */
  onLabelEdit?: (entryId: string, currentLabel: string | undefined) => void;

  private readonly order: SessionTreeNode[];
  private readonly byId = new Map<string, SessionTreeNode>();
  private readonly toolCalls = new Map<string, { name: string; arguments: unknown }>();
  private readonly onBranch = new Set<string>();
  /** Each entry's search text, lowercased, built on the first search (a keystroke filters every entry). */
  private readonly searchTexts = new Map<string, string>();
  private filterMode: TreeFilterMode;
  private query = "";
  private readonly folded = new Set<string>();
  private showLabelTimes = false;
  private view: TreeLayout = { rows: [], parent: new Map(), children: new Map() };
  private index = 0;
  /** The entry last highlighted: kept through a filter that shows nothing, highlighted again after it. */
  private lastSelected: string | null = null;

  constructor(
    tree: SessionTreeNode[],
    private readonly currentLeafId: string | null,
    private readonly maxVisibleLines: number,
    initialSelectedId?: string,
    initialFilterMode?: TreeFilterMode,
  ) {
    this.filterMode = initialFilterMode ?? "default";
    this.order = displayOrder(tree, currentLeafId);
    for (const n of this.order) {
      this.byId.set(n.entry.id, n);
      collectToolCalls(n.entry, this.toolCalls);
    }
    for (let id = currentLeafId; id !== null && !this.onBranch.has(id); ) {
      this.onBranch.add(id);
      id = this.byId.get(id)?.entry.parentId ?? null;
    }
    this.refilter(initialSelectedId ?? currentLeafId);
  }

  /** The search typed so far. */
  getSearchQuery(): string {
    return this.query;
  }

  /** The highlighted entry's node (undefined when the filter leaves nothing). */
  getSelectedNode(): SessionTreeNode | undefined {
    return this.view.rows[this.index]?.node;
  }

  /**
   * Shows `label` on the entry (undefined removes it), set at `labelTimestamp` (default: now). The node given to
   * the constructor is updated, as pi's is; the list is filtered again (the labeled filter and search see it).
   */
  updateNodeLabel(entryId: string, label: string | undefined, labelTimestamp?: string): void {
    const node = this.byId.get(entryId);
    if (!node) return;
    node.label = label;
    node.labelTimestamp = label ? (labelTimestamp ?? new Date().toISOString()) : undefined;
    this.searchTexts.delete(entryId);
    this.refilter(this.getSelectedNode()?.entry.id ?? null);
  }

  private passes(node: SessionTreeNode, words: readonly string[]): boolean {
    const e = node.entry;
    const m = e.type === "message" ? (e.message as { role: string; content?: unknown; stopReason?: string }) : null;
    if (m?.role === "assistant" && e.id !== this.currentLeafId && !hasText(m.content)) {
      const failed = m.stopReason !== undefined && m.stopReason !== "stop" && m.stopReason !== "toolUse";
      if (!failed) return false;
    }
    const ok =
      this.filterMode === "user-only"
        ? m?.role === "user"
        : this.filterMode === "labeled-only"
          ? node.label !== undefined
          : this.filterMode === "all"
            ? true
            : !BOOKKEEPING.has(e.type) && !(this.filterMode === "no-tools" && m?.role === "toolResult");
    if (!ok || words.length === 0) return ok;
    let text = this.searchTexts.get(e.id);
    if (text === undefined) {
      text = searchText(node).toLowerCase();
      this.searchTexts.set(e.id, text);
    }
    return words.every((w) => text.includes(w));
  }

  /** Filters again, keeping `keep` highlighted, or its nearest visible ancestor, or the last row. */
  private refilter(keep: string | null): void {
    const words = this.query.toLowerCase().split(/\s+/).filter(Boolean);
    const visible = new Set<string>();
    const hidden = new Set<string>();
    for (const n of this.order) {
      const { id, parentId } = n.entry;
      // Under a folded entry everything is hidden.
      if (parentId !== null && (this.folded.has(parentId) || hidden.has(parentId))) hidden.add(id);
      else if (this.passes(n, words)) visible.add(id);
    }
    this.view = layoutVisible(this.order, visible);
    const at = new Map(this.view.rows.map((r, i) => [r.node.entry.id, i]));
    let id = keep;
    while (id !== null && !at.has(id)) id = this.byId.get(id)?.entry.parentId ?? null;
    this.index = id !== null ? (at.get(id) as number) : Math.max(0, this.view.rows.length - 1);
    this.lastSelected = this.getSelectedNode()?.entry.id ?? this.lastSelected;
  }

  /** Refilters after a change of filter, fold or search, keeping the highlighted entry where it can. */
  private update(change: () => void, unfold = true): void {
    const keep = this.getSelectedNode()?.entry.id ?? this.lastSelected;
    change();
    if (unfold) this.folded.clear();
    this.refilter(keep);
  }

  /** A fork's child (or a root) with visible children can be folded. */
  private foldable(id: string): boolean {
    if (!this.view.children.get(id)?.length) return false;
    const up = this.view.parent.get(id) ?? null;
    return up === null || (this.view.children.get(up)?.length ?? 0) > 1;
  }

  /** The row of the next fork segment start: down follows first children to a fork; up goes to the segment's start. */
  private segmentStart(direction: "up" | "down"): number {
    const at = new Map(this.view.rows.map((r, i) => [r.node.entry.id, i]));
    let id = this.getSelectedNode()?.entry.id;
    if (id === undefined) return this.index;
    if (direction === "down") {
      for (;;) {
        const kids = this.view.children.get(id) ?? [];
        if (kids.length !== 1) return at.get(kids[0] ?? id) as number;
        id = kids[0] as string;
      }
    }
    for (;;) {
      const up: string | null = this.view.parent.get(id) ?? null;
      if (up === null) return at.get(id) as number;
      const here = at.get(id) as number;
      if ((this.view.children.get(up)?.length ?? 0) > 1 && here < this.index) return here;
      id = up;
    }
  }

  handleInput(data: string): void {
    const n = this.view.rows.length;
    const key = (action: Parameters<typeof isActionKey>[1]) => isActionKey(data, action);
    const selected = this.getSelectedNode();
    if (key("tui.select.up")) this.index = n === 0 ? 0 : (this.index - 1 + n) % n;
    else if (key("tui.select.down")) this.index = n === 0 ? 0 : (this.index + 1) % n;
    else if (key("app.tree.foldOrUp")) {
      const id = selected?.entry.id;
      if (id && this.foldable(id) && !this.folded.has(id)) this.update(() => this.folded.add(id), false);
      else this.index = this.segmentStart("up");
    } else if (key("app.tree.unfoldOrDown")) {
      const id = selected?.entry.id;
      if (id && this.folded.has(id)) this.update(() => this.folded.delete(id), false);
      else this.index = this.segmentStart("down");
    } else if (key("tui.editor.cursorLeft") || key("tui.select.pageUp")) {
      this.index = Math.max(0, this.index - this.maxVisibleLines);
    } else if (key("tui.editor.cursorRight") || key("tui.select.pageDown")) {
      this.index = Math.max(0, Math.min(n - 1, this.index + this.maxVisibleLines));
    } else if (key("tui.select.confirm")) {
      if (selected) this.onSelect?.(selected.entry.id);
    } else if (key("tui.select.cancel")) {
      if (this.query) this.update(() => (this.query = ""));
      else this.onCancel?.();
    } else if (key("app.tree.filter.default")) this.update(() => (this.filterMode = "default"));
    else if (key("app.tree.filter.cycleBackward") || key("app.tree.filter.cycleForward")) {
      const step = key("app.tree.filter.cycleForward") ? 1 : FILTERS.length - 1;
      const next = FILTERS[(FILTERS.indexOf(this.filterMode) + step) % FILTERS.length] as TreeFilterMode;
      this.update(() => (this.filterMode = next));
    } else if (FILTER_KEYS.some(([action]) => key(action))) {
      const mode = (FILTER_KEYS.find(([action]) => key(action)) as [AppKeybinding, TreeFilterMode])[1];
      this.update(() => (this.filterMode = this.filterMode === mode ? "default" : mode));
    } else if (key("tui.editor.deleteCharBackward")) {
      if (this.query) this.update(() => (this.query = this.query.slice(0, -1)));
    } else if (key("app.tree.editLabel")) {
      if (selected) this.onLabelEdit?.(selected.entry.id, selected.label);
    } else if (key("app.tree.toggleLabelTimestamp")) this.showLabelTimes = !this.showLabelTimes;
    else if (data.length > 0 && ![...data].some(isControl)) {
      this.update(() => (this.query += data));
    }
  }

  invalidate(): void {}

  private tags(): string {
    return FILTER_TAG[this.filterMode] + (this.showLabelTimes ? " [+label time]" : "");
  }

  private prefix(row: TreeRow): string {
    let out = "";
    for (let col = 0; col < row.depth; col++) {
      const gutter = row.gutters.find((g) => g.column === col);
      if (gutter) out += gutter.line ? "│  " : "   ";
      else if (row.connector && col === row.depth - 1) {
        const id = row.node.entry.id;
        const fold = this.folded.has(id) ? "⊞" : this.foldable(id) ? "⊟" : "─";
        out += `${row.connector === "last" ? "└" : "├"}${fold} `;
      } else out += "   ";
    }
    return out;
  }

  render(width: number): string[] {
    const t = currentTheme();
    const rows = this.view.rows;
    const fit = (s: string) => truncateToWidth(s, width);
    if (rows.length === 0)
      return [fit(t.fg("muted", "  No entries found")), fit(t.fg("muted", `  (0/0)${this.tags()}`))];
    const start = Math.max(
      0,
      Math.min(this.index - Math.floor(this.maxVisibleLines / 2), rows.length - this.maxVisibleLines),
    );
    const lines: string[] = [];
    for (let i = start; i < Math.min(rows.length, start + this.maxVisibleLines); i++) {
      const row = rows[i] as TreeRow;
      const node = row.node;
      const selected = i === this.index;
      const foldedRoot = this.folded.has(node.entry.id) && !row.connector;
      const text = entryText(node, this.toolCalls, t);
      const line =
        (selected ? t.fg("accent", "› ") : "  ") +
        t.fg("dim", this.prefix(row)) +
        (foldedRoot ? t.fg("accent", "⊞ ") : "") +
        (this.onBranch.has(node.entry.id) ? t.fg("accent", "• ") : "") +
        (node.label ? t.fg("warning", `[${node.label}] `) : "") +
        (this.showLabelTimes && node.label && node.labelTimestamp
          ? t.fg("muted", `${labelTime(node.labelTimestamp)} `)
          : "") +
        (selected ? t.bold(text) : text);
      lines.push(fit(selected ? t.bg("selectedBg", line) : line));
    }
    lines.push(fit(t.fg("muted", `  (${this.index + 1}/${rows.length})${this.tags()}`)));
    return lines;
  }
}
