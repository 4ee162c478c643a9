/**
 * Turn-end durability off the event loop: `sync()` starts the fsync on the thread pool and returns, yet nothing is
 * lost and nothing leaks: a close right after a sync (the fsync still in flight) leaves every entry in the file, the
 * descriptor is closed once the fsync is done, and the lock is released at once so the session opens again.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openSessionWriterCount, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-sync-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });

/** Descriptors of this process open on files under `d` (Linux /proc). */
function fdsUnder(d: string): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(d)) n++;
    } catch {
      // closed while listing
    }
  }
  return n;
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

it.skipIf(process.platform !== "linux")(
  "a close right after a turn-end sync loses nothing; the descriptor closes when the fsync is done",
  async () => {
    const before = openSessionWriterCount();
    const sm = SessionManager.create(dir, { sessionDir: dir });
    sm.newSession();
    const ids = [sm.appendMessage(user("first turn"))];
    sm.sync();
    ids.push(sm.appendMessage(user("second turn")));
    sm.sync();
    // Written after the last sync: the release fsyncs it itself.
    ids.push(sm.appendMessage(user("after the last sync")));
    const file = sm.getSessionFile() as string;
    sm.close();
    // The lock is released at once (the writer is gone), whether or not the fsync is still running.
    expect(openSessionWriterCount()).toBe(before);
    const again = SessionManager.open(file, { sessionDir: dir });
    expect(again.getEntries().map((e) => e.id)).toEqual(expect.arrayContaining(ids));
    again.appendMessage(user("next run"));
    again.sync();
    again.close();
    await until(() => fdsUnder(dir) === 0);
    const reread = SessionManager.open(file, { sessionDir: dir, readOnly: true });
    expect(reread.getEntries().filter((e) => e.type === "message")).toHaveLength(4);
    reread.close();
  },
);

it("sync with nothing written is a no-op, and a sync after close does nothing", () => {
  const sm = SessionManager.create(dir, { sessionDir: dir });
  sm.newSession();
  sm.sync();
  sm.appendMessage(user("one"));
  sm.sync();
  sm.sync();
  sm.close();
  expect(() => sm.sync()).not.toThrow();
});
