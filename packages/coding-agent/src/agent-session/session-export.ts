/** Writing the current branch of a session out as a standalone, linear JSONL session file (pi's `/export`). */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { newSessionHeader } from "../session/location.js";
import type { SessionManager } from "../session/session-manager.js";

/**
 * Writes a header (same session id and cwd) and the entries from the root to the current leaf, each parented to
 * the one before, to `outputPath` (default: `session-<timestamp>.jsonl` in the process cwd). Returns the path.
 */
export function exportBranchToJsonl(sm: SessionManager, outputPath?: string): string {
  const file = resolve(outputPath ?? `session-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  const lines = [JSON.stringify(newSessionHeader(sm.getCwd(), { id: sm.getSessionId() }))];
  let parentId: string | null = null;
  for (const entry of sm.getBranch()) {
    lines.push(JSON.stringify({ ...entry, parentId }));
    parentId = entry.id;
  }
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}
