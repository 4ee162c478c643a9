// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * chat.history reads what a page needs, not the transcript: on a session of tens of thousands of entries (with
 * abandoned branches, entries the history does not show, a torn last line from a crash mid-append), the newest
 * page reads a few chunks from the end of the file, paging to the start reads the file about once in all, and
 * the pages joined are exactly the visible messages of the context that the session manager builds from the whole
 * file. Behind a compaction, paging stops at its first kept entry without reading what lies before it.
 * Cost is counted in bytes read and lines parsed (`sessionTailStats`), never in time. Files of format v1 (no
 * entry ids) are still paged, read whole.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import { SessionManager, sessionCacheStats, sessionTailStats } from "@tiller/coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { historyPage } from "../src/methods/chat-history.js";
import { GatewayError } from "../src/protocol/frames.js";
import type { SessionEntry } from "../src/store/session-store.js";
import { writeLongSession } from "./helpers/long-session.js";

const dir = mkdtempSync(join(tmpdir(), "tiller-history-cost-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 64 * 1024;

function row(file: string, compactionCount = 0): SessionEntry {
  return {
    key: "agent:main:long",
    agentId: "main",
    sessionId: "s-1",
    sessionFile: file,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    contextTokens: 0,
    compactionCount,
    createdAt: 0,
    updatedAt: 0,
  };
}

/** The visible messages as the whole-file reader sees them (role + content), the oracle. */
function expected(file: string): string[] {
  const sm = SessionManager.open(file, { readOnly: true, onWarning: () => {} });
  try {
    return (sm.buildSessionContext().messages as AgentMessage[])
      .filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult")
      .map((m) => `${m.role}:${JSON.stringify((m as any).content)}`);
  } finally {
    sm.close();
  }
}

interface Paged {
  pages: any[][];
  /** Bytes read and lines parsed per page, newest page first. */
  cost: { bytes: number; lines: number }[];
}

function pageAll(entry: SessionEntry, limit: number): Paged {
  const pages: any[][] = [];
  const cost: Paged["cost"] = [];
  let before: string | undefined;
  for (;;) {
    const b = sessionTailStats.bytesRead;
    const l = sessionTailStats.linesParsed;
    const page = historyPage(entry, entry.key, { limit, ...(before ? { before } : {}) });
    cost.push({ bytes: sessionTailStats.bytesRead - b, lines: sessionTailStats.linesParsed - l });
    pages.unshift(page.messages);
    if (!page.hasMore) {
      expect(page.cursor).toBeUndefined();
      return { pages, cost };
    }
    before = page.cursor;
  }
}

describe("chat.history costs a page, not the transcript", () => {
  it("pages 20,000 turns: the newest page reads a few chunks, all pages read the file about once", () => {
    const s = writeLongSession(join(dir, "long.jsonl"), { turns: 20_000, branchEvery: 50, textChars: 60 });
    expect(s.entries).toBeGreaterThan(85_000);
    // A crash mid-append leaves a torn last line: skipped, as the whole-file reader skips it.
    appendFileSync(s.file, '{"type":"message","id":"ffffffff","parentId":"00000001","message":{"role":"user","con');
    const want = expected(s.file);
    expect(want.length).toBe(80_000);

    const entry = row(s.file);
    const limit = 200;
    const wholeReads = () => sessionCacheStats.hits + sessionCacheStats.partialHits + sessionCacheStats.misses;
    const wholeBefore = wholeReads();
    const { pages, cost } = pageAll(entry, limit);
    // No page went through the whole-file reader (nor its cache, which holds every entry in memory).
    expect(wholeReads()).toBe(wholeBefore);
    expect(pages.flat().map((m) => `${m.role}:${JSON.stringify(m.content)}`)).toEqual(want);
    for (const [i, p] of pages.entries()) {
      if (i > 0) expect(p[0].role).not.toBe("toolResult");
      if (i < pages.length - 1) expect(p.length).toBeGreaterThanOrEqual(limit);
    }
    // The newest page: a few chunks from the end of a ~15 MB file.
    expect(s.bytes).toBeGreaterThan(100 * CHUNK);
    expect(cost[0]?.bytes).toBeLessThan(3 * CHUNK);
    expect(cost[0]?.lines).toBeLessThan(3 * limit);
    // Every page costs about its own bytes; all together read the file about once (plus a chunk a page).
    const pageBytes = s.bytes / pages.length;
    for (const c of cost) expect(c.bytes).toBeLessThan(2 * pageBytes + 3 * CHUNK);
    const total = cost.reduce((a, c) => ({ bytes: a.bytes + c.bytes, lines: a.lines + c.lines }), {
      bytes: 0,
      lines: 0,
    });
    expect(total.bytes).toBeLessThan(s.bytes + pages.length * 2 * CHUNK);
    expect(total.bytes).toBeGreaterThan(s.bytes * 0.9); // the count is real: paging to the start reads it all
    // Lines of abandoned branches and of later pages are found by a byte search, never parsed.
    expect(total.lines).toBeLessThan(s.entries * 1.1);
  });

  it("behind a compaction: pages stop at its first kept entry and never read what lies before it", () => {
    const s = writeLongSession(join(dir, "compacted.jsonl"), {
      turns: 5_000,
      compactAfterTurn: 4_000,
      keepTurns: 30,
      branchEvery: 40,
    });
    const want = expected(s.file);
    // 30 kept turns + 1,000 after the compaction, 4 visible messages each.
    expect(want.length).toBe((30 + 1000) * 4);
    const { pages, cost } = pageAll(row(s.file, 1), 500);
    expect(pages.flat().map((m) => `${m.role}:${JSON.stringify(m.content)}`)).toEqual(want);
    const total = cost.reduce((a, c) => a + c.bytes, 0);
    // The kept region and what follows is about a fifth of the file; the pages read no more than twice that.
    expect(total).toBeLessThan(s.bytes * 0.45);
  });

  it("refuses a cursor that does not fit the transcript (history-changed), and keeps answering", () => {
    const s = writeLongSession(join(dir, "short.jsonl"), { turns: 50 });
    const entry = row(s.file);
    const first = historyPage(entry, entry.key, { limit: 10 });
    expect(first.hasMore).toBe(true);
    const c = first.cursor as string;
    // The same position in a file that is now shorter, and one that is not a line start.
    const parts = c.split(".");
    const shift = (by: number) => [parts[0], parts[1], String(Number(parts[2]) + by), ...parts.slice(3)].join(".");
    for (const bad of [shift(10_000_000), shift(1)]) {
      let err: unknown;
      try {
        historyPage(entry, entry.key, { limit: 10, before: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).details).toMatchObject({ reason: "history-changed" });
    }
    // A compaction recorded since the page: refused as well.
    expect(() => historyPage(row(s.file, 1), entry.key, { limit: 10, before: c })).toThrow(/compacted/);
    expect(historyPage(entry, entry.key, { limit: 10, before: c }).messages.length).toBeGreaterThanOrEqual(10);
  });

  it("pages a file of format v1 (no entry ids) too, read whole, with the same page rules", () => {
    const file = join(dir, "v1.jsonl");
    const ts = "2026-01-01T00:00:00.000Z";
    const lines = [
      JSON.stringify({ type: "session", id: "0190f000-0000-7000-8000-00000000000a", timestamp: ts, cwd: "/" }),
    ];
    for (let i = 0; i < 30; i++) {
      lines.push(
        JSON.stringify({ type: "message", timestamp: ts, message: { role: "user", content: `q${i}`, timestamp: i } }),
      );
      lines.push(
        JSON.stringify({
          type: "message",
          timestamp: ts,
          message: { role: "assistant", content: [{ type: "text", text: `a${i}` }], stopReason: "stop", timestamp: i },
        }),
      );
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    const { pages } = pageAll(row(file), 7);
    expect(pages.flat().map((m) => `${m.role}:${JSON.stringify(m.content)}`)).toEqual(expected(file));
    expect(pages.flat()).toHaveLength(60);
    expect(pages.length).toBe(9);
  });
});
