import * as pi from "@mariozechner/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJsonWithRepair, parseStreamingJson, repairJson } from "../src/index.js";

describe("repairJson / parseJsonWithRepair", () => {
  it("keeps a regex or Windows path the model wrote with single backslashes", () => {
    expect(parseJsonWithRepair<{ p: string }>('{"p":"\\d+\\.ts"}')).toEqual({ p: "\\d+\\.ts" });
    expect(parseJsonWithRepair<{ p: string }>('{"p":"C:\\new\\dir"}')).toEqual({ p: "C:\new\\dir" });
  });

  it("escapes raw control characters inside strings only", () => {
    expect(repairJson('{"a":"x\ny\tz\u0001"}\n')).toBe('{"a":"x\\ny\\tz\\u0001"}\n');
    expect(parseJsonWithRepair<{ a: string }>('{"a":"line1\nline2"}')).toEqual({ a: "line1\nline2" });
  });

  it("returns valid JSON unchanged and throws the original error when repair changes nothing", () => {
    const valid = '{"a":"\\u00e9\\n","b":[1,2]}';
    expect(repairJson(valid)).toBe(valid);
    expect(() => parseJsonWithRepair("{bad")).toThrow(SyntaxError);
  });

  it("agrees with pi-ai on arbitrary text", () => {
    const alphabet = fc.constantFrom('"', "\\", "u", "0", "a", "n", "d", "\n", "\t", "{", "}", ":", ",", " ", "1");
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(repairJson(text)).toBe(pi.repairJson(text));
        const ours = attempt(() => parseJsonWithRepair(text));
        expect(ours).toEqual(attempt(() => pi.parseJsonWithRepair(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it("parseStreamingJson keeps invalid escapes in complete and truncated arguments", () => {
    expect(parseStreamingJson('{"pattern":"\\d+","path":"src"}')).toEqual({ pattern: "\\d+", path: "src" });
    expect(parseStreamingJson('{"pattern":"a\\sb","path":"sr')).toEqual({ pattern: "a\\sb", path: "sr" });
  });
});

function attempt(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch {
    return "threw";
  }
}
