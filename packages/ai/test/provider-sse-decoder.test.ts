import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseDecoder } from "../src/providers/sse-decoder.js";

const enc = new TextEncoder();

function decodeAll(bytes: Uint8Array, cuts: number[]): { event: string | undefined; data: string }[] {
  const d = new SseDecoder();
  const out = [];
  let last = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push(...d.push(bytes.slice(last, c)));
    last = c;
  }
  out.push(...d.push(bytes.slice(last)));
  out.push(...d.flush());
  return out;
}

describe("SseDecoder", () => {
  it("decodes event/data lines, CRLF, comments and multi-line data", () => {
    const text =
      ': keep-alive\r\nevent: message_start\r\ndata: {"a":1}\r\n\r\ndata: line1\ndata: line2\n\nevent: ping\ndata: {}\n\n';
    expect(decodeAll(enc.encode(text), [])).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { event: undefined, data: "line1\nline2" },
      { event: "ping", data: "{}" },
    ]);
  });

  it("gives the same messages however the bytes are split, including inside multi-byte characters", () => {
    const text = 'data: {"t":"héllo 👋 wörld"}\n\nevent: x\ndata: [DONE]\n\n';
    const bytes = enc.encode(text);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 10 }), (cuts) => {
        expect(decodeAll(bytes, cuts)).toEqual([
          { event: undefined, data: '{"t":"héllo 👋 wörld"}' },
          { event: "x", data: "[DONE]" },
        ]);
      }),
    );
  });

  it("reports a body that ended inside an event and still flushes a final event without its blank line", () => {
    const d = new SseDecoder();
    expect(d.push(enc.encode('data: {"a":1}\n\ndata: {"b"'))).toHaveLength(1);
    expect(d.hasPartial).toBe(true);
    expect(d.flush()).toEqual([{ event: undefined, data: '{"b"' }]);
  });

  it("decodes a 10 MB stream in 64 KB reads in linear time", () => {
    const one = `data: ${JSON.stringify({ choices: [{ delta: { content: "x".repeat(40) } }] })}\n\n`;
    const bytes = enc.encode(one.repeat(Math.ceil(10_000_000 / one.length)));
    const t0 = performance.now();
    const d = new SseDecoder();
    let n = 0;
    for (let i = 0; i < bytes.length; i += 65536) n += d.push(bytes.subarray(i, i + 65536)).length;
    const ms = performance.now() - t0;
    expect(n).toBe(Math.ceil(10_000_000 / one.length));
    expect(ms).toBeLessThan(2000);
  });
});
