import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearSessionCache, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-picompat-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const usage = {
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1000 });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-x",
  usage,
  stopReason: "stop",
  timestamp: 2000,
});
const toolCall: AssistantMessage = {
  ...assistant(""),
  content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "a.txt" } }],
  stopReason: "toolUse",
};
const toolResult: ToolResultMessage = {
  role: "toolResult",
  toolCallId: "t1",
  toolName: "read",
  content: [{ type: "text", text: "file body" }],
  isError: false,
  timestamp: 3000,
};

/** Same conversation, driven through either manager's (shared) append API. */
function script(sm: {
  appendMessage(m: never): string;
  appendThinkingLevelChange(l: string): string;
  appendModelChange(p: string, m: string): string;
  appendCompaction(s: string, first: string, tokens: number, details?: unknown): string;
  appendCustomEntry(t: string, d?: unknown): string;
  appendCustomMessageEntry(t: string, c: string, display: boolean): string;
  appendLabelChange(id: string, label: string | undefined): string;
  appendSessionInfo(name: string): string;
  branchWithSummary(id: string | null, summary: string): string;
}): void {
  const u1 = sm.appendMessage(user("read a.txt") as never);
  sm.appendThinkingLevelChange("high");
  sm.appendMessage(toolCall as never);
  sm.appendMessage(toolResult as never);
  const a1 = sm.appendMessage(assistant("done") as never);
  const u2 = sm.appendMessage(user("next") as never);
  sm.appendMessage(assistant("ok") as never);
  sm.appendCompaction("## Goal\nread files", u2, 5000, { readFiles: ["a.txt"], modifiedFiles: [] });
  sm.appendModelChange("openai", "gpt-5");
  sm.appendCustomEntry("ext-state", { count: 2 });
  sm.appendCustomMessageEntry("reminder", "remember the tests", true);
  sm.appendLabelChange(u1, "start");
  sm.appendSessionInfo("compat session");
  sm.branchWithSummary(a1, "tried something else");
  sm.appendMessage(user("on the branch") as never);
  sm.appendMessage(assistant("branch reply") as never);
}

describe("format compatibility with pi-coding-agent 0.73.1", () => {
  it("opens a pi-written session: same entries, same context, then appends so pi still reads it", () => {
    const pi = PiSessionManager.create("/work/proj", dir);
    script(pi as never);
    const piFile = pi.getSessionFile() as string;
    const piContext = pi.buildSessionContext();

    const sm = SessionManager.open(piFile);
    expect(sm.getSessionId()).toBe(pi.getSessionId());
    expect(sm.getEntries()).toEqual(JSON.parse(JSON.stringify(pi.getEntries())));
    expect(sm.getLeafId()).toBe(pi.getLeafId());
    const ours = sm.buildSessionContext();
    expect(ours.model).toEqual(piContext.model);
    expect(ours.thinkingLevel).toBe(piContext.thinkingLevel);
    expect(ours.messages).toEqual(JSON.parse(JSON.stringify(piContext.messages)));
    expect(sm.getLabel(sm.getEntries()[0]?.id as string)).toBe("start");
    expect(sm.getSessionName()).toBe("compat session");

    sm.appendMessage(user("tiller was here"));
    sm.close();
    const piAgain = PiSessionManager.open(piFile);
    const last = piAgain.buildSessionContext().messages.at(-1) as UserMessage;
    expect(last.content).toBe("tiller was here");
  });

  it("pi opens a Tiller-written session with the same entries and context", () => {
    const sm = SessionManager.create("/work/proj", dir);
    script(sm as never);
    const file = sm.getSessionFile() as string;
    const ours = sm.buildSessionContext();
    sm.close();

    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string);
    expect(header).toMatchObject({ type: "session", version: 3, cwd: "/work/proj" });

    const pi = PiSessionManager.open(file);
    expect(pi.getSessionId()).toBe(sm.getSessionId());
    expect(pi.getEntries()).toEqual(JSON.parse(JSON.stringify(sm.getEntries())));
    const piContext = pi.buildSessionContext();
    expect(piContext.model).toEqual(ours.model);
    expect(piContext.thinkingLevel).toBe(ours.thinkingLevel);
    expect(JSON.parse(JSON.stringify(piContext.messages))).toEqual(JSON.parse(JSON.stringify(ours.messages)));
    expect(pi.getSessionName()).toBe("compat session");

    // pi's listing finds it too.
    return PiSessionManager.list("/work/proj", dir).then((list) => {
      expect(list.map((s) => s.id)).toContain(sm.getSessionId());
    });
  });
});
