/**
 * pi's `/resume` picker: a header (scope, name filter, sort order, key hints or a status line) over the session
 * list (session-list.ts). It lists this folder's sessions first (Tab: every folder's, loaded once, with progress),
 * cycles the order (threaded → recent → relevance), renames in place when given `renameSession`, and deletes a
 * confirmed session: to the trash when a `trash` command exists, else for good; never one another live process
 * writes (its lock says so) and never the current one.
 */
import { execFile } from "node:child_process";
import { access, unlink } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type Component,
  Container,
  type Focusable,
  Input,
  Spacer,
  Text,
  truncateToWidth,
  visibleWidth,
} from "@mariozechner/pi-tui";
import { lockPathOf } from "../../../session/lock.js";
import { holdsOwnerLock, releaseOwnerLock, tryAcquireOwnerLock } from "../../../session/owner-lock.js";
import type { SessionInfo } from "../../../session/types.js";
import { DynamicBorder } from "./chrome.js";
import { isActionKey, type KeybindingsManager, keyHint, keyText } from "./keybindings.js";
import { SessionList } from "./session-list.js";
import { currentTheme } from "./theme.js";
import type { SessionNameFilter, SessionSortMode } from "./types.js";

type Scope = "current" | "all";
type SessionsLoader = (onProgress?: (loaded: number, total: number) => void) => Promise<SessionInfo[]>;
type Status = { error: boolean; text: string };

const SORT_LABEL: Record<SessionSortMode, string> = { threaded: "Threaded", recent: "Recent", relevance: "Fuzzy" };
const NEXT_SORT: Record<SessionSortMode, SessionSortMode> = {
  threaded: "recent",
  recent: "relevance",
  relevance: "threaded",
};

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Removes a session file unless a live process writes it: `trash` first (recoverable), else unlink. */
async function deleteSessionFile(path: string): Promise<{ trashed: boolean } | { error: string }> {
  // An absolute path: never read as an option of `trash`, and the lock's name as the writers take it.
  const file = resolve(path);
  const lock = lockPathOf(file);
  if (holdsOwnerLock(lock)) return { error: "the session is open in this process" };
  const taken = tryAcquireOwnerLock(lock);
  if (!taken.acquired) return { error: `the session is being written by pid ${taken.owner.pid}` };
  try {
    const trashed = await new Promise<boolean>((done) => {
      execFile("trash", [file], (err) => done(!err));
    });
    // A `trash` that failed after moving the file still moved it.
    if (trashed || !(await exists(file))) return { trashed: true };
    await unlink(file);
    return { trashed: false };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    releaseOwnerLock(lock);
  }
}

/** The picker's first three lines: title and state, then the key hints or a passing status message. */
class Header implements Component {
  scope: Scope = "current";
  sortMode: SessionSortMode = "threaded";
  nameFilter: SessionNameFilter = "all";
  loading: { loaded: number; total: number } | boolean = false;
  showPath = false;
  deleting = false;
  showRenameHint = false;
  private status: Status | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(private requestRender: () => void) {}

  /** Shows `status` (null clears it), for `hideAfterMs` when given. */
  setStatus(status: Status | null, hideAfterMs?: number): void {
    clearTimeout(this.timer);
    this.status = status;
    if (!status || !hideAfterMs) return;
    this.timer = setTimeout(() => {
      this.status = null;
      this.requestRender();
    }, hideAfterMs);
    this.timer.unref();
  }

  invalidate(): void {}

  render(width: number): string[] {
    const t = currentTheme();
    const title = t.bold(this.scope === "current" ? "Resume Session (Current Folder)" : "Resume Session (All)");
    const progress = typeof this.loading === "object" ? `${this.loading.loaded}/${this.loading.total}` : "...";
    const scope = this.loading
      ? t.fg("muted", "○ Current Folder | ") + t.fg("accent", `Loading ${progress}`)
      : this.scope === "current"
        ? t.fg("accent", "◉ Current Folder") + t.fg("muted", " | ○ All")
        : t.fg("muted", "○ Current Folder | ") + t.fg("accent", "◉ All");
    const state = [
      scope,
      t.fg("muted", "Name: ") + t.fg("accent", this.nameFilter === "all" ? "All" : "Named"),
      t.fg("muted", "Sort: ") + t.fg("accent", SORT_LABEL[this.sortMode]),
    ].join("  ");
    const right = truncateToWidth(state, width, "");
    const left = truncateToWidth(title, Math.max(0, width - visibleWidth(right) - 1), "");
    const first = left + " ".repeat(Math.max(0, width - visibleWidth(left) - visibleWidth(right))) + right;
    if (this.deleting) {
      const ask = `Delete session? ${keyHint("tui.select.confirm", "confirm")} · ${keyHint("tui.select.cancel", "cancel")}`;
      return [first, t.fg("error", truncateToWidth(ask, width, "…")), ""];
    }
    if (this.status) {
      return [first, t.fg(this.status.error ? "error" : "accent", truncateToWidth(this.status.text, width, "…")), ""];
    }
    const sep = t.fg("muted", " · ");
    const hints = [
      keyHint("app.session.toggleSort", "sort"),
      keyHint("app.session.toggleNamedFilter", "named"),
      keyHint("app.session.delete", "delete"),
      keyHint("app.session.togglePath", `path ${this.showPath ? "(on)" : "(off)"}`),
      ...(this.showRenameHint ? [keyHint("app.session.rename", "rename")] : []),
    ];
    const search = keyHint("tui.input.tab", "scope") + sep + t.fg("muted", 're:<pattern> regex · "phrase" exact');
    return [first, truncateToWidth(search, width, "…"), truncateToWidth(hints.join(sep), width, "…")];
  }
}

/** The session picker (pi's `SessionSelectorComponent`); `getSessionList()` is the list of rows. */
export class SessionSelectorComponent extends Container implements Focusable {
  private readonly list: SessionList;
  private readonly header: Header;
  private readonly keybindings: KeybindingsManager | undefined;
  private scope: Scope = "current";
  private loaded: Record<Scope, SessionInfo[] | null> = { current: null, all: null };
  private loading: Record<Scope, boolean> = { current: false, all: false };
  private loads: Record<Scope, number> = { current: 0, all: 0 };
  private readonly renameInput = new Input();
  private renaming: string | null = null;
  private _focused = false;

  constructor(
    private readonly currentSessionsLoader: SessionsLoader,
    private readonly allSessionsLoader: SessionsLoader,
    onSelect: (sessionPath: string) => void,
    private readonly onCancel: () => void,
    onExit: () => void,
    private readonly requestRender: () => void,
    private readonly options?: {
      renameSession?: (sessionPath: string, currentName: string | undefined) => Promise<void>;
      showRenameHint?: boolean;
      keybindings?: KeybindingsManager;
    },
    currentSessionFilePath?: string,
  ) {
    super();
    this.keybindings = options?.keybindings;
    this.header = new Header(requestRender);
    this.header.showRenameHint = options?.showRenameHint ?? !!options?.renameSession;
    const list = new SessionList([], false, "threaded", "all", this.keybindings, currentSessionFilePath);
    this.list = list;
    // Leaving the picker clears a pending status timer.
    const leave = (then: () => void) => () => {
      this.header.setStatus(null);
      then();
    };
    list.onSelect = (path) => leave(() => onSelect(path))();
    list.onCancel = leave(onCancel);
    list.onExit = leave(onExit);
    list.onToggleScope = () => this.toggleScope();
    list.onToggleSort = () => this.setSort(NEXT_SORT[this.header.sortMode]);
    list.onToggleNameFilter = () => {
      this.header.nameFilter = this.header.nameFilter === "all" ? "named" : "all";
      list.setNameFilter(this.header.nameFilter);
      requestRender();
    };
    list.onTogglePath = (show) => {
      this.header.showPath = show;
      requestRender();
    };
    list.onDeleteConfirmationChange = (path) => {
      this.header.deleting = path !== null;
      requestRender();
    };
    list.onError = (message) => {
      this.header.setStatus({ error: true, text: message }, 3000);
      requestRender();
    };
    list.onDeleteSession = (path) => this.delete(path);
    list.onRenameSession = (path) => {
      if (!options?.renameSession || this.loading[this.scope]) return;
      this.startRename(path, this.loaded[this.scope]?.find((s) => s.path === path)?.name);
    };
    this.renameInput.onSubmit = (value) => void this.finishRename(value);
    this.layout(list, true);
    void this.load("current", true);
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    this.list.focused = value && this.renaming === null;
    this.renameInput.focused = value && this.renaming !== null;
  }

  private layout(body: Component, withHeader: boolean): void {
    const border = () => new DynamicBorder((s) => currentTheme().fg("accent", s));
    this.clear();
    for (const c of [new Spacer(1), border(), new Spacer(1)]) this.addChild(c);
    if (withHeader) {
      this.addChild(this.header);
      this.addChild(new Spacer(1));
    }
    this.addChild(body);
    this.addChild(new Spacer(1));
    this.addChild(border());
  }

  private async load(scope: Scope, initial: boolean): Promise<void> {
    this.loading[scope] = true;
    // Only the latest load of a scope shows, and only while that scope is shown.
    const seq = ++this.loads[scope];
    const stale = () => scope !== this.scope || seq !== this.loads[scope];
    this.header.loading = true;
    this.requestRender();
    try {
      const sessions = await (scope === "current" ? this.currentSessionsLoader : this.allSessionsLoader)(
        (loaded, total) => {
          if (stale()) return;
          this.header.loading = { loaded, total };
          this.requestRender();
        },
      );
      this.loaded[scope] = sessions;
      this.loading[scope] = false;
      if (stale()) return;
      this.header.loading = false;
      this.list.setSessions(sessions, scope === "all");
      this.requestRender();
      // Nothing anywhere: nothing to pick.
      if (scope === "all" && sessions.length === 0 && !this.loaded.current?.length) this.onCancel();
    } catch (err) {
      this.loading[scope] = false;
      if (stale()) return;
      this.header.loading = false;
      const why = err instanceof Error ? err.message : String(err);
      this.header.setStatus({ error: true, text: `Failed to load sessions: ${why}` }, 4000);
      if (initial) this.list.setSessions([], scope === "all");
      this.requestRender();
    }
  }

  private toggleScope(): void {
    this.scope = this.scope === "current" ? "all" : "current";
    this.header.scope = this.scope;
    const cached = this.loaded[this.scope];
    if (cached) {
      this.header.loading = this.loading[this.scope];
      this.list.setSessions(cached, this.scope === "all");
      this.requestRender();
    } else if (this.scope === "current") {
      this.header.loading = this.loading.current;
      this.list.setSessions([], false);
      this.requestRender();
    } else if (!this.loading.all) void this.load("all", false);
  }

  private setSort(mode: SessionSortMode): void {
    this.header.sortMode = mode;
    this.list.setSortMode(mode);
    this.requestRender();
  }

  private async delete(path: string): Promise<void> {
    const result = await deleteSessionFile(path);
    if ("error" in result) {
      this.header.setStatus({ error: true, text: `Failed to delete: ${result.error}` }, 3000);
      this.requestRender();
      return;
    }
    for (const scope of ["current", "all"] as const) {
      this.loaded[scope] = this.loaded[scope]?.filter((s) => s.path !== path) ?? null;
    }
    this.list.setSessions(this.loaded[this.scope] ?? [], this.scope === "all");
    this.header.setStatus({ error: false, text: result.trashed ? "Session moved to trash" : "Session deleted" }, 2000);
    await this.load(this.scope, false);
  }

  private startRename(path: string, name: string | undefined): void {
    this.renaming = path;
    this.renameInput.setValue(name ?? "");
    const t = currentTheme();
    const panel = new Container();
    panel.addChild(new Text(t.bold("Rename Session"), 1, 0));
    panel.addChild(new Spacer(1));
    panel.addChild(this.renameInput);
    panel.addChild(new Spacer(1));
    const keys = `${keyText("tui.select.confirm")} to save · ${keyText("tui.select.cancel")} to cancel`;
    panel.addChild(new Text(t.fg("muted", keys), 1, 0));
    this.layout(panel, false);
    this.focused = this._focused;
    this.requestRender();
  }

  private stopRename(): void {
    this.renaming = null;
    this.layout(this.list, true);
    this.focused = this._focused;
    this.requestRender();
  }

  private async finishRename(value: string): Promise<void> {
    const name = value.trim();
    const path = this.renaming;
    const rename = this.options?.renameSession;
    // An empty name changes nothing and keeps the prompt open.
    if (!name) return;
    if (!path || !rename) {
      this.stopRename();
      return;
    }
    try {
      await rename(path, name);
      await this.load(this.scope, false);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.header.setStatus({ error: true, text: `Failed to rename: ${why}` }, 3000);
    } finally {
      this.stopRename();
    }
  }

  handleInput(data: string): void {
    if (this.renaming === null) this.list.handleInput(data);
    else if (isActionKey(data, "tui.select.cancel", this.keybindings)) this.stopRename();
    else this.renameInput.handleInput(data);
  }

  /** The rows under the header (pi's `SessionList`). */
  getSessionList(): SessionList {
    return this.list;
  }
}
