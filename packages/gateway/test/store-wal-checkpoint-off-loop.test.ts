/**
 * The session index's WAL is checkpointed by a worker thread, not inside a commit on the event loop: a store that
 * keeps committing run rows (each with its reply) sees its database file take them in while no commit of its own
 * ever checkpoints (its automatic checkpoints are off), and everything written is there after close and reopen.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { SessionStore } from "../src/store/session-store.js";
import { until } from "./gateway-harness.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it("a store committing 8 MB of run rows has them checkpointed into the database file off the event loop", async () => {
  const home = mkdtempSync(join(tmpdir(), "tiller-wal-"));
  dirs.push(home);
  const file = join(home, "sessions", "index.sqlite");
  const store = new SessionStore(home);
  const key = "agent:main:wal";
  store.ensure(key, "main");
  const sizeAtStart = statSync(file).size;
  const reply = "r".repeat(40_000);
  let n = 0;
  const writeRun = (): void => {
    const runId = `run-${n++}`;
    store.runAccepted(runId, key, n);
    store.runEnded({
      runId,
      sessionKey: key,
      status: "ok",
      acceptedAt: n,
      endedAt: n + 1,
      result: { payloads: [{ text: reply, mediaUrl: null }] },
    });
    store.flush();
  };
  for (let i = 0; i < 200; i++) writeRun();
  // Without checkpoints everything stays in the -wal file; nothing on this thread checkpoints.
  expect(statSync(file).size).toBe(sizeAtStart);
  // Runs keep ending (one every 20 ms) until the worker's checkpoint has copied the log into the file.
  const timer = setInterval(writeRun, 20);
  try {
    await until(() => statSync(file).size > 8_000_000, 30_000, "the database file to take in the log");
  } finally {
    clearInterval(timer);
  }
  const written = n;
  store.close();

  const db = new Database(file, { readonly: true });
  try {
    expect(db.prepare<[], { c: number }>("SELECT COUNT(*) AS c FROM runs WHERE status = 'ok'").get()?.c).toBe(written);
  } finally {
    db.close();
  }
}, 60_000);
