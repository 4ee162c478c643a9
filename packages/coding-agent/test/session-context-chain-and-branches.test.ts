/**
 * A SessionManager indexes a file's entries once it is read and takes the entry list itself as the path when the
 * entries are one unbranched chain. Whatever the shape of the file (a chain, a branch made later, a reopened
 * branched file, a corrupt file that repeats an id or skips a parent), its context and branch must be what the
 * general tree walk (`buildSessionContext` over the entries, `pathToRoot` by id) gives.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSessionContext, pathToRoot, type SessionEntry, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-context-paths-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function byIdOf(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const m = new Map<string, SessionEntry>();
  for (const e of entries) m.set(e.id, e);
  return m;
}

/** The manager's context and branch against the tree walk over its own entries. */
function expectSameAsTreeWalk(sm: SessionManager): void {
  const entries = sm.getEntries();
  const byId = byIdOf(entries);
  expect(sm.buildSessionContext()).toEqual(buildSessionContext(entries, sm.getLeafId(), byId));
  expect(sm.getBranch()).toEqual(pathToRoot(byId, sm.getLeafId()));
  const leaf = sm.getLeafId();
  expect(sm.getLeafEntry()).toBe(leaf === null ? undefined : byId.get(leaf));
}

const texts = (sm: SessionManager) =>
  sm.buildSessionContext().messages.map((m) => ("content" in m && typeof m.content === "string" ? m.content : "?"));

describe("session context along a chain and along branches", () => {
  it("a chain, then a branch from the middle, then reopened: each context is the tree walk's", () => {
    const sm = SessionManager.create("/p", dir);
    for (let i = 1; i <= 5; i++) sm.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
    expect(texts(sm)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
    expectSameAsTreeWalk(sm);
    const third = sm.getBranch()[2] as SessionEntry;

    sm.branch(third.id);
    sm.appendMessage({ role: "user", content: "b1", timestamp: 6 });
    expect(texts(sm)).toEqual(["m1", "m2", "m3", "b1"]);
    expectSameAsTreeWalk(sm);
    const file = sm.getSessionFile() as string;
    sm.close();

    const re = SessionManager.open(file, { readOnly: true });
    expect(texts(re)).toEqual(["m1", "m2", "m3", "b1"]);
    expectSameAsTreeWalk(re);
    // The leaf of a reopened file is its last entry; moving it back to the old branch's tip works too.
    re.branch((re.getEntries()[4] as SessionEntry).id);
    expect(texts(re)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
    expectSameAsTreeWalk(re);
    expect(re.getBranch().map((e) => e.id)).toEqual(
      re
        .getEntries()
        .slice(0, 5)
        .map((e) => e.id),
    );
  });

  it("a chain of every kind of context entry, compacted twice, reads as the tree walk does, open and reopened", () => {
    // The whole chain's context comes from what the index noted as each entry was added (the messages in order, the
    // latest compaction): it must be what the tree walk over the same entries gives, after appends and reopening.
    const sm = SessionManager.create("/p", dir);
    const ids: string[] = [];
    const say = (text: string) => ids.push(sm.appendMessage({ role: "user", content: text, timestamp: ids.length }));
    for (let i = 0; i < 5; i++) say(`m${i}`);
    sm.appendCustomMessageEntry("note", "an extension's note", true, { n: 1 });
    sm.appendCustomEntry("state", { hidden: true }); // not a context entry
    sm.branchWithSummary(sm.getLeafId(), "what the other branch did"); // at the leaf: the chain goes on
    sm.branchWithSummary(sm.getLeafId(), ""); // an empty summary contributes nothing
    sm.appendThinkingLevelChange("high");
    sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    expect(texts(sm)).toEqual(["m0", "m1", "m2", "m3", "m4", "an extension's note", "?"]);
    expectSameAsTreeWalk(sm);
    say("m5");
    sm.appendCompaction("first summary", ids[2] as string, 1000);
    say("m6");
    expectSameAsTreeWalk(sm);
    expect(sm.buildSessionContext().messages[0]?.role).toBe("compactionSummary");
    expect(texts(sm).slice(1)).toEqual(["m2", "m3", "m4", "an extension's note", "?", "m5", "m6"]);
    for (let i = 7; i < 12; i++) say(`m${i}`);
    sm.appendCompaction("second summary", ids[10] as string, 2000);
    say("m12");
    expect(texts(sm).slice(1)).toEqual(["m10", "m11", "m12"]);
    expectSameAsTreeWalk(sm);
    // A compaction whose kept entry is missing keeps only what follows it, as the tree walk does.
    sm.appendCompaction("third summary", "no-such-entry", 3000);
    say("m13");
    expect(texts(sm).slice(1)).toEqual(["m13"]);
    expectSameAsTreeWalk(sm);
    // Reopened: the same context from the file, and a branch off the chain walked by id.
    const file = sm.getSessionFile() as string;
    sm.close();
    const re = SessionManager.open(file, { readOnly: true });
    expectSameAsTreeWalk(re);
    expect(texts(re)).toEqual(texts(sm));
    const full = SessionManager.open(file, { readOnly: true });
    full.branch(ids[4] as string);
    expect(texts(full)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expectSameAsTreeWalk(full);
  });

  it("a chain's custom messages are made afresh for each context; a line without its message adds nothing", () => {
    const header = { type: "session", version: 3, id: "s-3", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
    const t = "2026-01-01T00:00:00.000Z";
    const lines = [
      { type: "message", id: "a1", parentId: null, timestamp: t, message: { role: "user", content: "one" } },
      { type: "message", id: "a2", parentId: "a1", timestamp: t }, // torn by hand: no message
      {
        type: "custom_message",
        id: "a3",
        parentId: "a2",
        timestamp: t,
        customType: "x",
        content: "two",
        display: true,
      },
      { type: "branch_summary", id: "a4", parentId: "a3", timestamp: t, fromId: "a1", summary: "three" },
      { type: "message", id: "a5", parentId: "a4", timestamp: t, message: { role: "user", content: "four" } },
    ];
    const file = join(dir, "kinds.jsonl");
    writeFileSync(file, `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`);
    const sm = SessionManager.open(file, { readOnly: true });
    expectSameAsTreeWalk(sm);
    const first = sm.buildSessionContext().messages;
    const second = sm.buildSessionContext().messages;
    expect(first.map((m) => m.role)).toEqual(["user", "custom", "branchSummary", "user"]);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).not.toBe(first[2]);
    expect(second[0]).toBe(first[0]);
    // Regression: the tree walk (any leaf but the last entry) read the message of that line and threw.
    sm.branch("a3");
    expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "custom"]);
    expectSameAsTreeWalk(sm);
  });

  it("a file that repeats an id or names a missing parent gets the tree walk's context, not the whole list", () => {
    const header = { type: "session", version: 3, id: "s-1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
    const msg = (id: string, parentId: string | null, content: string) => ({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content, timestamp: 1 },
    });
    const cases: Record<string, unknown[]> = {
      "repeated id": [msg("a", null, "one"), msg("b", "a", "two"), msg("a", "b", "three")],
      "missing parent": [msg("a", null, "one"), msg("b", "zz", "two"), msg("c", "b", "three")],
      "second root": [msg("a", null, "one"), msg("b", null, "two"), msg("c", "b", "three")],
    };
    for (const [name, lines] of Object.entries(cases)) {
      const file = join(dir, `${name.replace(" ", "-")}.jsonl`);
      writeFileSync(file, `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`);
      const sm = SessionManager.open(file, { readOnly: true });
      expectSameAsTreeWalk(sm);
      // The whole list would be one, two, three: none of these files is a chain.
      expect(texts(sm), name).not.toEqual(["one", "two", "three"]);
    }
  });

  it("two different ids of one hash do not make a chain look branched", () => {
    // abcdef01 and ABCDEF01 have the same 32-bit hash in the index's id set (the value of their hex digits): only
    // the check by id may decide.
    const header = { type: "session", version: 3, id: "s-2", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
    const lines = [
      { type: "message", id: "abcdef01", parentId: null, timestamp: "t", message: { role: "user", content: "one" } },
      {
        type: "message",
        id: "ABCDEF01",
        parentId: "abcdef01",
        timestamp: "t",
        message: { role: "user", content: "two" },
      },
    ];
    const file = join(dir, "collide.jsonl");
    writeFileSync(file, `${[header, ...lines].map((l) => JSON.stringify(l)).join("\n")}\n`);
    const sm = SessionManager.open(file);
    expect(texts(sm)).toEqual(["one", "two"]);
    expectSameAsTreeWalk(sm);
    expect(sm.getEntry("abcdef01")?.id).toBe("abcdef01");
    expect(sm.getEntry("ABCDEF01")?.id).toBe("ABCDEF01");
    // Appends draw ids the set says are free; the chain goes on.
    for (let i = 0; i < 50; i++) sm.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
    expect(new Set(sm.getEntries().map((e) => e.id)).size).toBe(52);
    expect(texts(sm)).toHaveLength(52);
    expectSameAsTreeWalk(sm);
    sm.close();
  });

  it("appending after reopening a chain keeps it a chain; after branch() it is walked", () => {
    const sm = SessionManager.create("/p", dir);
    for (let i = 1; i <= 3; i++) sm.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
    const file = sm.getSessionFile() as string;
    sm.close();
    const re = SessionManager.open(file);
    re.appendMessage({ role: "user", content: "m4", timestamp: 4 });
    expect(texts(re)).toEqual(["m1", "m2", "m3", "m4"]);
    expectSameAsTreeWalk(re);
    re.resetLeaf();
    re.appendMessage({ role: "user", content: "root2", timestamp: 5 });
    expect(texts(re)).toEqual(["root2"]);
    expectSameAsTreeWalk(re);
    re.close();
  });
});
