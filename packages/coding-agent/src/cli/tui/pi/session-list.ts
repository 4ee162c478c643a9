/**
 * The list of pi's session picker (pi's `SessionList`): a search line, then one row per session (its name or
 * first message, message count and age; the folder when listing every folder, the file with the path shown), the
 * highlighted row's path being what Enter answers. "threaded" shows forks under the session they came from; a
 * query (session-search.ts) filters and orders. Ctrl+D (or Ctrl+Backspace on an empty query) asks to delete the
 * highlighted session, Enter confirms, Esc keeps it; the current session is never offered for deletion.
 */
import { resolve } from "node:path";
import { type Component, type Focusable, Input, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import type { SessionInfo } from "../../../session/types.js";
import { formatAge } from "../pickers.js";
import { isActionKey, type KeybindingsManager, keyText } from "./keybindings.js";
import { searchSessions } from "./session-search.js";
import { currentTheme } from "./theme.js";
import type { SessionNameFilter, SessionSortMode } from "./types.js";

/** A listed session and the tree drawing before it ("" for a top-level one). */
interface Row {
  session: SessionInfo;
  prefix: string;
}

const samePath = (a: string | undefined) => (a ? resolve(a) : undefined);

/** Sessions as a forest by `parentSessionPath` (a parent not listed makes a root), newest first at each level. */
function threadedRows(sessions: readonly SessionInfo[]): Row[] {
  const children = new Map<string, SessionInfo[]>();
  const listed = new Set(sessions.map((s) => resolve(s.path)));
  const roots: SessionInfo[] = [];
  for (const s of sessions) {
    const parent = samePath(s.parentSessionPath);
    if (parent && listed.has(parent) && parent !== resolve(s.path)) {
      const list = children.get(parent) ?? [];
      list.push(s);
      children.set(parent, list);
    } else roots.push(s);
  }
  const newestFirst = (list: SessionInfo[]) => list.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  const rows: Row[] = [];
  const seen = new Set<string>();
  // `lines`: the drawing of the ancestors' columns; a root's children start at the first column.
  const walk = (s: SessionInfo, lines: string, branch: string, isRoot: boolean, isLast: boolean) => {
    const key = resolve(s.path);
    if (seen.has(key)) return;
    seen.add(key);
    rows.push({ session: s, prefix: isRoot ? "" : lines + branch });
    const kids = newestFirst(children.get(key) ?? []);
    const below = isRoot ? "" : lines + (isLast ? "   " : "│  ");
    kids.forEach((k, i) => {
      const last = i === kids.length - 1;
      walk(k, below, last ? "└─ " : "├─ ", false, last);
    });
  };
  for (const r of newestFirst(roots)) walk(r, "", "", true, true);
  // Sessions whose parents form a cycle have no root: each still gets a row.
  for (const s of newestFirst([...sessions])) walk(s, "", "", true, true);
  return rows;
}

/** Line rows, one per session: pi's `SessionList`, a pi-tui component. */
export class SessionList implements Component, Focusable {
  /** Enter on a row: the session's path. */
  onSelect?: (sessionPath: string) => void;
  /** Esc. */
  onCancel?: () => void;
  /** Kept for pi's shape: pi's list never calls it either (Ctrl+D deletes). */
  onExit: () => void = () => {};
  /** Tab: the picker switches between this folder's sessions and every folder's. */
  onToggleScope?: () => void;
  /** The sort key (Ctrl+S): the picker picks the next mode and calls `setSortMode`. */
  onToggleSort?: () => void;
  /** The named-only key (Ctrl+N): the picker calls `setNameFilter`. */
  onToggleNameFilter?: () => void;
  /** Ctrl+P: whether the file paths are shown now. */
  onTogglePath?: (showPath: boolean) => void;
  /** A deletion was asked (the path) or answered (null). */
  onDeleteConfirmationChange?: (path: string | null) => void;
  /** A confirmed deletion: the picker deletes the file and lists again. */
  onDeleteSession?: (sessionPath: string) => Promise<void>;
  /** The rename key (Ctrl+R) on a row. */
  onRenameSession?: (sessionPath: string) => void;
  /** Something the user asked cannot be done (deleting the current session). */
  onError?: (message: string) => void;

  private sessions: readonly SessionInfo[];
  private rows: Row[] = [];
  private index = 0;
  private readonly search = new Input();
  private showPath = false;
  private deleting: string | null = null;
  private readonly current: string | undefined;
  private readonly maxVisible = 10;
  private _focused = false;

  constructor(
    sessions: SessionInfo[],
    private showCwd: boolean,
    private sortMode: SessionSortMode,
    private nameFilter: SessionNameFilter,
    private readonly keybindings?: KeybindingsManager,
    currentSessionFilePath?: string,
  ) {
    this.sessions = sessions;
    this.current = samePath(currentSessionFilePath);
    this.refilter();
  }

  get focused(): boolean {
    return this._focused;
  }
  /** Focus goes to the search line (the terminal's cursor sits there for input methods). */
  set focused(value: boolean) {
    this._focused = value;
    this.search.focused = value;
  }

  /** The path of the highlighted session (undefined when nothing is listed). */
  getSelectedSessionPath(): string | undefined {
    return this.rows[this.index]?.session.path;
  }

  setSortMode(sortMode: SessionSortMode): void {
    this.sortMode = sortMode;
    this.refilter();
  }

  setNameFilter(nameFilter: SessionNameFilter): void {
    this.nameFilter = nameFilter;
    this.refilter();
  }

  /** Lists other sessions (another scope, or after a deletion); the query stays. */
  setSessions(sessions: SessionInfo[], showCwd: boolean): void {
    this.sessions = sessions;
    this.showCwd = showCwd;
    this.refilter();
  }

  private refilter(): void {
    const query = this.search.getValue();
    if (this.sortMode === "threaded" && !query.trim()) {
      const named = this.nameFilter === "named" ? searchSessions(this.sessions, "", "recent", "named") : this.sessions;
      this.rows = threadedRows(named);
    } else {
      this.rows = searchSessions(this.sessions, query, this.sortMode, this.nameFilter).map((session) => ({
        session,
        prefix: "",
      }));
    }
    this.index = Math.max(0, Math.min(this.index, this.rows.length - 1));
  }

  private isCurrent(path: string): boolean {
    return this.current !== undefined && resolve(path) === this.current;
  }

  private askDelete(): void {
    const row = this.rows[this.index];
    if (!row) return;
    if (this.isCurrent(row.session.path)) {
      this.onError?.("Cannot delete the currently active session");
      return;
    }
    this.setDeleting(row.session.path);
  }

  private setDeleting(path: string | null): void {
    this.deleting = path;
    this.onDeleteConfirmationChange?.(path);
  }

  private key(data: string, action: Parameters<typeof isActionKey>[1]): boolean {
    return isActionKey(data, action, this.keybindings);
  }

  handleInput(data: string): void {
    if (this.deleting !== null) {
      // While asking, only Enter and Esc mean something.
      const path = this.deleting;
      if (this.key(data, "tui.select.confirm")) {
        this.setDeleting(null);
        void this.onDeleteSession?.(path);
      } else if (this.key(data, "tui.select.cancel")) this.setDeleting(null);
      return;
    }
    const row = this.rows[this.index];
    if (this.key(data, "tui.input.tab")) this.onToggleScope?.();
    else if (this.key(data, "app.session.toggleSort")) this.onToggleSort?.();
    else if (this.key(data, "app.session.toggleNamedFilter")) this.onToggleNameFilter?.();
    else if (this.key(data, "app.session.togglePath")) {
      this.showPath = !this.showPath;
      this.onTogglePath?.(this.showPath);
    } else if (this.key(data, "app.session.delete")) this.askDelete();
    else if (this.key(data, "app.session.rename")) {
      if (row) this.onRenameSession?.(row.session.path);
    } else if (this.key(data, "app.session.deleteNoninvasive") && !this.search.getValue()) this.askDelete();
    else if (this.key(data, "tui.select.up")) this.index = Math.max(0, this.index - 1);
    else if (this.key(data, "tui.select.down")) this.index = Math.min(this.rows.length - 1, this.index + 1);
    else if (this.key(data, "tui.select.pageUp")) this.index = Math.max(0, this.index - this.maxVisible);
    else if (this.key(data, "tui.select.pageDown"))
      this.index = Math.min(this.rows.length - 1, this.index + this.maxVisible);
    else if (this.key(data, "tui.select.confirm")) {
      if (row) this.onSelect?.(row.session.path);
    } else if (this.key(data, "tui.select.cancel")) this.onCancel?.();
    else {
      this.search.handleInput(data);
      this.refilter();
    }
    this.index = Math.max(0, this.index);
  }

  invalidate(): void {
    this.search.invalidate();
  }

  private emptyText(): string {
    if (this.nameFilter === "named") {
      const key = keyText("app.session.toggleNamedFilter");
      return this.showCwd
        ? `  No named sessions found. Press ${key} to show all.`
        : `  No named sessions in current folder. Press ${key} to show all, or Tab to view all.`;
    }
    return this.showCwd ? "  No sessions found" : "  No sessions in current folder. Press Tab to view all.";
  }

  render(width: number): string[] {
    const t = currentTheme();
    const lines = [...this.search.render(width), ""];
    if (this.rows.length === 0) {
      lines.push(t.fg("muted", truncateToWidth(this.emptyText(), width, "…")));
      return lines;
    }
    const start = Math.max(
      0,
      Math.min(this.index - Math.floor(this.maxVisible / 2), this.rows.length - this.maxVisible),
    );
    const end = Math.min(this.rows.length, start + this.maxVisible);
    for (let i = start; i < end; i++) lines.push(this.renderRow(this.rows[i] as Row, i === this.index, width));
    if (start > 0 || end < this.rows.length) {
      lines.push(t.fg("muted", truncateToWidth(`  (${this.index + 1}/${this.rows.length})`, width, "")));
    }
    return lines;
  }

  private renderRow(row: Row, selected: boolean, width: number): string {
    const t = currentTheme();
    const s = row.session;
    const home = process.env.HOME;
    const short = (p: string) => (home && p.startsWith(home) ? `~${p.slice(home.length)}` : p);
    const right = [
      this.showPath ? short(s.path) : "",
      this.showCwd && s.cwd ? short(s.cwd) : "",
      `${s.messageCount} ${formatAge(s.modified)}`,
    ]
      .filter(Boolean)
      .join(" ");
    // A row shows one line: control characters (newlines) become spaces; no title fills 500 columns.
    const title = [...(s.name ?? s.firstMessage).slice(0, 500)]
      .map((ch) => (ch < " " || ch === "\x7f" ? " " : ch))
      .join("")
      .trim();
    const room = Math.max(10, width - 2 - visibleWidth(row.prefix) - visibleWidth(right) - 2);
    let text = truncateToWidth(title, room, "…");
    const deleting = s.path === this.deleting;
    const role = deleting ? "error" : this.isCurrent(s.path) ? "accent" : s.name ? "warning" : undefined;
    if (role) text = t.fg(role, text);
    if (selected) text = t.bold(text);
    const left = (selected ? t.fg("accent", "› ") : "  ") + t.fg("dim", row.prefix) + text;
    const gap = " ".repeat(Math.max(1, width - visibleWidth(left) - visibleWidth(right)));
    const line = left + gap + t.fg(deleting ? "error" : "dim", right);
    return truncateToWidth(selected ? t.bg("selectedBg", line) : line, width);
  }
}
