/**
 * Fuzzing the session transcript reader the gateway relies on (SessionManager of @tiller/coding-agent): a
 * valid JSONL transcript gets torn at a random byte, garbage lines inserted at random places, or its header
 * damaged. Opening never crashes the caller (a clear error naming the file at worst), every intact earlier
 * entry is kept in order, each skipped line is reported as a warning, and appending after a torn tail gives
 * a file that reopens with the old entries and the new one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@tiller/agent";
import { SessionManager } from "@tiller/coding-agent";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";

let dir = "";
let base = "";
let baseIds: string[] = [];
let n = 0;

const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-fuzz-session-"));
  const sm = SessionManager.create(dir, { sessionDir: dir });
  sm.newSession();
  for (let i = 0; i < 6; i++) sm.appendMessage(user(`message ${i} — ünïcødé ✓`));
  sm.sync();
  const file = sm.getSessionFile() as string;
  baseIds = sm.getEntries().map((e) => e.id);
  sm.close();
  base = readFileSync(file, "utf8");
  rmSync(file, { force: true });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `content` as a fresh transcript file and opens it, collecting warnings. */
function open(content: string | Buffer): { sm?: SessionManager; error?: Error; warnings: string[]; file: string } {
  const file = join(dir, `fuzz-${n++}.jsonl`);
  writeFileSync(file, content);
  const warnings: string[] = [];
  try {
    const sm = SessionManager.open(file, { sessionDir: dir, onWarning: (w) => warnings.push(w) });
    return { sm, warnings, file };
  } catch (err) {
    return { error: err as Error, warnings, file };
  }
}

it("torn tails and garbage lines: earlier entries kept in order, a warning per skipped line, appends still work", () => {
  const lines = base.split("\n").filter((l) => l.length > 0);
  const headerBytes = Buffer.byteLength(`${lines[0]}\n`);
  const total = Buffer.byteLength(base);
  fc.assert(
    fc.property(
      fc.option(fc.integer({ min: headerBytes, max: total }), { nil: undefined }),
      fc.array(fc.tuple(fc.integer({ min: 1, max: lines.length }), fc.string({ maxLength: 60 })), { maxLength: 4 }),
      (cut, garbage) => {
        // Garbage lines never parse as JSON (they start with "~"), so each must be skipped with a warning.
        const out = [...lines];
        const inserts = [...garbage].sort((a, b) => b[0] - a[0]);
        for (const [at, text] of inserts) out.splice(at, 0, `~${text.replace(/\n/g, " ")}`);
        let content = Buffer.from(`${out.join("\n")}\n`);
        let keptIds = baseIds;
        if (cut !== undefined) {
          // Cut the original entries at `cut` bytes of the ungarbled file: keep entries whose line ended before it.
          const ends: number[] = [];
          let acc = headerBytes;
          for (const l of lines.slice(1)) {
            acc += Buffer.byteLength(`${l}\n`);
            ends.push(acc);
          }
          keptIds = baseIds.filter((_, i) => (ends[i] as number) <= cut);
          const torn = Buffer.from(base).subarray(0, cut);
          content = Buffer.concat([torn]);
          // Garbage goes only between intact lines in this variant.
          if (garbage.length > 0) {
            const intact = torn.toString("utf8").split("\n");
            const tail = intact.pop() ?? "";
            for (const [at, text] of inserts)
              intact.splice(Math.min(at, intact.length), 0, `~${text.replace(/\n/g, " ")}`);
            content = Buffer.from(`${intact.join("\n")}\n${tail}`);
          }
        }
        const r = open(content);
        expect(r.error, r.error?.message).toBeUndefined();
        const sm = r.sm as SessionManager;
        const ids = sm.getEntries().map((e) => e.id);
        // Every intact entry is there, in order; nothing was invented.
        expect(ids.filter((id) => keptIds.includes(id))).toEqual(keptIds);
        expect(ids.every((id) => baseIds.includes(id))).toBe(true);
        expect(r.warnings.length).toBeGreaterThanOrEqual(garbage.length);
        // Appending after the damage gives a file that reads back with the old and the new entry.
        const added = sm.appendMessage(user("after the damage"));
        sm.sync();
        sm.close();
        const again: string[] = [];
        const re = SessionManager.open(r.file, { sessionDir: dir, readOnly: true, onWarning: (w) => again.push(w) });
        const reIds = re.getEntries().map((e) => e.id);
        expect(reIds).toContain(added);
        expect(reIds.filter((id) => keptIds.includes(id))).toEqual(keptIds);
        re.close();
        rmSync(r.file, { force: true });
        rmSync(`${r.file}.lock`, { force: true });
      },
    ),
    { numRuns: 150, seed: 31 },
  );
});

it("a damaged header is a clear error naming the file, never a crash", () => {
  const firstNewline = base.indexOf("\n");
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: firstNewline - 1 }),
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 }),
      (at, bytes) => {
        const buf = Buffer.from(base);
        bytes.forEach((b, i) => {
          if (at + i < firstNewline) buf[at + i] = b === 10 ? 32 : b;
        });
        const r = open(buf);
        if (r.error) {
          expect(r.error).toBeInstanceOf(Error);
          expect(r.error.message).toContain(r.file);
        } else {
          r.sm?.close();
        }
        rmSync(r.file, { force: true });
        rmSync(`${r.file}.lock`, { force: true });
      },
    ),
    { numRuns: 100, seed: 5 },
  );
});
