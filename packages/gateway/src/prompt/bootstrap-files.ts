/**
 * Bootstrap (context) files: workspace files injected into the system prompt every turn under "Project Context".
 * Each file is capped (`maxChars`, head and tail kept around a marker) and all of them share a total budget
 * (`totalMaxChars`); an expected file that is missing gets a one-line marker. The `agent:bootstrap` gateway hook
 * may add or remove files between `loadBootstrapFiles` and `capBootstrapFiles`.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";

export const BOOTSTRAP_FILE_NAMES = [
  "AGENTS.md",
  "SOUL.md",
  "TOOLS.md",
  "IDENTITY.md",
  "USER.md",
  "HEARTBEAT.md",
  "BOOTSTRAP.md",
  "MEMORY.md",
] as const;

export const DEFAULT_BOOTSTRAP_MAX_CHARS = 20_000;
export const DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS = 150_000;
/** Files larger than this are read only up to it (the rest is reported as truncated). */
const MAX_READ_BYTES = 2 * 1024 * 1024;
/** Below this many characters of budget left, a file is omitted instead of cut to a stub. */
const MIN_USEFUL_CHARS = 200;

/** One candidate file. `content` is undefined when the file is missing. Hooks may push their own. */
export interface BootstrapFile {
  name: string;
  path: string;
  content?: string;
  /** Size on disk in characters (or bytes for huge files) before any cap. */
  rawChars: number;
  missing: boolean;
}

/** `full`: main sessions; `minimal`: sub-agents (AGENTS.md and TOOLS.md only); `heartbeat`: HEARTBEAT.md only. */
export type BootstrapMode = "full" | "minimal" | "heartbeat";

export interface LoadBootstrapOptions {
  mode?: BootstrapMode;
  /** HEARTBEAT.md is only injected when heartbeats are enabled. */
  heartbeatsEnabled?: boolean;
}

function readText(path: string): { content: string; rawChars: number } | undefined {
  try {
    const size = statSync(path).size;
    if (size <= MAX_READ_BYTES) {
      const fd = openSync(path, "r");
      try {
        const buf = Buffer.alloc(size);
        const n = readSync(fd, buf, 0, size, 0);
        const content = buf.subarray(0, n).toString("utf8");
        return { content, rawChars: content.length };
      } finally {
        closeSync(fd);
      }
    }
    const fd = openSync(path, "r");
    try {
      const buf = Buffer.alloc(MAX_READ_BYTES);
      const n = readSync(fd, buf, 0, MAX_READ_BYTES, 0);
      // Drop a possibly cut multi-byte character at the end.
      return {
        content: buf
          .subarray(0, n)
          .toString("utf8")
          .replace(/\uFFFD+$/, ""),
        rawChars: size,
      };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The bootstrap files of `workspaceDir` for this mode, in prompt order. Optional files are skipped when absent. */
export function loadBootstrapFiles(workspaceDir: string, options: LoadBootstrapOptions = {}): BootstrapFile[] {
  const mode = options.mode ?? "full";
  let names: string[];
  if (mode === "minimal") names = ["AGENTS.md", "TOOLS.md"];
  else if (mode === "heartbeat") names = ["HEARTBEAT.md"];
  else names = BOOTSTRAP_FILE_NAMES.filter((n) => n !== "HEARTBEAT.md" || options.heartbeatsEnabled === true);
  const optional = new Set(["BOOTSTRAP.md", "MEMORY.md"]);
  const out: BootstrapFile[] = [];
  for (const name of names) {
    let path = join(workspaceDir, name);
    if (name === "MEMORY.md" && !existsSync(path) && existsSync(join(workspaceDir, "memory.md"))) {
      path = join(workspaceDir, "memory.md");
    }
    const read = existsSync(path) ? readText(path) : undefined;
    if (read) out.push({ name, path, content: read.content, rawChars: read.rawChars, missing: false });
    else if (!optional.has(name)) out.push({ name, path, rawChars: 0, missing: true });
  }
  return out;
}

/** What was injected for one file (also the prompt report's row). */
export interface InjectedBootstrapFile {
  name: string;
  path: string;
  missing: boolean;
  rawChars: number;
  injectedChars: number;
  truncated: boolean;
  /** Dropped entirely because the total budget ran out. */
  omitted: boolean;
  /** The text placed in the prompt (a marker for missing or omitted files). */
  text: string;
}

export interface BootstrapCaps {
  maxChars?: number;
  totalMaxChars?: number;
}

/** A cut point at or before `i` that does not split a surrogate pair. */
function safeCut(s: string, i: number): number {
  if (i <= 0 || i >= s.length) return Math.max(0, Math.min(i, s.length));
  const c = s.charCodeAt(i - 1);
  return c >= 0xd800 && c <= 0xdbff ? i - 1 : i;
}

/** Keeps the head (~75%) and tail (~25%) of `content` within `limit` characters, with a marker between. */
export function truncateMiddle(content: string, limit: number, name: string, rawChars = content.length): string {
  if (content.length <= limit && rawChars <= content.length) return content;
  const marker = `\n\n[... ${name} truncated: ${rawChars} characters, showing the start and the end; read the file for the rest ...]\n\n`;
  const room = Math.max(0, limit - marker.length);
  const headLen = safeCut(content, Math.floor(room * 0.75));
  const tailLen = Math.max(0, room - headLen);
  let tailStart = content.length - tailLen;
  // A tail starting on a low surrogate would show half a character: move one forward.
  if (tailLen > 0 && /[\uDC00-\uDFFF]/.test(content[tailStart] as string)) tailStart++;
  const cleanTail = tailLen > 0 ? content.slice(tailStart) : "";
  return content.slice(0, headLen) + marker + cleanTail;
}

/** Applies per-file and total caps, in order; later files get what the earlier ones left. */
export function capBootstrapFiles(files: readonly BootstrapFile[], caps: BootstrapCaps = {}): InjectedBootstrapFile[] {
  const maxChars = Math.max(MIN_USEFUL_CHARS, caps.maxChars ?? DEFAULT_BOOTSTRAP_MAX_CHARS);
  let remaining = Math.max(0, caps.totalMaxChars ?? DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS);
  const out: InjectedBootstrapFile[] = [];
  for (const f of files) {
    if (f.missing || f.content === undefined) {
      const text = `[missing: ${f.path}]`;
      out.push({ ...base(f), missing: true, injectedChars: 0, truncated: false, omitted: false, text });
      continue;
    }
    const limit = Math.min(maxChars, remaining);
    if (limit < MIN_USEFUL_CHARS && f.content.length > limit) {
      const text = `[omitted: ${f.name} (${f.rawChars} characters) did not fit the bootstrap budget; read ${f.path}]`;
      out.push({ ...base(f), missing: false, injectedChars: 0, truncated: true, omitted: true, text });
      continue;
    }
    const text = truncateMiddle(f.content, limit, f.name, f.rawChars);
    const truncated = text !== f.content;
    remaining -= text.length;
    out.push({ ...base(f), missing: false, injectedChars: text.length, truncated, omitted: false, text });
  }
  return out;
}

function base(f: BootstrapFile) {
  return { name: f.name, path: f.path, rawChars: f.rawChars };
}

/** The "Project Context" section for the injected files; empty when there are none. */
export function formatBootstrapSection(files: readonly InjectedBootstrapFile[]): string {
  if (files.length === 0) return "";
  const lines = ["# Project Context", "", "These workspace files are loaded for you on every turn."];
  if (files.some((f) => f.name === "SOUL.md" && !f.missing && !f.omitted)) {
    lines.push("SOUL.md defines your persona and tone: embody it.");
  }
  for (const f of files) lines.push("", `## ${f.name}`, "", f.text.trim());
  return lines.join("\n");
}
