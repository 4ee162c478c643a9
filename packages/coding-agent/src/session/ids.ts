/** Identifiers of the session format: UUID v7 for sessions, 8 hex characters for entries. */
import { randomBytes, randomUUID } from "node:crypto";

/** UUID v7: 48-bit millisecond timestamp then random bits, so ids sort by creation time. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  let ts = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts % 256;
    ts = Math.floor(ts / 256);
  }
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh 8-hex-character entry id not present in `taken`. */
export function newEntryId(taken: { has(id: string): boolean }): string {
  for (;;) {
    const id = randomUUID().slice(0, 8);
    if (!taken.has(id)) return id;
  }
}
