import { createHash } from "node:crypto";

/** md5 hex of a key: the NOTIFY payload naming a run or session (32 bytes, whatever the key's length). */
export function keyHash(key: string): string {
  return createHash("md5").update(key).digest("hex");
}
