/**
 * The session file format, version 3 — the same JSONL tree pi-coding-agent 0.73 writes, so a file written by
 * one opens in the other. Line 1 is a `SessionHeader`; every other line is a `SessionEntry` linked to its
 * parent by `parentId` (null for a root). Entries are never rewritten: branching appends a child to an earlier
 * entry and moves the leaf.
 */

import type { Stats } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, TextContent } from "@tiller/ai";

export const CURRENT_SESSION_VERSION = 3;

/**
 * Who holds a lock file (a session's `<file>.lock`, the gateway's home lock): one JSON line, written whole before
 * the lock becomes visible. The holder is live only while a process with this pid, host, boot id and start time
 * runs and is not a zombie (see `liveness.ts`); otherwise the lock is reclaimed at once.
 */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** `/proc/sys/kernel/random/boot_id` when the lock was taken (absent where the system has none). */
  bootId?: string;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks after boot): tells a reused pid from the holder. */
  startTime?: string;
  /** ISO time the lock was taken. */
  since: string;
  /** What the holder adds for whoever finds the lock taken (the gateway's address, …). */
  details?: Record<string, string>;
}

/** A lock record as found on disk: at least a pid (older Tiller versions wrote only that). */
export type FoundLockOwner = Partial<LockOwner> & { pid: number };

/** What `tryAcquireOwnerLock` found: the lock taken (maybe from a dead holder), or held by a live one. */
export type OwnerLockResult =
  | {
      acquired: true;
      /** Set when a dead holder's lock was taken over: whose, and why it counted as dead. */
      reclaimed?: { owner: FoundLockOwner; reason: string };
    }
  | { acquired: false; owner: FoundLockOwner; reason: string };

/** The two fields of `/proc/<pid>/stat` that liveness needs. */
export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, X dead, … */
  state: string;
  /** Clock ticks after boot at which the process started. */
  startTime: string;
}

/** Whether a lock record's holder is still that live process. */
export interface Liveness {
  alive: boolean;
  /** Why, in words ("pid 42 is not running", "pid 42 is a zombie", …), for logs and errors. */
  reason: string;
}

/** One holder's share of a session file's writer. */
export interface SessionWriterHandle {
  /** The absolute session file path. */
  readonly file: string;
  /** Holders of this file's writer in this process, this one included (0 once released). */
  readonly holders: number;
  /**
   * True once the writer had more than one holder: no single holder's in-memory entries then describe the
   * whole file (so none may publish them to the parse cache).
   */
  readonly shared: boolean;
  /**
   * Appends whole lines (`text` ends with a newline) in one write. `header` is written first when the file is
   * new or empty; a torn last line left by a crash is first ended with a newline, so it stays one skipped line.
   * Throws once released.
   */
  append(text: string, header: () => string): void;
  /**
   * Starts an fsync of what was written, on the thread pool: it never blocks the event loop (a no-op before the
   * first append or when nothing new was written). The last holder's release fsyncs what is left.
   */
  sync(): void;
  /** The descriptor's stats, once something was appended. */
  stat(): Stats | undefined;
  /** Drops this holder; the last one closes the descriptor and releases the lock. Idempotent. */
  release(): void;
}

export interface SessionHeader {
  type: "session";
  version?: number;
  /** UUID v7. */
  id: string;
  /** ISO time of creation. */
  timestamp: string;
  cwd: string;
  /** Path of the session this one was forked from. */
  parentSession?: string;
}

export interface SessionEntryBase {
  type: string;
  /** 8 hex characters, unique within the file. */
  id: string;
  parentId: string | null;
  /** ISO time. */
  timestamp: string;
}

export interface SessionMessageEntry extends SessionEntryBase {
  type: "message";
  message: AgentMessage;
}

export interface ThinkingLevelChangeEntry extends SessionEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface ModelChangeEntry extends SessionEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

/** Everything before `firstKeptEntryId` on the path is replaced by `summary` in the context. */
export interface CompactionEntry<T = unknown> extends SessionEntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: T;
  fromHook?: boolean;
}

/** Summary of an abandoned branch, sent to the model as a user message. */
export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: T;
  fromHook?: boolean;
}

/** Extension state; never sent to the model. */
export interface CustomEntry<T = unknown> extends SessionEntryBase {
  type: "custom";
  customType: string;
  data?: T;
}

/** Extension-injected message; sent to the model as a user message. */
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  details?: T;
  display: boolean;
}

/** Bookmark on `targetId`; an undefined label clears it. */
export interface LabelEntry extends SessionEntryBase {
  type: "label";
  targetId: string;
  label: string | undefined;
}

/** Session metadata (display name). */
export interface SessionInfoEntry extends SessionEntryBase {
  type: "session_info";
  name?: string;
}

export type SessionEntry =
  | SessionMessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry;

export type FileEntry = SessionHeader | SessionEntry;

/** What `buildSessionContext` resolves from the leaf's path. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface SessionTreeNode {
  entry: SessionEntry;
  children: SessionTreeNode[];
  /** The entry's current label, if any. */
  label?: string;
  /** When that label was set (the label entry's timestamp). */
  labelTimestamp?: string;
}

/**
 * Where a backward walk of the branch at a session's leaf stands (`SessionTail.walk`): it continues with the
 * entry `nextId` among the lines before byte `offset`. Valid for the file it came from as long as that file is
 * only appended to; meaningless for any other file.
 */
export interface BranchPosition {
  /** A line start of the file: the walk reads the lines before it. */
  offset: number;
  /** The next (older) entry of the branch; null when the walk is at the start of the context. */
  nextId: string | null;
  /**
   * Set once the walk passed the latest compaction on the branch: the id of its first kept entry, the oldest
   * entry still in the context.
   */
  keptFrom?: string;
}

/** One context message found by `SessionTail.walk`, with the position that continues after it (older). */
export interface BranchStep {
  entry: SessionEntry;
  /** The message as the context has it (`entryMessage` of the entry). */
  message: AgentMessage;
  resume: BranchPosition;
}

/** A session as `SessionManager.list` sees it, from the file's head and tail only. */
export interface SessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  sizeBytes: number;
  /** Text of the first user message, when it lies in the head of the file. */
  firstMessage: string;
  /**
   * Message entries in the file (pi's field). The listing reads only each file's head and tail, so this is read
   * from the whole file on first access (then kept) and is not enumerable: JSON and spreads leave it out.
   */
  readonly messageCount: number;
  /** The text of every user and assistant message, space-joined (pi's field, for search); read as `messageCount`. */
  readonly allMessagesText: string;
}

/** The read side of a SessionManager, as pi's branch-summary and extension APIs take it. */
export type ReadonlySessionManager = Pick<
  import("./session-manager.js").SessionManager,
  | "getCwd"
  | "getSessionDir"
  | "getSessionId"
  | "getSessionFile"
  | "getLeafId"
  | "getLeafEntry"
  | "getEntry"
  | "getLabel"
  | "getBranch"
  | "getHeader"
  | "getEntries"
  | "getTree"
  | "getSessionName"
>;

/** Options of `SessionManager.newSession`. */
export interface NewSessionOptions {
  id?: string;
  parentSession?: string;
}
