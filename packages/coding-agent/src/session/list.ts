/**
 * Listing sessions without reading whole files: each file contributes its first and last few KB (header, first
 * user message, latest name; the tail through `linesBackward`, shared with `SessionTail`), so listing 1,000 sessions of any size costs about 1,000 small reads. Results are
 * cached per (path, size, mtime).
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { linesBackward } from "./tail-lines.js";
import type { SessionHeader, SessionInfo } from "./types.js";

export interface ListOptions {
  /** Bytes read from the start of each file (default 16 KB). */
  headBytes?: number;
  /** Bytes read from the end of each file (default 16 KB). */
  tailBytes?: number;
}

interface CachedInfo {
  size: number;
  mtimeMs: number;
  info: SessionInfo;
}
const infoCache = new Map<string, CachedInfo>();

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content as { type?: string; text?: string }[])
    if (block?.type === "text" && block.text) parts.push(block.text);
  return parts.join(" ");
}

function parseLines(text: string, dropFirst: boolean, dropLast: boolean): unknown[] {
  const lines = text.split("\n");
  if (dropFirst) lines.shift();
  if (dropLast) lines.pop();
  const out: unknown[] = [];
  for (const line of lines) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // Torn or cut line: listing is best-effort.
    }
  }
  return out;
}

/** Summary of one session file, or undefined when it is not a session file. */
/**
 * Adds pi's `messageCount` / `allMessagesText` as getters that read the whole file once, on first access: a
 * listing that never asks costs what the head-and-tail read costs (non-enumerable, so serializing a listing
 * does not ask either).
 */
function withWholeFileFields(path: string, info: Omit<SessionInfo, "messageCount" | "allMessagesText">): SessionInfo {
  let whole: { messageCount: number; allMessagesText: string } | undefined;
  const read = () => {
    if (whole) return whole;
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch {
      // Gone since it was listed: nothing to count.
    }
    let messageCount = 0;
    const texts: string[] = [];
    for (const e of parseLines(text, false, false) as {
      type?: string;
      message?: { role?: string; content?: unknown };
    }[]) {
      if (e?.type !== "message") continue;
      messageCount++;
      const role = e.message?.role;
      if (role !== "user" && role !== "assistant") continue;
      const t = textOf(e.message?.content);
      if (t) texts.push(t);
    }
    whole = { messageCount, allMessagesText: texts.join(" ") };
    return whole;
  };
  return Object.defineProperties(info, {
    messageCount: { get: () => read().messageCount, enumerable: false },
    allMessagesText: { get: () => read().allMessagesText, enumerable: false },
  }) as SessionInfo;
}

export function readSessionInfo(path: string, options: ListOptions = {}): SessionInfo | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const st = statSync(path);
    const cached = infoCache.get(path);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.info;
    const headLen = Math.min(st.size, options.headBytes ?? 16 * 1024);
    const head = Buffer.allocUnsafe(headLen);
    const n = readSync(fd, head, 0, headLen, 0);
    const headText = head.toString("utf8", 0, n);
    const headEntries = parseLines(headText, false, n < st.size);
    const header = headEntries[0] as SessionHeader | undefined;
    if (header?.type !== "session" || typeof header.id !== "string") return undefined;

    let firstMessage = "";
    let name: string | undefined;
    const scan = (entries: unknown[]) => {
      for (const e of entries as { type?: string; name?: string; message?: { role?: string; content?: unknown } }[]) {
        if (e?.type === "session_info") name = e.name || undefined;
        else if (!firstMessage && e?.type === "message" && e.message?.role === "user")
          firstMessage = textOf(e.message.content);
      }
    };
    scan(headEntries.slice(1));
    const tailLen = Math.min(st.size - n, options.tailBytes ?? 16 * 1024);
    if (tailLen > 0) {
      // The lines of the last `tailLen` bytes; the one reaching back past them is cut, and dropped.
      const tailEntries: unknown[] = [];
      const readAt = (buf: Buffer, at: number, len: number, pos: number) => readSync(fd, buf, at, len, pos);
      for (const line of linesBackward(readAt, st.size, st.size - tailLen)) {
        if (line.bytes.length === 0) continue;
        try {
          tailEntries.push(JSON.parse(line.bytes.toString("utf8")));
        } catch {
          // Torn line: listing is best-effort.
        }
      }
      tailEntries.reverse();
      const savedFirst = firstMessage;
      scan(tailEntries);
      firstMessage = savedFirst || firstMessage;
    }
    const created = Date.parse(header.timestamp);
    const info = withWholeFileFields(path, {
      path,
      id: header.id,
      cwd: header.cwd ?? "",
      ...(name ? { name } : {}),
      ...(header.parentSession ? { parentSessionPath: header.parentSession } : {}),
      created: Number.isNaN(created) ? st.birthtime : new Date(created),
      modified: st.mtime,
      sizeBytes: st.size,
      firstMessage,
    });
    infoCache.set(path, { size: st.size, mtimeMs: st.mtimeMs, info });
    return info;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Sessions in one directory, most recently modified first. A missing directory lists nothing. */
export function listSessions(dir: string, options?: ListOptions): SessionInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: SessionInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const info = readSessionInfo(join(dir, name), options);
    if (info) out.push(info);
  }
  return out.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** Sessions in every sub-directory of `sessionsRoot`, most recently modified first. */
export function listAllSessions(sessionsRoot: string, options?: ListOptions): SessionInfo[] {
  let dirs: string[];
  try {
    dirs = readdirSync(sessionsRoot);
  } catch {
    return [];
  }
  const out: SessionInfo[] = [];
  for (const d of dirs) out.push(...listSessions(join(sessionsRoot, d), options));
  return out.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}
