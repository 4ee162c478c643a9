/**
 * `chat.history`: the session's visible messages (user, assistant, tool results — so a client can show a
 * reloaded tool card with its result) as the model sees them, paged from the newest. A page's `cursor` names
 * the position of its oldest message in that list, together with the transcript (session id) and its
 * compaction count: the list only grows at its end between those, so the position stays valid, and a cursor
 * from before a reset or a compaction is refused instead of returning a page that overlaps or skips.
 */
import { existsSync } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage } from "@tiller/ai";
import { SessionManager } from "@tiller/coding-agent";
import { GatewayError } from "../protocol/frames.js";
import type { ChatHistoryParams, ChatHistoryResult, HistoryMessage } from "../protocol/schema/chat.js";
import type { SessionEntry } from "../store/session-store.js";

const DEFAULT_LIMIT = 200;
const VISIBLE = new Set(["user", "assistant", "toolResult"]);

interface Cursor {
  sessionId: string;
  compactions: number;
  index: number;
}

function encode(c: Cursor): string {
  return `h1.${c.compactions}.${c.index}.${c.sessionId}`;
}

function decode(raw: string): Cursor | undefined {
  const m = /^h1\.(\d+)\.(\d+)\.(.+)$/.exec(raw);
  if (!m) return undefined;
  return { compactions: Number(m[1]), index: Number(m[2]), sessionId: m[3] as string };
}

function historyChanged(why: string): GatewayError {
  return new GatewayError("INVALID_REQUEST", `invalid chat.history params: before: ${why}; fetch the newest page`, {
    code: "INVALID_PARAMS",
    key: "before",
    reason: "history-changed",
  });
}

/** The visible messages of the session's context, as the wire shows them. */
function visibleMessages(entry: SessionEntry | undefined): HistoryMessage[] {
  if (!entry?.sessionFile || !existsSync(entry.sessionFile)) return [];
  const sm = SessionManager.open(entry.sessionFile, { readOnly: true, onWarning: () => {} });
  try {
    const all = sm.buildSessionContext().messages as AgentMessage[];
    const out: HistoryMessage[] = [];
    for (const m of all) {
      const x = m as HistoryMessage;
      if (!VISIBLE.has(x.role)) continue;
      out.push(
        x.role === "toolResult"
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
            },
      );
    }
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

export function historyPage(
  entry: SessionEntry | undefined,
  sessionKey: string,
  p: Pick<ChatHistoryParams, "limit" | "before">,
): ChatHistoryResult {
  const limit = p.limit ?? DEFAULT_LIMIT;
  const all = visibleMessages(entry);
  let end = all.length;
  if (p.before !== undefined) {
    const c = decode(p.before);
    if (!c) {
      throw new GatewayError("INVALID_REQUEST", "invalid chat.history params: before: not a chat.history cursor", {
        code: "INVALID_PARAMS",
        key: "before",
      });
    }
    if (!entry || c.sessionId !== entry.sessionId) throw historyChanged("the session was reset since that page");
    if (c.compactions !== entry.compactionCount) throw historyChanged("the session was compacted since that page");
    if (c.index > all.length) throw historyChanged("the transcript is shorter than that page");
    end = c.index;
  }
  let start = Math.max(0, end - limit);
  // A page never starts with tool results: they go with the assistant message that called the tools, so a
  // client shows each tool card with its result (such a page is a few messages over the limit).
  while (start > 0 && all[start]?.role === "toolResult") start--;
  const hasMore = start > 0;
  return {
    sessionKey,
    sessionId: entry?.sessionId,
    messages: all.slice(start, end),
    ...(hasMore && entry
      ? {
          hasMore,
          cursor: encode({ sessionId: entry.sessionId, compactions: entry.compactionCount, index: start }),
        }
      : { hasMore: false }),
  };
}
