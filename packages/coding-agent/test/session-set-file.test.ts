/**
 * `SessionManager.setSessionFile` (pi's resume switch): the manager moves to another session file, reads it as
 * pi does and appends there; a missing path starts a fresh session written at that path; a file that is no
 * session is refused and the current session stays usable (pi would truncate it).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearSessionCache, SessionFileError, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-setfile-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1000 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-x",
  usage: {
    input: 1,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 2,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: 2000,
});
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; id: string });

/** A session file written by pi with a label and a name, two turns long. */
function piSession(name: string): string {
  const pi = PiSessionManager.create("/work/proj", join(dir, name));
  const first = pi.appendMessage(user("hello"));
  pi.appendMessage(assistant("hi"));
  pi.appendLabelChange(first, "start");
  pi.appendSessionInfo("resumed one");
  pi.appendMessage(user("more"));
  pi.appendMessage(assistant("sure"));
  return pi.getSessionFile() as string;
}

describe("SessionManager.setSessionFile", () => {
  it("switches to an existing session as pi does, then appends to that file", () => {
    const source = piSession("src");
    const forPi = join(dir, "pi-copy.jsonl");
    const forUs = join(dir, "our-copy.jsonl");
    copyFileSync(source, forPi);
    copyFileSync(source, forUs);

    const pi = PiSessionManager.create("/work/other", join(dir, "pi-home"));
    pi.appendMessage(user("before the switch"));
    pi.setSessionFile(forPi);
    const sm = SessionManager.create("/work/other", join(dir, "our-home"));
    sm.appendMessage(user("before the switch"));
    const before = sm.getSessionFile() as string;
    sm.setSessionFile(forUs);

    expect(sm.getSessionFile()).toBe(forUs);
    expect(sm.getSessionId()).toBe(pi.getSessionId());
    expect(sm.getEntries()).toEqual(JSON.parse(JSON.stringify(pi.getEntries())));
    expect(sm.getLeafId()).toBe(pi.getLeafId());
    expect(sm.getSessionName()).toBe("resumed one");
    expect(sm.getLabel(sm.getEntries()[0]?.id as string)).toBe("start");
    expect(sm.buildSessionContext().messages).toEqual(JSON.parse(JSON.stringify(pi.buildSessionContext().messages)));

    pi.appendMessage(user("after"));
    const id = sm.appendMessage(user("after"));
    sm.close();
    expect(lines(forUs).map((e) => e.type)).toEqual(lines(forPi).map((e) => e.type));
    expect(lines(forUs).at(-1)?.id).toBe(id);
    // The session left behind keeps what it had; nothing of the new one went there.
    expect(lines(before).map((e) => e.type)).toEqual(["session", "message"]);
    expect(SessionManager.open(forUs).buildSessionContext().messages.at(-1)).toMatchObject({ content: "after" });
  });

  it("starts a fresh session at a missing path, written there on the first append", () => {
    const target = join(dir, "named.jsonl");
    const pi = PiSessionManager.create("/work/proj", join(dir, "pi-home"));
    const piTarget = join(dir, "pi-named.jsonl");
    const piOldId = pi.getSessionId();
    pi.setSessionFile(piTarget);
    const sm = SessionManager.create("/work/proj", join(dir, "our-home"));
    const oldId = sm.getSessionId();
    sm.appendMessage(user("kept"));
    sm.setSessionFile(target);

    expect(pi.getSessionId()).not.toBe(piOldId);
    expect(sm.getSessionId()).not.toBe(oldId);
    expect(sm.getSessionFile()).toBe(target);
    expect(pi.getSessionFile()).toBe(piTarget);
    expect(sm.getEntries()).toEqual(pi.getEntries());
    expect(existsSync(target)).toBe(false);

    for (const m of [user("q"), assistant("a")]) {
      pi.appendMessage(m);
      sm.appendMessage(m);
    }
    sm.close();
    const ours = lines(target);
    expect(ours.map((e) => e.type)).toEqual(lines(piTarget).map((e) => e.type));
    expect(ours[0]).toMatchObject({ type: "session", id: sm.getSessionId(), cwd: "/work/proj" });
  });

  it("refuses a file that is not a session and keeps the current session writable", () => {
    const bad = join(dir, "notes.jsonl");
    writeFileSync(bad, '{"hello":"world"}\n');
    const sm = SessionManager.create("/work/proj", join(dir, "our-home"));
    sm.appendMessage(user("one"));
    const current = sm.getSessionFile() as string;
    expect(() => sm.setSessionFile(bad)).toThrow(SessionFileError);
    expect(readFileSync(bad, "utf8")).toBe('{"hello":"world"}\n');
    expect(sm.getSessionFile()).toBe(current);
    sm.appendMessage(user("two"));
    sm.close();
    expect(lines(current).map((e) => e.type)).toEqual(["session", "message", "message"]);
  });

  it("switching to the file it already holds re-reads it and keeps writing", () => {
    const sm = SessionManager.create("/work/proj", join(dir, "our-home"));
    sm.appendMessage(user("one"));
    const file = sm.getSessionFile() as string;
    sm.setSessionFile(file);
    expect(sm.getEntries()).toHaveLength(1);
    sm.appendMessage(user("two"));
    sm.close();
    expect(lines(file).map((e) => e.type)).toEqual(["session", "message", "message"]);
  });
});
