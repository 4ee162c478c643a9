/**
 * The `application/vnd.amazon.eventstream` binary framing, written independently of the AWS SDK so the
 * provider's decoder is tested against the documented format:
 *
 *   total length (u32) | headers length (u32) | prelude CRC32 (u32) | headers | payload | message CRC32 (u32)
 *
 * Each header: name length (u8), name, value type (u8; 7 = string), value length (u16), value. Both CRCs are
 * CRC-32 (IEEE); the message CRC covers everything before it, the prelude CRC the first 8 bytes.
 */
import { crc32 } from "node:zlib";

export interface EventStreamFrame {
  headers: Record<string, string>;
  payload: Uint8Array;
}

export function encodeFrame(frame: EventStreamFrame, corrupt?: "prelude" | "message"): Buffer {
  const headerParts: Buffer[] = [];
  for (const [name, value] of Object.entries(frame.headers)) {
    const n = Buffer.from(name, "utf8");
    const v = Buffer.from(value, "utf8");
    const h = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
    h.writeUInt8(n.length, 0);
    n.copy(h, 1);
    h.writeUInt8(7, 1 + n.length);
    h.writeUInt16BE(v.length, 2 + n.length);
    v.copy(h, 4 + n.length);
    headerParts.push(h);
  }
  const headers = Buffer.concat(headerParts);
  const total = 12 + headers.length + frame.payload.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headers.length, 4);
  out.writeUInt32BE((crc32(out.subarray(0, 8)) ^ (corrupt === "prelude" ? 1 : 0)) >>> 0, 8);
  headers.copy(out, 12);
  Buffer.from(frame.payload).copy(out, 12 + headers.length);
  out.writeUInt32BE((crc32(out.subarray(0, total - 4)) ^ (corrupt === "message" ? 1 : 0)) >>> 0, total - 4);
  return out;
}

/** Decodes a whole body (test side: to read recorded fixtures and to check the encoder round-trips). */
export function decodeFrames(body: Buffer): EventStreamFrame[] {
  const frames: EventStreamFrame[] = [];
  let at = 0;
  while (at < body.length) {
    const total = body.readUInt32BE(at);
    const headersLength = body.readUInt32BE(at + 4);
    if (crc32(body.subarray(at, at + 8)) !== body.readUInt32BE(at + 8)) throw new Error("prelude CRC mismatch");
    if (crc32(body.subarray(at, at + total - 4)) !== body.readUInt32BE(at + total - 4)) {
      throw new Error("message CRC mismatch");
    }
    const headers: Record<string, string> = {};
    let h = at + 12;
    const end = h + headersLength;
    while (h < end) {
      const nameLength = body.readUInt8(h);
      const name = body.toString("utf8", h + 1, h + 1 + nameLength);
      const type = body.readUInt8(h + 1 + nameLength);
      if (type !== 7) throw new Error(`header type ${type} not supported by this test decoder`);
      const valueLength = body.readUInt16BE(h + 2 + nameLength);
      headers[name] = body.toString("utf8", h + 4 + nameLength, h + 4 + nameLength + valueLength);
      h += 4 + nameLength + valueLength;
    }
    frames.push({ headers, payload: body.subarray(end, at + total - 4) });
    at += total;
  }
  return frames;
}

/** A Converse event frame (`:message-type: event`). */
export function eventFrame(eventType: string, payload: unknown): EventStreamFrame {
  return {
    headers: { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    payload: Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload), "utf8"),
  };
}

/** An exception frame inside a 200 stream (`:message-type: exception`), e.g. `throttlingException`. */
export function exceptionFrame(exceptionType: string, message: string): EventStreamFrame {
  return {
    headers: { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    payload: Buffer.from(JSON.stringify({ message }), "utf8"),
  };
}
