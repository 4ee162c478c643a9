/**
 * pi's listing fields `messageCount` and `allMessagesText` on Tiller's SessionInfo: the same values pi's listing
 * gives for the same files, even for text far past the head and tail Tiller's listing reads; read only when
 * asked (a serialized listing leaves them out, so listing stays a head-and-tail read).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import type { AssistantMessage, UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-list-fields-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: Date.now() });
const assistant = (text: string): AssistantMessage => ({
  role: "assistant",
  content: [
    { type: "text", text },
    { type: "text", text: "second block" },
  ],
  api: "openai-completions",
  provider: "openai",
  model: "m",
  usage: {
    input: 1,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 2,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: Date.now(),
});

describe("SessionInfo.messageCount / allMessagesText", () => {
  it("match pi's listing, including messages in the middle of a large file", async () => {
    const big = SessionManager.create("/p", dir);
    big.appendMessage(user("first question"));
    // ~200 KB of turns: the middle is far outside the 16 KB head and tail.
    for (let i = 0; i < 100; i++) {
      big.appendMessage(user(`middle ${i} ${"x".repeat(1000)}`));
      big.appendMessage(assistant(`answer ${i}`));
    }
    big.appendSessionInfo("named");
    big.appendMessage(user("last question"));
    big.close();
    const small = SessionManager.create("/p", dir);
    small.appendMessage(user("only one"));
    small.close();

    const ours = SessionManager.list("/p", dir);
    const pi = await PiSessionManager.list("/p", dir);
    expect(ours).toHaveLength(2);
    // Not part of the listing's own data: serializing it reads no file.
    expect(JSON.stringify(ours)).not.toContain("allMessagesText");
    for (const info of ours) {
      const theirs = pi.find((p) => p.id === info.id);
      expect(theirs, info.path).toBeDefined();
      expect(info.messageCount).toBe(theirs?.messageCount);
      expect(info.allMessagesText).toBe(theirs?.allMessagesText);
    }
    const bigInfo = ours.find((i) => i.name === "named");
    expect(bigInfo?.messageCount).toBe(202);
    expect(bigInfo?.allMessagesText).toContain("middle 50 ");
    expect(bigInfo?.allMessagesText).toContain("answer 50 second block");
  });
});
