import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseStreamingJson, StreamingJsonParser, StreamingToolArguments } from "../src/streaming-json.js";

function feed(text: string, cuts: number[]): StreamingJsonParser {
  const parser = new StreamingJsonParser();
  let last = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    parser.push(text.slice(last, cut));
    last = cut;
  }
  parser.push(text.slice(last));
  return parser;
}

describe("StreamingJsonParser", () => {
  it("ends with exactly JSON.parse's value for any document split at any points", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (value, rawCuts, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const cuts = rawCuts.map((c) => c % (text.length + 1));
        const parser = feed(text, cuts);
        if (typeof value === "number" || text === undefined) return; // bare numbers never terminate
        expect(parser.failed).toBe(false);
        expect(parser.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });

  it("shows partial strings, numbers, literals and nested containers mid-stream", () => {
    const p = new StreamingJsonParser();
    p.push('{"path": "src/ma');
    expect(p.value).toEqual({ path: "src/ma" });
    p.push('in.ts", "n": 12');
    expect(p.value).toEqual({ path: "src/main.ts", n: 12 });
    p.push('3, "ok": t');
    expect(p.value).toEqual({ path: "src/main.ts", n: 123, ok: true });
    p.push('rue, "items": [1, {"x": "a\\');
    expect(p.value).toEqual({ path: "src/main.ts", n: 123, ok: true, items: [1, { x: "a" }] });
    p.push("n\\u00");
    expect(p.value).toEqual({ path: "src/main.ts", n: 123, ok: true, items: [1, { x: "a\n" }] });
    p.push('e9"}], "pen');
    // A key appears only once its value starts.
    expect(p.value).toEqual({ path: "src/main.ts", n: 123, ok: true, items: [1, { x: "a\né" }] });
    p.push('ding": null}');
    expect(p.complete).toBe(true);
    expect(p.value).toEqual({ path: "src/main.ts", n: 123, ok: true, items: [1, { x: "a\né" }], pending: null });
  });

  it("keeps a __proto__ key as an own property instead of changing the prototype", () => {
    const p = feed('{"__proto__": {"polluted": true}, "a": 1}', [5, 17]);
    const v = p.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, "__proto__")).toBe(true);
    expect(v).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'));
  });

  it("freezes the value at the last good state on invalid input and never throws", () => {
    const p = new StreamingJsonParser();
    p.push('{"a": "ok", "b": tru');
    p.push('x, "c": 1}');
    expect(p.failed).toBe(true);
    expect(p.value).toEqual({ a: "ok", b: true });
  });

  it("parseStreamingJson repairs truncated documents and returns {} for nothing", () => {
    expect(parseStreamingJson(undefined)).toEqual({});
    expect(parseStreamingJson("")).toEqual({});
    expect(parseStreamingJson('{"path": "a.tx')).toEqual({ path: "a.tx" });
    expect(parseStreamingJson('{"items":[1,2,{"x":tr')).toEqual({ items: [1, 2, { x: true }] });
    expect(parseStreamingJson('{"a":1}')).toEqual({ a: 1 });
  });

  it("StreamingToolArguments always exposes one live object", () => {
    const args = new StreamingToolArguments();
    const before = args.args;
    args.push("[1,2]");
    expect(args.args).toBe(before);
    expect(args.valid).toBe(false);
    const obj = new StreamingToolArguments();
    obj.push('{"a"');
    const live = obj.args;
    obj.push(":1}");
    expect(obj.args).toBe(live);
    expect(live).toEqual({ a: 1 });
    expect(obj.valid).toBe(true);
  });

  it("stays linear: 4x the argument size costs about 4x the time, and 4 MB parses well under a second", () => {
    // Best of 2 runs, in CPU time: robust to a busy shared host.
    const timeFor = (bytes: number): number => {
      const content = "x".repeat(bytes - 40).replace(/x{50}/g, (m) => `${m}\\n\\"`);
      const text = JSON.stringify({ path: "a.txt", content });
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 2; run++) {
        const c0 = process.cpuUsage();
        const p = new StreamingJsonParser();
        for (let i = 0; i < text.length; i += 64) p.push(text.slice(i, i + 64));
        const c = process.cpuUsage(c0);
        expect(p.complete).toBe(true);
        best = Math.min(best, (c.user + c.system) / 1000);
      }
      return best;
    };
    timeFor(200_000); // warm-up
    const small = timeFor(1_000_000);
    const big = timeFor(4_000_000);
    expect(big).toBeLessThan(1000); // about 60 ms on this machine
    expect(big / Math.max(small, 5)).toBeLessThan(8);
  });
});
