/**
 * Tiller's `application/vnd.amazon.eventstream` decoder against frames written by the independent test
 * encoder and a recorded frame from the real service: any split of the bytes decodes to the same messages,
 * both CRCs are checked, a corrupt length is refused before anything is allocated, and a body that stops
 * inside a frame is reported.
 */
import { readFileSync } from "node:fs";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  crc32Table,
  EventStreamDecoder,
  EventStreamError,
  type EventStreamMessage,
  payloadJson,
} from "../src/providers/amazon-bedrock-eventstream.js";
import { encodeFrame, eventFrame, exceptionFrame } from "./helpers/aws-eventstream.js";

function frames(n: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      encodeFrame(
        i % 7 === 3
          ? exceptionFrame("throttlingException", `slow down ${i}`)
          : eventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: `δ${i} ${"x".repeat(i % 50)}` } }),
      ),
    );
  }
  return out;
}

function decodeAll(chunks: Uint8Array[]): EventStreamMessage[] {
  const decoder = new EventStreamDecoder();
  const out: EventStreamMessage[] = [];
  for (const c of chunks) decoder.push(c, (m) => out.push(m));
  decoder.end();
  return out;
}

/** A seeded generator, so a failing split can be reproduced. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("eventstream decoder", () => {
  it("decodes the same messages however the body is split (single bytes, random cuts, one chunk)", () => {
    const parts = frames(60);
    const body = Buffer.concat(parts);
    const whole = decodeAll([body]);
    expect(whole).toHaveLength(60);
    expect(whole[0]?.headers).toEqual({
      ":event-type": "contentBlockDelta",
      ":content-type": "application/json",
      ":message-type": "event",
    });
    expect(payloadJson(whole[0] as EventStreamMessage)).toEqual({ contentBlockIndex: 0, delta: { text: "δ0 " } });
    expect(whole[3]?.headers[":exception-type"]).toBe("throttlingException");
    const normalize = (ms: EventStreamMessage[]) =>
      ms.map((m) => ({ h: m.headers, p: Buffer.from(m.payload).toString() }));
    const bytes = [...body].map((b) => Uint8Array.of(b));
    expect(normalize(decodeAll(bytes))).toEqual(normalize(whole));
    for (let seed = 1; seed <= 20; seed++) {
      const next = rng(seed);
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < body.length; ) {
        const size = 1 + Math.floor(next() * 300);
        chunks.push(body.subarray(at, at + size));
        at += size;
      }
      expect(normalize(decodeAll(chunks)), `seed ${seed}`).toEqual(normalize(whole));
    }
  });

  it("reads a frame recorded from the real service (vercel/ai fixture)", () => {
    const raw = readFileSync(
      new URL("./fixtures/bedrock/model-stream-error-exception.eventstream.base64.txt", import.meta.url),
      "utf8",
    );
    const [message] = decodeAll([Buffer.from(raw.trim(), "base64")]);
    expect(message?.headers).toMatchObject({
      ":message-type": "exception",
      ":exception-type": "modelStreamErrorException",
    });
    expect(payloadJson(message as EventStreamMessage)).toMatchObject({
      message: "Model Stream Error",
      originalStatusCode: 500,
    });
  });

  it("refuses a broken prelude CRC, a broken message CRC and an impossible length", () => {
    const good = frames(2);
    const seen: EventStreamMessage[] = [];
    const decoder = new EventStreamDecoder();
    const badMessage = encodeFrame(eventFrame("messageStop", { stopReason: "end_turn" }), "message");
    expect(() => decoder.push(Buffer.concat([good[0] as Buffer, badMessage]), (m) => seen.push(m))).toThrow(
      /message checksum mismatch/,
    );
    expect(seen).toHaveLength(1); // the good frame before it was delivered
    const badPrelude = encodeFrame(eventFrame("messageStop", {}), "prelude");
    expect(() => new EventStreamDecoder().push(badPrelude, () => {})).toThrow(/prelude checksum mismatch/);
    // A prelude claiming 3 GiB with a valid CRC: refused, nothing allocated or awaited.
    const huge = Buffer.from(good[1] as Buffer);
    huge.writeUInt32BE(3 * 1024 ** 3, 0);
    huge.writeUInt32BE(crc32(huge.subarray(0, 8)), 8);
    expect(() => new EventStreamDecoder().push(huge, () => {})).toThrow(EventStreamError);
  });

  it("computes the same CRC-32 with its fallback table as node:zlib", () => {
    const next = rng(7);
    for (const size of [0, 1, 7, 8, 255, 4096]) {
      const data = Uint8Array.from({ length: size }, () => Math.floor(next() * 256));
      expect(crc32Table(data)).toBe(crc32(data));
    }
  });

  it("reports a body that ends inside a frame", () => {
    const [first, second] = frames(2) as [Buffer, Buffer];
    const decoder = new EventStreamDecoder();
    const seen: EventStreamMessage[] = [];
    decoder.push(Buffer.concat([first, second.subarray(0, 9)]), (m) => seen.push(m));
    expect(seen).toHaveLength(1);
    expect(decoder.pending).toBe(9);
    expect(() => decoder.end()).toThrow(/9 bytes of an unfinished event stream message/);
  });
});
