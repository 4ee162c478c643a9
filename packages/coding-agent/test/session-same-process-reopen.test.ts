/**
 * One writer per session file per process: `create` then `open` of the same file (what pi's documentation and
 * OpenClaw's manager cache do) shares the writer instead of failing on the process's own lock; appends from both
 * handles land as whole lines in order; the lock goes when the last handle closes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSessionWriterCount, openSessionWriters, SessionManager } from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-reopen-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const text = (sm: SessionManager): unknown[] =>
  sm.getEntries().map((e) => (e.type === "message" && "content" in e.message ? e.message.content : e.type));

describe("same-process re-open", () => {
  it("create + append + open + read + append through both handles, then reopen: every entry once, in order", () => {
    const base = openSessionWriterCount();
    const a = SessionManager.create("/p", dir);
    a.appendMessage({ role: "user", content: "a1", timestamp: 1 });
    a.appendMessage({ role: "user", content: "a2", timestamp: 2 });
    const file = a.getSessionFile() as string;

    const b = SessionManager.open(file);
    expect(text(b)).toEqual(["a1", "a2"]);
    expect(openSessionWriterCount()).toBe(base + 1);
    expect(openSessionWriters().find((w) => w.file === file)?.holders).toBe(2);

    a.appendMessage({ role: "user", content: "a3", timestamp: 3 });
    b.appendMessage({ role: "user", content: "b1", timestamp: 4 });
    a.appendMessage({ role: "user", content: "a4", timestamp: 5 });
    b.appendMessage({ role: "user", content: "b2", timestamp: 6 });

    // A read-only open beside two writers takes nothing and sees everything written so far.
    expect(text(SessionManager.open(file, { readOnly: true }))).toEqual(["a1", "a2", "a3", "b1", "a4", "b2"]);
    a.close();
    expect(existsSync(`${file}.lock`)).toBe(true); // b still holds the writer
    b.appendMessage({ role: "user", content: "b3", timestamp: 7 });
    b.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(openSessionWriterCount()).toBe(base);

    const c = SessionManager.open(file);
    expect(text(c)).toEqual(["a1", "a2", "a3", "b1", "a4", "b2", "b3"]);
    expect(c.getWarnings()).toEqual([]);
    c.close();
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(8); // header + 7 entries, each a whole line
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  });

  it("closing a handle twice, or closing the other one first, releases the file exactly once", () => {
    const base = openSessionWriterCount();
    const a = SessionManager.create("/p", dir);
    a.appendMessage({ role: "user", content: "x", timestamp: 1 });
    const file = a.getSessionFile() as string;
    const b = SessionManager.open(file);
    b.close();
    b.close();
    expect(existsSync(`${file}.lock`)).toBe(true);
    a.appendMessage({ role: "user", content: "y", timestamp: 2 });
    expect(() => b.appendMessage({ role: "user", content: "late", timestamp: 3 })).toThrow(/closed/);
    a.close();
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(openSessionWriterCount()).toBe(base);
    expect(text(SessionManager.open(file, { readOnly: true }))).toEqual(["x", "y"]);
  });

  it("a torn last line is fenced off once, whichever handle appends first", async () => {
    const { appendFileSync } = await import("node:fs");
    const a = SessionManager.create("/p", dir);
    a.appendMessage({ role: "user", content: "kept", timestamp: 1 });
    const file = a.getSessionFile() as string;
    a.close();
    appendFileSync(file, '{"type":"message","id":"torn');
    const warnings: string[] = [];
    const b = SessionManager.open(file, { onWarning: (w) => warnings.push(w) });
    const c = SessionManager.open(file, { onWarning: () => {} });
    expect(warnings).toHaveLength(1);
    c.appendMessage({ role: "user", content: "c", timestamp: 2 });
    b.appendMessage({ role: "user", content: "b", timestamp: 3 });
    b.close();
    c.close();
    const after: string[] = [];
    expect(text(SessionManager.open(file, { readOnly: true, onWarning: (w) => after.push(w) }))).toEqual([
      "kept",
      "c",
      "b",
    ]);
    expect(after).toHaveLength(1); // the torn line, still skipped, and nothing else
  });
});
