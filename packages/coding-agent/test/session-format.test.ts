import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearSessionCache, type SessionEntry, SessionManager, sessionCacheStats } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-session-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "faux",
  provider: "faux",
  model: "m1",
  usage: {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: 2,
});

function lines(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("session file format v3", () => {
  it("round-trips every entry type through the file", () => {
    const sm = SessionManager.create("/work/proj", dir);
    const u = sm.appendMessage(user("hello"));
    sm.appendMessage(assistant("hi"));
    sm.appendThinkingLevelChange("high");
    sm.appendModelChange("openai", "gpt-5");
    sm.appendCompaction("summary text", u, 1234, { readFiles: ["a.ts"], modifiedFiles: [] });
    sm.appendCustomEntry("ext", { n: 1 });
    sm.appendCustomMessageEntry("note", "injected", true, { k: "v" });
    sm.appendLabelChange(u, "start");
    sm.appendSessionInfo("My session");
    const summaryId = sm.branchWithSummary(u, "abandoned work");
    const file = sm.getSessionFile() as string;
    const written = sm.getEntries();
    sm.close();

    const raw = lines(file);
    expect(raw[0]).toMatchObject({ type: "session", version: 3, cwd: "/work/proj", id: sm.getSessionId() });
    expect(raw.slice(1)).toEqual(JSON.parse(JSON.stringify(written)));
    for (const e of raw.slice(1) as SessionEntry[]) {
      expect(e.id).toMatch(/^[0-9a-f]{8}$/);
      expect(typeof e.timestamp).toBe("string");
    }
    expect(new Set((raw.slice(1) as SessionEntry[]).map((e) => e.type))).toEqual(
      new Set([
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "branch_summary",
      ]),
    );

    const reopened = SessionManager.open(file);
    expect(reopened.getEntries()).toEqual(JSON.parse(JSON.stringify(written)));
    expect(reopened.getLeafId()).toBe(summaryId);
    expect(reopened.getLabel(u)).toBe("start");
    expect(reopened.getSessionName()).toBe("My session");
    reopened.close();
  });

  it("writes nothing until the first entry, then the header and the entry together", () => {
    const sm = SessionManager.create("/p", dir);
    const file = sm.getSessionFile() as string;
    expect(() => readFileSync(file)).toThrow();
    sm.appendMessage(user("x"));
    const raw = lines(file);
    expect(raw).toHaveLength(2);
    sm.close();
  });

  it("builds the context of the current branch only, applying the latest compaction on it", () => {
    const sm = SessionManager.inMemory("/p");
    const u1 = sm.appendMessage(user("u1"));
    sm.appendMessage(assistant("a1"));
    const u2 = sm.appendMessage(user("u2"));
    sm.appendMessage(assistant("a2"));
    sm.appendCompaction("S1", u2, 100);
    sm.appendMessage(user("u3"));
    const leafA = sm.appendMessage(assistant("a3"));

    const ctxA = sm.buildSessionContext();
    expect(ctxA.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant", "user", "assistant"]);
    expect((ctxA.messages[1] as UserMessage).content).toBe("u2");
    expect(ctxA.model).toEqual({ provider: "faux", modelId: "m1" });

    // Branch from the first user message: no compaction on that path.
    sm.branch(u1);
    sm.appendThinkingLevelChange("low");
    sm.appendMessage(assistant("b1"));
    const ctxB = sm.buildSessionContext();
    expect(
      ctxB.messages.map((m) => (m.role === "assistant" ? (m.content[0] as { text: string }).text : m.role)),
    ).toEqual(["user", "b1"]);
    expect(ctxB.thinkingLevel).toBe("low");

    // The old leaf is still there and its context unchanged.
    sm.branch(leafA);
    expect(sm.buildSessionContext().messages).toHaveLength(5);
    expect(sm.getTree()).toHaveLength(1);
    expect(sm.getChildren(u1)).toHaveLength(2);

    sm.resetLeaf();
    expect(sm.buildSessionContext().messages).toEqual([]);
  });

  it("forks a branch into a new file that names its parent, and keeps writing to the fork", () => {
    const sm = SessionManager.create("/p", dir);
    sm.appendMessage(user("u1"));
    const a1 = sm.appendMessage(assistant("a1"));
    sm.appendMessage(user("u2-abandoned"));
    const parentFile = sm.getSessionFile() as string;
    const forkFile = sm.createBranchedSession(a1) as string;
    expect(forkFile).not.toBe(parentFile);
    sm.appendMessage(user("u2-fork"));
    sm.close();
    const fork = lines(forkFile) as { type: string; parentSession?: string; message?: UserMessage }[];
    expect(fork[0]).toMatchObject({ type: "session", parentSession: parentFile });
    expect(fork.slice(1).map((e) => (e.message as UserMessage).content)).toEqual([
      "u1",
      [{ type: "text", text: "a1" }],
      "u2-fork",
    ]);
    expect(lines(parentFile)).toHaveLength(4);
  });

  it("skips a torn last line with a warning, and the next append starts on a fresh line", () => {
    const sm = SessionManager.create("/p", dir);
    sm.appendMessage(user("u1"));
    sm.appendMessage(assistant("a1"));
    const file = sm.getSessionFile() as string;
    sm.close();
    appendFileSync(file, '{"type":"message","id":"deadbeef","parentId":null,"timestamp":"x","message":{"role":"us');

    const warnings: string[] = [];
    const again = SessionManager.open(file, { onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/torn last line/);
    expect(again.buildSessionContext().messages).toHaveLength(2);
    again.appendMessage(user("u2"));
    again.close();

    const third = SessionManager.open(file, { onWarning: () => {} });
    expect(third.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(third.getWarnings()[0]).toMatch(/malformed line 4/);
    third.close();
  });

  it("rejects a file that is not a session with a clear error", () => {
    const bad = join(dir, "x.jsonl");
    writeFileSync(bad, '{"hello":1}\n');
    expect(() => SessionManager.open(bad)).toThrow(/not a session file/);
    writeFileSync(bad, "");
    expect(() => SessionManager.open(bad)).toThrow(/no session header/);
  });

  it("reopening an unchanged file hits the cache; a grown file is parsed from where the cache stopped", () => {
    const sm = SessionManager.create("/p", dir);
    for (let i = 0; i < 50; i++) sm.appendMessage(user(`m${i}`));
    const file = sm.getSessionFile() as string;
    sm.close();
    const before = { ...sessionCacheStats };
    const a = SessionManager.open(file, { readOnly: true });
    expect(sessionCacheStats.hits).toBe(before.hits + 1);
    expect(a.getEntries()).toHaveLength(50);
    appendFileSync(
      file,
      `${JSON.stringify({ type: "custom", id: "0000abcd", parentId: a.getLeafId(), timestamp: "t", customType: "x" })}\n`,
    );
    const b = SessionManager.open(file, { readOnly: true });
    expect(sessionCacheStats.partialHits).toBe(before.partialHits + 1);
    expect(b.getEntries()).toHaveLength(51);
    expect(b.getLeafId()).toBe("0000abcd");
  });

  it("migrates a version 1 file (no ids) to version 3 on open", () => {
    const old = join(dir, "old.jsonl");
    writeFileSync(
      old,
      [
        { type: "session", id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" },
        { type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: user("old") },
        { type: "message", timestamp: "2025-01-01T00:00:02.000Z", message: assistant("reply") },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
    const sm = SessionManager.open(old);
    expect(sm.buildSessionContext().messages).toHaveLength(2);
    sm.appendMessage(user("new"));
    sm.close();
    const raw = lines(old) as SessionEntry[];
    expect(raw[0]).toMatchObject({ version: 3 });
    expect(raw[3]?.parentId).toBe(raw[2]?.id);
  });

  it("lists sessions newest first from their heads, with name and first message", () => {
    const a = SessionManager.create("/p", dir);
    a.appendMessage(user("first question"));
    a.appendSessionInfo("named");
    a.close();
    const b = SessionManager.create("/p", dir);
    b.appendMessage(user("second"));
    b.close();
    const list = SessionManager.list("/p", dir);
    expect(list.map((s) => s.id).sort()).toEqual([a.getSessionId(), b.getSessionId()].sort());
    const infoA = list.find((s) => s.id === a.getSessionId());
    expect(infoA).toMatchObject({ name: "named", firstMessage: "first question", cwd: "/p" });
  });

  it("continueRecent reopens the newest session of the directory, or creates one; listAll spans directories", () => {
    const home = join(dir, "home");
    const fresh = SessionManager.continueRecent("/a", { home });
    expect(fresh.getEntries()).toEqual([]);
    fresh.appendMessage(user("in a"));
    fresh.close();
    const other = SessionManager.create("/b", { home });
    other.appendMessage(user("in b"));
    other.close();
    const again = SessionManager.continueRecent("/a", { home });
    expect(again.getSessionId()).toBe(fresh.getSessionId());
    expect(again.getSessionFile()).toContain(join("sessions", "--a--"));
    again.close();
    expect(
      SessionManager.listAll(home)
        .map((s) => s.firstMessage)
        .sort(),
    ).toEqual(["in a", "in b"]);
  });

  it("tool results keep their pairing through a round trip", () => {
    const sm = SessionManager.create("/p", dir);
    const call: AssistantMessage = {
      ...assistant(""),
      content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }],
      stopReason: "toolUse",
    };
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: "data" }],
      isError: false,
      timestamp: 3,
    };
    sm.appendMessage(user("go"));
    sm.appendMessage(call);
    sm.appendMessage(result);
    const file = sm.getSessionFile() as string;
    sm.close();
    expect(SessionManager.open(file, { readOnly: true }).buildSessionContext().messages).toEqual([
      user("go"),
      call,
      result,
    ]);
  });
});
