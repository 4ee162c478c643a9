/**
 * `chat.history`: the session's visible messages (user, assistant, tool results — so a client can show a
 * reloaded tool card with its result) as the model sees them, paged from the newest.
 *
 * A page costs what the page costs: the transcript is read from its end backwards along the current branch
 * (`SessionTail` in the coding agent's session package), and a page's `cursor` carries where that walk stopped
 * (the byte offset of the page's oldest entry and the id of its parent), so the next page reads on from there.
 * Paging a session to its start thus reads the transcript about once, whatever the page size. A backward walk
 * rather than a per-session index of entry offsets: it needs no pass over the whole file before the first page
 * (the usual request: open a session, see its end), no memory held per session, and no invalidation — the file
 * is only appended to, and a new entry never changes an older one's offset or parent.
 *
 * The cursor also names the transcript (session id) and its compaction count: between those the file only grows
 * at its end, so the position stays valid, and a cursor from before a reset or a compaction is refused
 * (`history-changed`) instead of returning a page that overlaps or skips. Files older than format v3 are
 * read whole, with a cursor holding the position in the message list (`h1`).
 */
import { existsSync } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import { type BranchPosition, BranchPositionError, SessionManager, SessionTail } from "@tiller/coding-agent";
import { GatewayError } from "../protocol/frames.js";
import type { ChatHistoryParams, ChatHistoryResult, HistoryMessage } from "../protocol/schema/chat.js";
import type { SessionEntry } from "../store/session-store.js";

const DEFAULT_LIMIT = 200;
const VISIBLE = new Set(["user", "assistant", "toolResult"]);

/** A whole-file cursor (files older than v3): the position of the page's oldest message in the message list. */
interface ListCursor {
  kind: "list";
  sessionId: string;
  compactions: number;
  index: number;
}

/** A tail-walk cursor: where the backward walk stopped (see the file comment). */
interface TailCursor {
  kind: "tail";
  sessionId: string;
  compactions: number;
  at: BranchPosition;
}

type Cursor = ListCursor | TailCursor;

// Entry ids travel base64url-encoded (an empty field: none), so any id a v3 file holds fits between the dots.
const TAIL_CURSOR = /^h2\.(\d+)\.(\d+)\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]*)\.(.+)$/;
const id64 = (id: string | null | undefined): string => (id ? Buffer.from(id).toString("base64url") : "");
const unId64 = (field: string): string | undefined =>
  field ? Buffer.from(field, "base64url").toString("utf8") : undefined;

function encode(c: Cursor): string {
  if (c.kind === "list") return `h1.${c.compactions}.${c.index}.${c.sessionId}`;
  const { offset, nextId, keptFrom } = c.at;
  return `h2.${c.compactions}.${offset}.${id64(nextId)}.${id64(keptFrom)}.${c.sessionId}`;
}

function decode(raw: string): Cursor | undefined {
  const l = /^h1\.(\d+)\.(\d+)\.(.+)$/.exec(raw);
  if (l) return { kind: "list", compactions: Number(l[1]), index: Number(l[2]), sessionId: l[3] as string };
  const t = TAIL_CURSOR.exec(raw);
  if (!t) return undefined;
  const at: BranchPosition = { offset: Number(t[2]), nextId: unId64(t[3] as string) ?? null };
  const keptFrom = unId64(t[4] as string);
  if (keptFrom !== undefined) at.keptFrom = keptFrom;
  return { kind: "tail", compactions: Number(t[1]), at, sessionId: t[5] as string };
}

function historyChanged(why: string): GatewayError {
  return new GatewayError("INVALID_REQUEST", `invalid chat.history params: before: ${why}; fetch the newest page`, {
    code: "INVALID_PARAMS",
    key: "before",
    reason: "history-changed",
  });
}

/** A context message as the wire shows it. */
function wireMessage(m: AgentMessage): HistoryMessage {
  const x = m as HistoryMessage;
  return x.role === "toolResult"
    ? {
        role: x.role,
        content: x.content,
        timestamp: x.timestamp,
        toolCallId: x.toolCallId,
        toolName: x.toolName,
        isError: x.isError,
      }
    : {
        role: x.role,
        content: x.content,
        timestamp: x.timestamp,
        stopReason: x.stopReason,
        ...(x.role === "assistant" ? usageOf(m) : {}),
      };
}

/** The visible messages of an older-format file's context (read whole and migrated: not walkable). */
function visibleMessages(file: string): HistoryMessage[] {
  const sm = SessionManager.open(file, { readOnly: true, onWarning: () => {} });
  try {
    const out: HistoryMessage[] = [];
    for (const m of sm.buildSessionContext().messages as AgentMessage[])
      if (VISIBLE.has((m as HistoryMessage).role)) out.push(wireMessage(m));
    return out;
  } finally {
    sm.close();
  }
}

/** An assistant message's usage as the wire shows it (RunUsage: `total`, dollars as `costUsd`). */
function usageOf(m: AgentMessage): Pick<HistoryMessage, "usage"> {
  const u = (m as Partial<AssistantMessage>).usage;
  if (!u) return {};
  return {
    usage: {
      input: u.input,
      output: u.output,
      cacheRead: u.cacheRead,
      cacheWrite: u.cacheWrite,
      total: u.totalTokens,
      costUsd: u.cost?.total ?? 0,
    },
  };
}

/** The page of `all` (a whole file's visible messages) that ends at `end`. */
function listPage(all: HistoryMessage[], end: number, limit: number): { messages: HistoryMessage[]; start: number } {
  let start = Math.max(0, end - limit);
  // A page never starts with tool results: they go with the assistant message that called the tools, so a
  // client shows each tool card with its result (such a page is a few messages over the limit).
  while (start > 0 && all[start]?.role === "toolResult") start--;
  return { messages: all.slice(start, end), start };
}

/**
 * The page that ends before `from` (or at the leaf), walking the branch backwards: `limit` visible messages, more
 * while the oldest is a tool result (the same rule as `listPage`), and one look past the page to learn whether
 * anything older is visible.
 */
function tailPage(
  tail: SessionTail,
  from: BranchPosition | undefined,
  limit: number,
): { messages: HistoryMessage[]; resume?: BranchPosition } {
  const newestFirst: HistoryMessage[] = [];
  let resume: BranchPosition | undefined;
  let more = false;
  tail.walk(from, (step) => {
    const role = (step.message as HistoryMessage).role;
    if (!VISIBLE.has(role)) return true;
    if (newestFirst.length >= limit && newestFirst[newestFirst.length - 1]?.role !== "toolResult") {
      more = true;
      return false;
    }
    newestFirst.push(wireMessage(step.message));
    resume = step.resume;
    return true;
  });
  return { messages: newestFirst.reverse(), ...(more && resume ? { resume } : {}) };
}

export function historyPage(
  entry: SessionEntry | undefined,
  sessionKey: string,
  p: Pick<ChatHistoryParams, "limit" | "before">,
): ChatHistoryResult {
  const limit = p.limit ?? DEFAULT_LIMIT;
  let cursor: Cursor | undefined;
  if (p.before !== undefined) {
    cursor = decode(p.before);
    if (!cursor) {
      throw new GatewayError("INVALID_REQUEST", "invalid chat.history params: before: not a chat.history cursor", {
        code: "INVALID_PARAMS",
        key: "before",
      });
    }
    if (!entry || cursor.sessionId !== entry.sessionId) throw historyChanged("the session was reset since that page");
    if (cursor.compactions !== entry.compactionCount) throw historyChanged("the session was compacted since that page");
  }
  const result = (messages: HistoryMessage[], next?: Cursor): ChatHistoryResult => ({
    sessionKey,
    sessionId: entry?.sessionId,
    messages,
    ...(next ? { hasMore: true, cursor: encode(next) } : { hasMore: false }),
  });
  if (!entry?.sessionFile || !existsSync(entry.sessionFile)) {
    if (cursor) throw historyChanged("the transcript is shorter than that page");
    return result([]);
  }
  const same = { sessionId: entry.sessionId, compactions: entry.compactionCount };
  const tail = SessionTail.open(entry.sessionFile);
  try {
    if (!tail.canWalk) {
      const all = visibleMessages(entry.sessionFile);
      if (cursor?.kind === "tail") throw historyChanged("that cursor is not for this transcript");
      if (cursor && cursor.index > all.length) throw historyChanged("the transcript is shorter than that page");
      const page = listPage(all, cursor ? cursor.index : all.length, limit);
      return result(page.messages, page.start > 0 ? { kind: "list", ...same, index: page.start } : undefined);
    }
    if (cursor?.kind === "list") throw historyChanged("that cursor is from an older gateway");
    let page: ReturnType<typeof tailPage>;
    try {
      page = tailPage(tail, cursor?.at, limit);
    } catch (err) {
      if (err instanceof BranchPositionError) throw historyChanged("the transcript is shorter than that page");
      throw err;
    }
    return result(page.messages, page.resume ? { kind: "tail", ...same, at: page.resume } : undefined);
  } finally {
    tail.close();
  }
}
