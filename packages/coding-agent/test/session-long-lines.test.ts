import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UserMessage } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearSessionCache, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-session-long-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (text: string): UserMessage => ({ role: "user", content: text, timestamp: 1 });

describe("session files with lines far longer than a read chunk", () => {
  it("reads back every message exactly: long lines, multi-byte text across chunk edges, lines around 64 KB", () => {
    const sm = SessionManager.create("/p", dir);
    const texts: string[] = ["short"];
    texts.push("x".repeat(300_000));
    texts.push("ä€😀 ".repeat(40_000)); // multi-byte characters, ~400 KB of UTF-8
    for (const n of [65_400, 65_535, 65_536, 65_537, 131_072]) texts.push("y".repeat(n));
    for (let i = 0; i < 200; i++) texts.push(`line ${i} ${"é".repeat(i * 37)}`);
    texts.push("z".repeat(2_000_000));
    texts.push("last");
    for (const t of texts) sm.appendMessage(user(t));
    const file = sm.getSessionFile() as string;
    sm.close();

    clearSessionCache();
    const warnings: string[] = [];
    const again = SessionManager.open(file, { readOnly: true, onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    const read = again.buildSessionContext().messages.map((m) => (m as UserMessage).content);
    expect(read.length).toBe(texts.length);
    for (let i = 0; i < texts.length; i++) expect(read[i]).toBe(texts[i]);
  });

  it("a torn last line longer than a chunk is skipped with a warning and the rest is kept", () => {
    const sm = SessionManager.create("/p", dir);
    sm.appendMessage(user("kept"));
    const file = sm.getSessionFile() as string;
    sm.close();
    appendFileSync(
      file,
      `{"type":"message","id":"deadbeef","parentId":null,"message":{"content":"${"t".repeat(200_000)}`,
    );

    clearSessionCache();
    const warnings: string[] = [];
    const again = SessionManager.open(file, { readOnly: true, onWarning: (w) => warnings.push(w) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/torn last line/);
    expect(again.buildSessionContext().messages.map((m) => (m as UserMessage).content)).toEqual(["kept"]);
  });
});
