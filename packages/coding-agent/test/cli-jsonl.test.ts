import { describe, expect, it } from "vitest";
import { createJsonlReader, toJsonLine } from "../src/cli/jsonl.js";

function collect(chunks: Array<string | Buffer>): string[] {
  const lines: string[] = [];
  const r = createJsonlReader((l) => lines.push(l));
  for (const c of chunks) r.push(c);
  r.end();
  return lines;
}

describe("RPC line framing", () => {
  it("splits on LF only: U+2028 and U+2029 inside a JSON string stay in the record", () => {
    const value = { type: "prompt", message: "a\u2028b\u2029c" };
    const lines = collect([toJsonLine(value) + toJsonLine({ type: "abort" })]);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual(value);
  });

  it("drops a trailing CR, joins records split across chunks and multi-byte characters split across buffers", () => {
    const bytes = Buffer.from('{"m":"héllo"}\r\n{"n":1}', "utf8");
    const cut = bytes.indexOf(0xc3) + 1; // inside the two-byte é
    expect(collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['{"m":"héllo"}', '{"n":1}']);
  });

  it("handles a long record delivered one byte at a time", () => {
    const big = JSON.stringify({ text: "x".repeat(200_000) });
    const buf = Buffer.from(`${big}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < buf.length; i += 1) chunks.push(buf.subarray(i, i + 1));
    const t0 = performance.now();
    const lines = collect(chunks);
    expect(lines).toEqual([big]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
