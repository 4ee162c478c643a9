/**
 * `SessionTail.walk` reads the context at the leaf from the end of the file and agrees with the whole-file
 * context (`SessionManager.buildSessionContext`) on the cases a tail walk can get wrong: branches written through
 * `branch()` (abandoned entries between a child and its parent), a line longer than a read chunk, a complete last
 * line without a newline (the leaf) and a torn one (skipped), compactions whose first kept entry is or is not on
 * the branch, and resuming from any step's position.
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import { afterAll, describe, expect, it } from "vitest";
import { BranchPositionError, type BranchStep, readSessionInfo, SessionManager, SessionTail } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "tiller-tail-walk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

/** The context messages from the whole file, without the compaction summary (the walk yields entries only). */
function wholeContext(file: string): AgentMessage[] {
  const sm = SessionManager.open(file, { readOnly: true, onWarning: () => {} });
  try {
    return sm.buildSessionContext().messages.filter((m) => m.role !== "compactionSummary");
  } finally {
    sm.close();
  }
}

function walkAll(file: string): BranchStep[] {
  const tail = SessionTail.open(file);
  try {
    const steps: BranchStep[] = [];
    expect(tail.walk(undefined, (s) => steps.push(s) > 0)).toBe(true);
    return steps;
  } finally {
    tail.close();
  }
}

function newSession(name: string): SessionManager {
  const sm = SessionManager.create(dir, { sessionDir: join(dir, name) });
  return sm;
}

describe("SessionTail.walk", () => {
  it("follows the leaf's branch past abandoned entries and a line longer than a chunk; resumes anywhere", () => {
    const sm = newSession("branches");
    sm.appendMessage(user("one"));
    const fork = sm.appendMessage(user("two"));
    sm.appendMessage(user("abandoned"));
    sm.appendMessage(user("x".repeat(300 * 1024)));
    sm.branch(fork);
    sm.appendMessage(user(`big ${"y".repeat(200 * 1024)}`));
    for (let i = 0; i < 50; i++) sm.appendMessage(user(`after ${i}`));
    const file = sm.getSessionFile() as string;
    sm.close();

    const want = wholeContext(file);
    const steps = walkAll(file);
    expect(steps.map((s) => s.message).reverse()).toEqual(want);
    // Every step's position continues with exactly the older messages.
    const tail = SessionTail.open(file);
    try {
      for (const [i, s] of steps.entries()) {
        const rest: AgentMessage[] = [];
        tail.walk(s.resume, (x) => rest.push(x.message) > 0);
        expect(rest).toEqual(steps.slice(i + 1).map((x) => x.message));
      }
      expect(() => tail.walk({ offset: 3, nextId: null }, () => true)).toThrow(BranchPositionError);
      expect(() => tail.walk({ offset: tail.size + 10, nextId: null }, () => true)).toThrow(BranchPositionError);
    } finally {
      tail.close();
    }
  });

  it("takes a complete unterminated last line as the leaf and skips a torn one", () => {
    const sm = newSession("torn");
    sm.appendMessage(user("a"));
    const b = sm.appendMessage(user("b"));
    const file = sm.getSessionFile() as string;
    sm.close();
    appendFileSync(
      file,
      JSON.stringify({
        type: "message",
        id: "abcdef01",
        parentId: b,
        timestamp: new Date().toISOString(),
        message: user("c"),
      }),
    );
    expect(walkAll(file).map((s) => s.message.role === "user" && s.message.content)).toEqual(["c", "b", "a"]);
    appendFileSync(file, '\n{"type":"message","id":"abcdef02","parentId":"abcdef01","message":{"ro');
    expect(walkAll(file).map((s) => s.message.role === "user" && s.message.content)).toEqual(["c", "b", "a"]);
    expect(
      walkAll(file)
        .map((s) => s.message)
        .reverse(),
    ).toEqual(wholeContext(file));
  });

  it("behind the latest compaction: from its first kept entry when on the branch, else nothing older", () => {
    const sm = newSession("compacted");
    for (let i = 0; i < 5; i++) sm.appendMessage(user(`old ${i}`));
    const kept = sm.appendMessage(user("kept"));
    sm.appendMessage(user("kept 2"));
    sm.appendCompaction("summary 1", kept, 100);
    sm.appendMessage(user("new"));
    const file = sm.getSessionFile() as string;
    expect(
      walkAll(file)
        .map((s) => s.message)
        .reverse(),
    ).toEqual(wholeContext(file));
    expect(walkAll(file)).toHaveLength(3);
    // A second compaction naming an entry that is not on the branch: only what follows it is context.
    sm.appendCompaction("summary 2", "00000000", 100);
    sm.appendMessage(user("newest"));
    sm.close();
    expect(walkAll(file).map((s) => s.message)).toEqual(wholeContext(file));
    expect(walkAll(file)).toHaveLength(1);
  });

  it("the listing takes a long file's latest name from its tail, through the same backward reader", () => {
    const sm = newSession("listing");
    sm.appendMessage(user("the question"));
    sm.appendSessionInfo("first name");
    for (let i = 0; i < 200; i++) sm.appendMessage(user(`filler ${i} ${"z".repeat(300)}`));
    sm.appendSessionInfo("latest name");
    sm.appendMessage(user("w".repeat(40 * 1024))); // one line longer than the tail read, ending the file
    sm.appendSessionInfo("final name");
    const file = sm.getSessionFile() as string;
    sm.close();
    expect(readSessionInfo(file, { headBytes: 4096, tailBytes: 8192 })).toMatchObject({
      name: "final name",
      firstMessage: "the question",
    });
  });
});
