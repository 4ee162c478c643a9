/**
 * pi-coding-agent 0.73's free session functions over raw file entries (header included): parse, load, migrate,
 * and find the newest session of a directory. They share the streaming reader, the migration and the listing
 * with SessionManager.
 */
import { listSessions } from "./list.js";
import { migrate } from "./migrate.js";
import { readSessionFile, SessionFileError } from "./reader.js";
import { CURRENT_SESSION_VERSION, type FileEntry, type SessionEntry, type SessionHeader } from "./types.js";

/**
 * The JSON lines of a session file's text, in order (header first when present). Malformed and blank lines are
 * skipped, as a torn last line must not make the rest unreadable.
 */
export function parseSessionEntries(content: string): FileEntry[] {
  const out: FileEntry[] = [];
  let start = 0;
  while (start < content.length) {
    let end = content.indexOf("\n", start);
    if (end < 0) end = content.length;
    const line = content.slice(start, end).trim();
    start = end + 1;
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as FileEntry);
    } catch {
      // A malformed line: skipped, the others stay readable.
    }
  }
  return out;
}

/**
 * Upgrades entries (header included) to the current format in place: v1 gets ids and parent links (and its
 * compactions' `firstKeptEntryIndex` becomes `firstKeptEntryId`), v2's `hookMessage` role becomes `custom`.
 * Entries already current are left alone.
 */
export function migrateSessionEntries(entries: FileEntry[]): void {
  const header = entries.find((e): e is SessionHeader => e.type === "session");
  const rest = entries.filter((e): e is SessionEntry => e.type !== "session");
  // Without a header the entries are as old as they can be: v1, like pi reads them.
  const target: SessionHeader = header ?? { type: "session", id: "", timestamp: "", cwd: "" };
  if ((target.version ?? 1) >= CURRENT_SESSION_VERSION) return;
  // Indices in v1 compactions count the header line: map them to the entries as `migrate` sees them.
  migrate(target, rest, (fileIndex) => {
    const e = entries[fileIndex];
    return e && e.type !== "session" ? rest.indexOf(e) : -1;
  });
}

/**
 * Every line of a session file (header first), or [] when the file does not exist, is empty, or does not start
 * with a session header. Reads through the shared streaming reader and its cache.
 */
export function loadEntriesFromFile(filePath: string): FileEntry[] {
  try {
    const parsed = readSessionFile(filePath);
    return [parsed.header, ...parsed.entries];
  } catch (error) {
    if (error instanceof SessionFileError || (error as NodeJS.ErrnoException)?.code === "ENOENT") return [];
    throw error;
  }
}

/** Path of the most recently modified session file in `sessionDir`, or null (none, or no such directory). */
export function findMostRecentSession(sessionDir: string): string | null {
  return listSessions(sessionDir)[0]?.path ?? null;
}
