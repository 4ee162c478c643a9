/** Where a session file lives: its directory (explicit, or per cwd under a Tiller home) and its file name. */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { getSessionDir, getTillerHome } from "../home.js";
import { uuidv7 } from "./ids.js";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "./types.js";

/** Where sessions live: an explicit directory, or the per-cwd directory under a Tiller home. */
export interface SessionLocationOptions {
  sessionDir?: string;
  /** Tiller home (default `getTillerHome()`); ignored when `sessionDir` is given. */
  home?: string;
}

export function asLocation(arg: string | SessionLocationOptions | undefined): SessionLocationOptions {
  return typeof arg === "string" ? { sessionDir: arg } : (arg ?? {});
}

export function sessionDirFor(cwd: string, loc: SessionLocationOptions): string {
  if (loc.sessionDir) {
    mkdirSync(loc.sessionDir, { recursive: true });
    return resolve(loc.sessionDir);
  }
  return getSessionDir(cwd, loc.home ?? getTillerHome());
}

export function fileNameFor(header: SessionHeader): string {
  return `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`;
}

/** The header of a new session of `cwd`, stamped now. */
export function newSessionHeader(cwd: string, options: { id?: string; parentSession?: string } = {}): SessionHeader {
  const { id = uuidv7(), parentSession } = options;
  const timestamp = new Date().toISOString();
  return {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id,
    timestamp,
    cwd,
    ...(parentSession ? { parentSession } : {}),
  };
}
