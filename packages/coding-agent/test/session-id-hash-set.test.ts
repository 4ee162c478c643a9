/**
 * The id set a session index keeps instead of a map while a file is read: it may answer "maybe" for an id it never
 * saw (two ids of one hash), never "no" for one it saw, so a fresh entry id it calls free is free.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { IdHashSet } from "../src/session/id-hash-set.js";

describe("IdHashSet", () => {
  it("never forgets an id across growth, and reports each repeat", () => {
    const set = new IdHashSet();
    const ids = new Set<string>();
    while (ids.size < 200_000) ids.add(randomUUID().slice(0, 8));
    let repeats = 0;
    for (const id of ids) if (set.add(id)) repeats++;
    let forgotten = 0;
    for (const id of ids) if (!set.mightHave(id)) forgotten++;
    expect(forgotten).toBe(0);
    // Distinct ids: a "repeat" is a hash collision, rare at 32 bits (about 5 expected in 200,000).
    expect(repeats).toBeLessThan(100);
    let missed = 0;
    for (const id of [...ids].slice(0, 1000)) if (!set.add(id)) missed++;
    expect(missed).toBe(0);
  });

  it("mostly says no for ids it never saw; a colliding pair reads as a possible repeat", () => {
    const set = new IdHashSet();
    for (let i = 0; i < 10_000; i++) set.add(`seen-${i}`);
    let maybe = 0;
    for (let i = 0; i < 10_000; i++) if (set.mightHave(`other-${i}`)) maybe++;
    expect(maybe).toBeLessThan(10);
    // Two ids of one hash: FNV-1a for ids that are not 8 characters, the hex value for 8-character ids.
    for (const [a, b] of [
      ["0004a0f5-", "000bec20-"],
      ["abcdef01", "ABCDEF01"],
    ] as const) {
      const pair = new IdHashSet();
      expect(pair.add(a)).toBe(false);
      expect(pair.mightHave(b)).toBe(true);
      expect(pair.add(b)).toBe(true);
      pair.clear();
      expect(pair.mightHave(a)).toBe(false);
    }
    // Distinct 8-hex-digit ids (what Tiller and pi write) never collide, those with leading zeros (one in 16 of
    // pi's random ids) included.
    const hex = new IdHashSet();
    let collisions = 0;
    for (let i = 0; i < 100_000; i++) if (hex.add((0x10000000 + i * 37831).toString(16))) collisions++;
    for (let i = 0; i < 100_000; i++) if (hex.add(i.toString(16).padStart(8, "0"))) collisions++;
    expect(collisions).toBe(0);
    // 8-character ids that are not all hex digits take the other hash: still never forgotten.
    const odd = ["0000000g", " 000001a", "0x00001a", "-0000001", "1e5 xyz!"];
    const mixed = new IdHashSet();
    for (const id of odd) mixed.add(id);
    for (const id of odd) expect(mixed.mightHave(id)).toBe(true);
  });

  it("keeps every id when room for a batch is reserved first, before and after more adds", () => {
    const set = new IdHashSet();
    for (let i = 0; i < 100; i++) set.add(`early-${i}`);
    set.reserve(50_000);
    for (let i = 0; i < 50_000; i++) expect(set.add(`batch-${i}`)).toBe(false);
    set.reserve(10);
    for (let i = 0; i < 1_000; i++) set.add(`late-${i}`);
    let forgotten = 0;
    for (let i = 0; i < 100; i++) if (!set.mightHave(`early-${i}`)) forgotten++;
    for (let i = 0; i < 50_000; i++) if (!set.mightHave(`batch-${i}`)) forgotten++;
    for (let i = 0; i < 1_000; i++) if (!set.mightHave(`late-${i}`)) forgotten++;
    expect(forgotten).toBe(0);
    expect(set.add("batch-49999")).toBe(true);
  });

  it("filling from entries in one batch answers as adding each id does, repeats and odd ids included", () => {
    const ids: unknown[] = [];
    for (let i = 0; i < 3_000; i++) ids.push(i.toString(16).padStart(8, "0"));
    ids.push("00000000", "not-hex!", "a much longer id", 42, undefined, "0000002a");
    const entries = ids.map((id) => ({ id }));
    const one = new IdHashSet();
    let repeatedOne = false;
    for (const id of ids) if (one.add(String(id))) repeatedOne = true;
    const batch = new IdHashSet();
    expect(batch.addIdsOf(entries, 0, 1_000)).toBe(false);
    expect(batch.addIdsOf(entries, 1_000, entries.length)).toBe(true);
    expect(repeatedOne).toBe(true);
    for (const id of [...ids, "ffffffff", "00000bb8", "other"])
      expect(batch.mightHave(String(id))).toBe(one.mightHave(String(id)));
    // No repeat in a batch of distinct ids.
    expect(new IdHashSet().addIdsOf(entries, 0, 3_000)).toBe(false);
  });
});
