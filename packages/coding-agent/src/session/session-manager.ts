/**
 * `SessionManager`: one conversation as an append-only JSONL tree (format v3, compatible with pi 0.73).
 *
 * Contract:
 * - Every append is one whole-line `write` on an append-mode descriptor, issued before the append method returns;
 *   `sync()` starts an fsync off the event loop (AgentSession calls it at each turn end), so a crash after a completed
 *   turn loses nothing once it is done; `close()` fsyncs what was written after it.
 * - The file appears with the first entry (header and entry in one write), never empty.
 * - A persisted manager holds a share of its file's writer until `close()` (`writer-registry.ts`): managers of one
 *   file in one process share it; another process that wants to write gets `SessionLockedError` (`lock.ts`).
 *   Read-only opens take nothing.
 * - Reading streams the file (see `reader.ts`); a torn last line is skipped with a warning and fenced off by a
 *   newline before the next append.
 */
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, TextContent } from "@tiller/ai";
import { getTillerHome } from "../home.js";
import { buildTree } from "./context.js";
import { EntryIndex } from "./entry-index.js";
import { newEntryId } from "./ids.js";
import { type ListOptions, listAllSessions, listSessions } from "./list.js";
import { asLocation, fileNameFor, newSessionHeader, type SessionLocationOptions, sessionDirFor } from "./location.js";
import { migrate } from "./migrate.js";
import { forgetSessionFile, type ParsedSessionFile, readSessionFile, rememberSessionFile } from "./reader.js";
import {
  CURRENT_SESSION_VERSION,
  type FileEntry,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type SessionInfo,
  type SessionTreeNode,
  type SessionWriterHandle,
} from "./types.js";
import { acquireSessionWriter } from "./writer-registry.js";

export interface OpenSessionOptions extends SessionLocationOptions {
  /** Use this cwd instead of the header's. */
  cwdOverride?: string;
  /** Read without taking the writer lock; appends then throw. */
  readOnly?: boolean;
  /** Called once per skipped line (default: `console.warn`). */
  onWarning?: (message: string) => void;
}

type EntryInput = SessionEntry extends infer E
  ? E extends SessionEntry
    ? Omit<E, "id" | "parentId" | "timestamp">
    : never
  : never;

export class SessionManager {
  private header: SessionHeader;
  private entries: SessionEntry[] = [];
  /** By id, labels, and whether the entries are one chain (built while the file is read). */
  private index = new EntryIndex();
  /** Entries of a branched session held back until its file is first written (see `createBranchedSession`). */
  private unwritten: SessionEntry[] = [];
  private leafId: string | null = null;
  private file: string | undefined;
  /** This manager's share of the file's writer (undefined: read-only, in memory, or closed). */
  private writer: SessionWriterHandle | undefined;
  private dirty = false;
  private readonly warnings: string[] = [];

  private constructor(
    private cwd: string,
    private readonly sessionDir: string | undefined,
    private readonly readOnly: boolean,
    private readonly onWarning: (message: string) => void,
  ) {
    this.header = { type: "session", version: CURRENT_SESSION_VERSION, id: "", timestamp: "", cwd };
  }

  // ---- constructors ----

  /** A new session of `cwd`, stored in its per-cwd directory (or `sessionDir`). The file appears on first append. */
  static create(cwd: string, location?: string | SessionLocationOptions): SessionManager {
    const loc = asLocation(location);
    const sm = new SessionManager(resolve(cwd), sessionDirFor(resolve(cwd), loc), false, defaultWarn);
    sm.newSession();
    return sm;
  }

  /** Opens an existing session file for appending (or read-only). */
  static open(path: string, options: string | OpenSessionOptions = {}): SessionManager {
    const opts: OpenSessionOptions = typeof options === "string" ? { sessionDir: options } : options;
    const file = resolve(path);
    const index = new EntryIndex();
    const parsed = readSessionFile(file, index.addFrom);
    const cwd = opts.cwdOverride ?? parsed.header.cwd ?? process.cwd();
    const sm = new SessionManager(
      cwd,
      opts.sessionDir ? resolve(opts.sessionDir) : dirname(file),
      opts.readOnly === true,
      opts.onWarning ?? defaultWarn,
    );
    if (!sm.readOnly) sm.writer = acquireSessionWriter(file);
    try {
      sm.load(file, parsed, index);
    } catch (err) {
      sm.close();
      throw err;
    }
    return sm;
  }

  /** The most recently modified session of `cwd`, or a new one. */
  static continueRecent(cwd: string, location?: string | SessionLocationOptions): SessionManager {
    const loc = asLocation(location);
    const dir = sessionDirFor(resolve(cwd), loc);
    const recent = listSessions(dir)[0];
    return recent
      ? SessionManager.open(recent.path, { sessionDir: dir })
      : SessionManager.create(cwd, { sessionDir: dir });
  }

  /** A session that is never written to disk. */
  static inMemory(cwd: string = process.cwd()): SessionManager {
    const sm = new SessionManager(resolve(cwd), undefined, false, defaultWarn);
    sm.newSession();
    return sm;
  }

  /** Copies the whole history of `sourcePath` into a new session of `targetCwd` (header `parentSession` set). */
  static forkFrom(sourcePath: string, targetCwd: string, location?: string | SessionLocationOptions): SessionManager {
    const source = SessionManager.open(sourcePath, { readOnly: true });
    const sm = SessionManager.create(targetCwd, location);
    sm.newSession({ parentSession: resolve(sourcePath) });
    sm.adoptEntries(source.getEntries(), source.getLeafId());
    return sm;
  }

  /** Sessions of `cwd`, newest first, read from each file's head and tail only. */
  static list(cwd: string, location?: string | (SessionLocationOptions & ListOptions)): SessionInfo[] {
    const loc = asLocation(location);
    return listSessions(sessionDirFor(resolve(cwd), loc), typeof location === "object" ? location : undefined);
  }

  /** Sessions of every working directory under a home, newest first. */
  static listAll(home: string = getTillerHome(), options?: ListOptions): SessionInfo[] {
    return listAllSessions(join(home, "sessions"), options);
  }

  // ---- lifecycle ----

  /** Starts a fresh session (new id, new file in the same directory). Returns the new file path. */
  newSession(options: { id?: string; parentSession?: string } = {}): string | undefined {
    this.closeFile();
    this.header = newSessionHeader(this.cwd, options);
    this.entries = [];
    this.unwritten = [];
    this.reindex();
    if (this.sessionDir) {
      this.file = join(this.sessionDir, fileNameFor(this.header));
      this.writer = acquireSessionWriter(this.file);
    }
    return this.file;
  }

  /**
   * Switches to the session at `path` (pi's resume): an existing file is read and appended to, a missing one starts
   * a fresh session written there on first append. An unreadable or locked file throws before anything changes.
   */
  setSessionFile(path: string): void {
    const file = resolve(path);
    const index = new EntryIndex();
    const parsed = existsSync(file) ? readSessionFile(file, index.addFrom) : undefined;
    // Taken before this manager lets its current file go, so switching to the file it holds keeps the lock.
    const writer = this.readOnly || !this.sessionDir ? undefined : acquireSessionWriter(file);
    this.closeFile();
    this.writer = writer;
    this.unwritten = [];
    if (parsed) this.load(file, parsed, index);
    else {
      this.file = file;
      this.header = newSessionHeader(this.cwd);
      this.entries = [];
      this.reindex();
    }
  }

  /** Flushes written entries to stable storage. */
  sync(): void {
    this.writer?.sync();
  }

  /**
   * Releases this manager's share of the file's writer (the last holder in the process closes it and releases the
   * lock). Further appends throw.
   */
  close(): void {
    this.closeFile();
  }

  private closeFile(): void {
    const writer = this.writer;
    this.writer = undefined;
    if (writer) {
      try {
        // The last holder's release fsyncs; an earlier one syncs what it wrote now (close() means durable).
        if (writer.holders > 1) writer.sync();
        const st = writer.stat();
        // A file with skipped lines is parsed again next time, so its warnings are reported accurately; so is one
        // that other managers of this process appended to (this one's entries are not the whole file).
        if (this.file && this.dirty && (this.warnings.length > 0 || writer.shared)) forgetSessionFile(this.file);
        else if (this.file && this.dirty && st) {
          const file = {
            header: this.header,
            entries: this.entries.slice(),
            warnings: [],
            parsedBytes: st.size,
            endsWithNewline: true,
          };
          rememberSessionFile(this.file, file, st);
        }
      } finally {
        writer.release();
      }
    }
    this.dirty = false;
  }

  // ---- accessors ----

  isPersisted(): boolean {
    return this.sessionDir !== undefined && this.file !== undefined;
  }
  getCwd(): string {
    return this.cwd;
  }
  getSessionDir(): string {
    return this.sessionDir ?? "";
  }
  getSessionId(): string {
    return this.header.id;
  }
  getSessionFile(): string | undefined {
    return this.sessionDir ? this.file : undefined;
  }
  getHeader(): SessionHeader {
    return this.header;
  }
  /** Lines skipped while reading (torn tail, malformed lines). */
  getWarnings(): readonly string[] {
    return this.warnings;
  }
  getLeafId(): string | null {
    return this.leafId;
  }
  getLeafEntry(): SessionEntry | undefined {
    if (this.leafId === null) return undefined;
    // The usual leaf, the last entry, without building the map by id (it is also what the map would hold: the
    // latest entry of that id).
    const last = this.entries[this.entries.length - 1];
    return last?.id === this.leafId ? last : this.index.byId.get(this.leafId);
  }
  getEntry(id: string): SessionEntry | undefined {
    return this.index.byId.get(id);
  }
  /** Number of entries (all branches), without copying them. */
  getEntryCount(): number {
    return this.entries.length;
  }
  /** All entries in file order (a copy of the list; entries themselves must not be mutated). */
  getEntries(): SessionEntry[] {
    return this.entries.slice();
  }
  getChildren(parentId: string): SessionEntry[] {
    return this.entries.filter((e) => e.parentId === parentId);
  }
  getLabel(id: string): string | undefined {
    return this.index.labels.get(id);
  }
  getSessionName(): string | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as SessionEntry;
      if (e.type === "session_info") return e.name || undefined;
    }
    return undefined;
  }
  /** Entries from the root to `fromId` (default: the leaf), oldest first. */
  getBranch(fromId: string | null = this.leafId): SessionEntry[] {
    return this.index.pathTo(fromId);
  }
  /** What the model sees at the current leaf. */
  buildSessionContext(): SessionContext {
    if (this.leafId === null) return { messages: [], thinkingLevel: "off", model: null };
    return this.index.contextTo(this.leafId);
  }
  /** The tree of entries (roots first; orphans become roots). */
  getTree(): SessionTreeNode[] {
    return buildTree(this.entries, this.index.labels, this.index.labelTimestamps);
  }

  // ---- tree navigation ----

  /** Moves the leaf to `entryId`: the next append starts a new branch there. */
  branch(entryId: string): void {
    if (!this.index.byId.has(entryId)) throw new Error(`Entry ${entryId} not found`);
    this.leafId = entryId;
  }
  /** Moves the leaf before the first entry: the next append is a new root. */
  resetLeaf(): void {
    this.leafId = null;
  }
  /** `branch(fromId)` plus a `branch_summary` entry describing the abandoned path. */
  branchWithSummary(fromId: string | null, summary: string, details?: unknown, fromHook?: boolean): string {
    if (fromId !== null && !this.index.byId.has(fromId)) throw new Error(`Entry ${fromId} not found`);
    if (fromId === null) this.resetLeaf();
    else this.branch(fromId);
    return this.append({
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      ...(details !== undefined ? { details } : {}),
      ...(fromHook !== undefined ? { fromHook } : {}),
    });
  }

  /**
   * Forks the path root → `leafId` (default: the leaf) into a new session whose header names this one as parent,
   * and switches this manager to it (later appends go to the fork). The labels of the path's entries carry over
   * as fresh label entries at its end (keeping their timestamps). As in pi, the file is written at once when the
   * path holds an assistant message, else with the next append. Returns the new path (undefined in memory).
   * Throws `Entry <id> not found` for an unknown entry.
   */
  createBranchedSession(leafId: string | null = this.leafId): string | undefined {
    const path = this.getBranch(leafId).filter((e) => e.type !== "label");
    if (path.length === 0) throw new Error(`Entry ${leafId} not found`);
    const onPath = new Set(path.map((e) => e.id));
    const labels: SessionEntry[] = [];
    let parentId = (path[path.length - 1] as SessionEntry).id;
    for (const [targetId, label] of this.index.labels) {
      if (!onPath.has(targetId)) continue;
      const id = newEntryId(onPath);
      onPath.add(id);
      const timestamp = this.index.labelTimestamps.get(targetId) ?? new Date().toISOString();
      labels.push({ type: "label", id, parentId, timestamp, targetId, label });
      parentId = id;
    }
    const parent = this.file && this.sessionDir ? this.file : undefined;
    this.newSession(parent ? { parentSession: parent } : {});
    const all = labels.length > 0 ? [...path, ...labels] : path;
    const answered = path.some((e) => e.type === "message" && e.message.role === "assistant");
    this.adoptEntries(all, parentId, answered);
    return this.getSessionFile();
  }

  // ---- appends ----

  appendMessage(message: AgentMessage): string {
    return this.append({ type: "message", message });
  }
  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }
  appendModelChange(provider: string, modelId: string): string {
    return this.append({ type: "model_change", provider, modelId });
  }
  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
  ): string {
    return this.append({
      type: "compaction",
      summary,
      firstKeptEntryId,
      tokensBefore,
      ...(details !== undefined ? { details } : {}),
      ...(fromHook !== undefined ? { fromHook } : {}),
    });
  }
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.append({ type: "custom", customType, ...(data !== undefined ? { data } : {}) });
  }
  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    return this.append({
      type: "custom_message",
      customType,
      content,
      display,
      ...(details !== undefined ? { details } : {}),
    });
  }
  appendSessionInfo(name: string): string {
    return this.append({ type: "session_info", name });
  }
  /** Sets (or, with undefined/empty, clears) the label of `targetId`. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.index.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    return this.append({ type: "label", targetId, label: label || undefined });
  }

  /** Appends an entry as a child of the leaf and moves the leaf to it. Returns the entry id. */
  append(input: EntryInput): string {
    if (this.readOnly) throw new Error(`session ${this.header.id} was opened read-only`);
    const entry = {
      ...input,
      id: newEntryId(this.index.takenIds),
      parentId: this.leafId,
      timestamp: new Date().toISOString(),
    } as SessionEntry;
    this.write(`${JSON.stringify(entry)}\n`);
    this.index.add(entry);
    this.entries.push(entry);
    this.leafId = entry.id;
    return entry.id;
  }

  // ---- internals ----

  /**
   * Makes a parsed file this manager's session, migrated (and rewritten when this manager alone writes it).
   * `index` holds the file's entries, added while they were read.
   */
  private load(file: string, parsed: ParsedSessionFile, index: EntryIndex): void {
    this.file = file;
    this.header = parsed.header;
    this.entries = parsed.entries;
    for (const w of parsed.warnings) this.warn(w);
    if (migrate(this.header, this.entries)) {
      if (this.readOnly)
        this.warn(`${file}: session format v${parsed.header.version ?? 1} read as v3 (not rewritten: read-only)`);
      // A writer shared with another manager of this process: the file was opened (and migrated) before.
      else if (this.writer?.holders === 1) this.rewriteFile();
      index.rebuild(this.entries); // ids and parents may have changed
    } else index.attach(this.entries);
    this.index = index;
    this.leafId = this.entries[this.entries.length - 1]?.id ?? null;
  }

  private write(line: string): void {
    if (!this.file || !this.sessionDir) return;
    if (!this.writer) throw new Error(`session ${this.header.id} is closed`);
    let text = line;
    if (this.unwritten.length > 0) {
      text = `${this.unwritten.map((e) => JSON.stringify(e)).join("\n")}\n${text}`;
      this.unwritten = [];
    }
    this.writer.append(text, () => `${JSON.stringify(this.header)}\n`);
    this.dirty = true;
  }

  /** Takes `entries` over as this session's; `writeNow: false` holds them back until the next append. */
  private adoptEntries(entries: readonly SessionEntry[], leafId: string | null, writeNow = true): void {
    if (entries.length === 0) return;
    const lines: string[] = [];
    for (const e of entries) {
      lines.push(JSON.stringify(e));
      this.index.add(e);
      this.entries.push(e);
    }
    if (writeNow) this.write(`${lines.join("\n")}\n`);
    else if (this.file && this.sessionDir) this.unwritten = entries.slice();
    this.leafId = leafId;
  }

  private reindex(): void {
    this.index.rebuild(this.entries);
    this.leafId = this.entries[this.entries.length - 1]?.id ?? null;
  }

  /** Writes header and entries to a temp file and renames it over the session (used after a migration). */
  private rewriteFile(): void {
    if (!this.file) return;
    const tmp = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.tmp`);
    const all: FileEntry[] = [this.header, ...this.entries];
    writeFileSync(tmp, `${all.map((e) => JSON.stringify(e)).join("\n")}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.onWarning(message);
  }
}

function defaultWarn(message: string): void {
  console.warn(`tiller: ${message}`);
}
