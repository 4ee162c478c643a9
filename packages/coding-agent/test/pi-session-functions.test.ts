/**
 * pi's session API on Tiller: the free functions over raw entries and the SessionManager behaviours that issue 13
 * aligned with pi (createBranchedSession, labels in the tree, "Entry X not found"). Each is run through pi's
 * implementation on the same file where pi's result is right.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  clearSessionCache,
  type FileEntry,
  findMostRecentSession,
  getLatestCompactionEntry,
  loadEntriesFromFile,
  migrateSessionEntries,
  parseSessionEntries,
  SessionManager,
  type SessionTreeNode,
} from "../src/index.js";

// loadEntriesFromFile and findMostRecentSession are not on pi's index: load them from pi's module file.
const piModule = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js",
);
const piSession = (await import(pathToFileURL(piModule).href)) as {
  loadEntriesFromFile(path: string): FileEntry[];
  findMostRecentSession(dir: string): string | null;
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-pi-session-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const usage = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-completions",
  provider: "openai",
  model: "gpt-x",
  usage,
  stopReason: "stop",
  timestamp: 2,
});
const lines = (entries: unknown[]) => `${entries.map((e) => JSON.stringify(e)).join("\n")}\n`;
const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" };

describe("parseSessionEntries / loadEntriesFromFile", () => {
  it("parse every JSON line and skip malformed ones, as pi does", () => {
    const text = `${JSON.stringify(header)}\n{"type":"message","id":"a"}\nnot json\n\n{"type":"label","id":"b"}`;
    expect(parseSessionEntries(text)).toEqual(pi.parseSessionEntries(text));
    expect(parseSessionEntries(text).map((e) => e.type)).toEqual(["session", "message", "label"]);
  });

  it("load a session file with its header first, and [] for a missing, empty or header-less file", () => {
    const file = join(dir, "s.jsonl");
    const entries = [header, { type: "message", id: "a1", parentId: null, timestamp: "t", message: user("hi") }];
    writeFileSync(file, lines(entries));
    expect(loadEntriesFromFile(file)).toEqual(entries);
    expect(loadEntriesFromFile(file)).toEqual(piSession.loadEntriesFromFile(file));
    expect(loadEntriesFromFile(join(dir, "missing.jsonl"))).toEqual([]);
    writeFileSync(join(dir, "empty.jsonl"), "");
    expect(loadEntriesFromFile(join(dir, "empty.jsonl"))).toEqual([]);
    writeFileSync(join(dir, "bad.jsonl"), lines([{ type: "message", id: "x" }]));
    expect(loadEntriesFromFile(join(dir, "bad.jsonl"))).toEqual(piSession.loadEntriesFromFile(join(dir, "bad.jsonl")));
    expect(loadEntriesFromFile(join(dir, "bad.jsonl"))).toEqual([]);
  });
});

describe("migrateSessionEntries", () => {
  it("gives v1 entries ids and parents, maps a compaction's firstKeptEntryIndex, and renames hookMessage", () => {
    const v1 = (): FileEntry[] =>
      JSON.parse(
        JSON.stringify([
          { type: "session", id: "old", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" },
          { type: "message", timestamp: "t1", message: user("one") },
          { type: "message", timestamp: "t2", message: assistant("two") },
          { type: "message", timestamp: "t3", message: { role: "hookMessage", content: "h", timestamp: 3 } },
          { type: "compaction", timestamp: "t4", summary: "sum", firstKeptEntryIndex: 2, tokensBefore: 9 },
        ]),
      );
    const ours = v1();
    const theirs = v1();
    migrateSessionEntries(ours);
    pi.migrateSessionEntries(theirs as never);
    // Ids are random: compare links as positions.
    const shape = (es: FileEntry[]) =>
      es.map((e) => {
        const { id: _id, parentId, firstKeptEntryId, ...rest } = e as unknown as Record<string, unknown>;
        const at = (id: unknown) => es.findIndex((x) => (x as { id?: unknown }).id === id);
        return {
          ...rest,
          ...(parentId !== undefined ? { parent: parentId === null ? null : at(parentId) } : {}),
          ...(firstKeptEntryId !== undefined ? { firstKept: at(firstKeptEntryId) } : {}),
        };
      });
    expect(shape(ours)).toEqual(shape(theirs as FileEntry[]));
    expect((ours[0] as { version?: number }).version).toBe(3);
    const [, a, b, c, d] = ours as Array<{ id: string; parentId: string | null }>;
    expect(a?.parentId).toBeNull();
    expect(b?.parentId).toBe(a?.id);
    expect(c?.parentId).toBe(b?.id);
    expect(d?.parentId).toBe(c?.id);
    expect((d as unknown as { firstKeptEntryId: string }).firstKeptEntryId).toBe(b?.id);
    expect((c as unknown as { message: { role: string } }).message.role).toBe("custom");
  });

  it("leaves current entries untouched", () => {
    const entries: FileEntry[] = [
      header as FileEntry,
      { type: "label", id: "x", parentId: null, timestamp: "t", targetId: "y", label: "l" },
    ];
    const before = JSON.stringify(entries);
    migrateSessionEntries(entries);
    expect(JSON.stringify(entries)).toBe(before);
  });
});

describe("findMostRecentSession", () => {
  it("returns the newest valid session file by modification time, or null", () => {
    expect(findMostRecentSession(join(dir, "nope"))).toBeNull();
    expect(findMostRecentSession(join(dir, "nope"))).toBe(piSession.findMostRecentSession(join(dir, "nope")));
    const older = join(dir, "a.jsonl");
    const newer = join(dir, "b.jsonl");
    writeFileSync(older, lines([header]));
    writeFileSync(newer, lines([{ ...header, id: "s2" }]));
    writeFileSync(join(dir, "c.jsonl"), "garbage\n");
    utimesSync(older, new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    utimesSync(newer, new Date(1_000_000_000_000), new Date(1_000_000_000_000));
    expect(findMostRecentSession(dir)).toBe(older);
    expect(findMostRecentSession(dir)).toBe(piSession.findMostRecentSession(dir));
  });
});

/** Builds the same branched, labelled session with either manager. */
function build(sm: {
  appendMessage(m: never): string;
  appendLabelChange(id: string, label: string | undefined): string;
  branch(id: string): void;
}) {
  const u1 = sm.appendMessage(user("first") as never);
  const a1 = sm.appendMessage(assistant("answer") as never);
  sm.appendLabelChange(u1, "start");
  sm.appendLabelChange(a1, "good");
  sm.appendLabelChange(a1, "better");
  const u2 = sm.appendMessage(user("second") as never);
  sm.branch(a1);
  const u3 = sm.appendMessage(user("other branch") as never);
  return { u1, a1, u2, u3 };
}

function labelsOf(nodes: SessionTreeNode[], out: Record<string, [string | undefined, string | undefined]> = {}) {
  for (const n of nodes) {
    if (n.label !== undefined) out[n.entry.id] = [n.label, n.labelTimestamp];
    labelsOf(n.children, out);
  }
  return out;
}

describe("SessionManager, pi's behaviours", () => {
  it("tree nodes carry label and labelTimestamp exactly as pi reads them from the same file", () => {
    const sm = SessionManager.create(dir, dir);
    const ids = build(sm);
    const file = sm.getSessionFile() as string;
    sm.close();
    const ours = labelsOf(SessionManager.open(file, { readOnly: true }).getTree());
    const theirs = labelsOf(pi.SessionManager.open(file, dir).getTree() as never);
    expect(ours).toEqual(theirs);
    expect(ours[ids.a1]?.[0]).toBe("better");
    expect(ours[ids.u1]?.[0]).toBe("start");
    expect(typeof ours[ids.a1]?.[1]).toBe("string");
  });

  it("fails with pi's message for an unknown entry in branch, branchWithSummary, appendLabelChange, createBranchedSession", () => {
    const sm = SessionManager.inMemory(dir);
    const p = pi.SessionManager.inMemory(dir);
    sm.appendMessage(user("x"));
    p.appendMessage(user("x") as never);
    const calls: Array<(m: SessionManager | pi.SessionManager) => unknown> = [
      (m) => m.branch("nope"),
      (m) => m.branchWithSummary("nope", "s"),
      (m) => m.appendLabelChange("nope", "l"),
      (m) => m.createBranchedSession("nope"),
    ];
    for (const call of calls) {
      expect(() => call(sm)).toThrow("Entry nope not found");
      expect(() => call(p)).toThrow("Entry nope not found");
    }
    expect(sm.getEntries()).toHaveLength(1);
  });

  it("createBranchedSession keeps the path, carries its labels over and writes the file at once when answered", () => {
    const sm = SessionManager.create(dir, dir);
    const ids = build(sm);
    const source = sm.getSessionFile() as string;
    const file = sm.createBranchedSession(ids.u3) as string;
    expect(file).not.toBe(source);
    expect(existsSync(file)).toBe(true);
    const written = loadEntriesFromFile(file);
    expect((written[0] as { parentSession?: string }).parentSession).toBe(source);
    const kept = written.filter((e) => e.type === "message").map((e) => e.id);
    expect(kept).toEqual([ids.u1, ids.a1, ids.u3]);
    const labels = written.filter((e) => e.type === "label") as Array<{ targetId: string; label: string }>;
    expect(labels.map((l) => `${l.targetId}=${l.label}`).sort()).toEqual(
      [`${ids.a1}=better`, `${ids.u1}=start`].sort(),
    );
    sm.close();

    // pi forks the same source file the same way.
    const piSm = pi.SessionManager.open(source, dir);
    const piFile = piSm.createBranchedSession(ids.u3) as string;
    const piWritten = piSession.loadEntriesFromFile(piFile);
    const view = (es: FileEntry[]) =>
      es
        .filter((e) => e.type !== "session")
        .map((e) =>
          e.type === "label"
            ? ["label", (e as { targetId: string }).targetId, (e as { label: string }).label]
            : [e.type, e.id],
        );
    expect(view(written).sort()).toEqual(view(piWritten as FileEntry[]).sort());
    expect(labelsOf(SessionManager.open(file, { readOnly: true }).getTree())).toEqual(
      labelsOf(pi.SessionManager.open(file, dir).getTree() as never),
    );
  });

  it("createBranchedSession of a path without an answer writes nothing until the next append", () => {
    const sm = SessionManager.create(dir, dir);
    const u1 = sm.appendMessage(user("only a question"));
    sm.appendMessage(assistant("reply"));
    const file = sm.createBranchedSession(u1) as string;
    expect(existsSync(file)).toBe(false);
    const u2 = sm.appendMessage(user("follow-up"));
    const entries = loadEntriesFromFile(file);
    expect(entries.filter((e) => e.type === "message").map((e) => e.id)).toEqual([u1, u2]);
    expect(readFileSync(file, "utf8").split("\n").filter(Boolean)).toHaveLength(3);
    sm.close();
  });

  it("getLatestCompactionEntry returns null when there is none, as pi does", () => {
    expect(getLatestCompactionEntry([])).toBeNull();
    expect(pi.getLatestCompactionEntry([])).toBeNull();
  });
});
