/**
 * chat.history paging (packages/gateway/src/methods/chat-history.ts) on sessions of about 10k and 100k entries
 * (turns of user → tool call → tool result → answer, abandoned branches, entries the history does not show):
 *  - the newest page (limit 100), with the whole-file parse cache cleared first (a gateway that just started);
 *  - paging from the newest page to the start (limit 100), every page through `historyPage` as the gateway calls
 *    it, with the bytes read per page.
 * Targets (flatness): the newest page of the 100k session costs about what the 10k one does (ratio <= 2), and
 * paging to the start costs the same per entry on both (ratio <= 2). Each figure is the median of
 * HISTORY_BENCH_REPS runs (default 5). `npm run bench -- gateway-history`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearSessionCache, sessionTailStats } from "@tiller/coding-agent";
import { historyPage } from "../packages/gateway/src/methods/chat-history.js";
import type { SessionEntry } from "../packages/gateway/src/store/session-store.js";
import { writeLongSession } from "../packages/gateway/test/helpers/long-session.js";
import { recordTarget } from "./summary.js";

const REPS = Number(process.env.HISTORY_BENCH_REPS ?? 5);
const LIMIT = 100;
const dir = mkdtempSync(join(tmpdir(), "tiller-history-bench-"));

function row(file: string): SessionEntry {
  return {
    key: "agent:main:bench",
    agentId: "main",
    sessionId: "bench",
    sessionFile: file,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    contextTokens: 0,
    compactionCount: 0,
    createdAt: 0,
    updatedAt: 0,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

interface Case {
  entries: number;
  mb: number;
  firstMs: number;
  allMs: number;
  pages: number;
  messages: number;
  kbPerPage: number;
}

function measure(turns: number): Case {
  const s = writeLongSession(join(dir, `s${turns}.jsonl`), { turns, branchEvery: 50, textChars: 120 });
  const entry = row(s.file);
  const first: number[] = [];
  const all: number[] = [];
  let pages = 0;
  let messages = 0;
  let bytes = 0;
  for (let r = 0; r < REPS; r++) {
    clearSessionCache();
    let t = performance.now();
    historyPage(entry, entry.key, { limit: LIMIT });
    first.push(performance.now() - t);
    clearSessionCache();
    const b0 = sessionTailStats.bytesRead;
    t = performance.now();
    let before: string | undefined;
    pages = 0;
    messages = 0;
    for (;;) {
      const page = historyPage(entry, entry.key, { limit: LIMIT, ...(before ? { before } : {}) });
      pages++;
      messages += page.messages.length;
      if (!page.hasMore) break;
      before = page.cursor;
    }
    all.push(performance.now() - t);
    bytes = sessionTailStats.bytesRead - b0;
  }
  return {
    entries: s.entries,
    mb: s.bytes / 1024 / 1024,
    firstMs: median(first),
    allMs: median(all),
    pages,
    messages,
    kbPerPage: bytes / pages / 1024,
  };
}

try {
  const small = measure(2_300);
  const large = measure(23_000);
  console.log(`chat.history, limit ${LIMIT}, median of ${REPS}`);
  console.log("| session | file | newest page | page to start | pages | per page | read per page |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const c of [small, large])
    console.log(
      `| ${c.entries} entries | ${c.mb.toFixed(1)} MB | ${c.firstMs.toFixed(2)} ms | ${c.allMs.toFixed(0)} ms | ${c.pages} | ${(c.allMs / c.pages).toFixed(2)} ms | ${c.kbPerPage.toFixed(0)} KB |`,
    );
  recordTarget({
    bench: "gateway-history",
    row: "newest page, 100k vs 10k entries",
    vs: "",
    ratio: large.firstMs / small.firstMs,
    target: 2,
    kind: "max",
  });
  recordTarget({
    bench: "gateway-history",
    row: "page to start per entry, 100k vs 10k",
    vs: "",
    ratio: large.allMs / large.entries / (small.allMs / small.entries),
    target: 2,
    kind: "max",
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
