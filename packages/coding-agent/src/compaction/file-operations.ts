/**
 * pi's file-operation bookkeeping for summaries: the `read`/`written`/`edited` path sets gathered from the
 * built-in tools' calls, and the sorted lists a summary ends with. (Tiller's message compaction keeps ordered
 * `FileLists` instead, see serialize.ts; both write the same `{ readFiles, modifiedFiles }` details.)
 */
import type { AgentMessage } from "@tiller/agent";

/** Paths touched by `read`, `write` and `edit` tool calls. */
export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

export function createFileOps(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/** Adds the paths of `message`'s read/write/edit tool calls to `fileOps` (other messages add nothing). */
export function extractFileOpsFromMessage(message: AgentMessage, fileOps: FileOperations): void {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const block of message.content) {
    if (block?.type !== "toolCall" || !block.arguments) continue;
    const path = block.arguments.path;
    if (typeof path !== "string" || !path) continue;
    if (block.name === "read") fileOps.read.add(path);
    else if (block.name === "write") fileOps.written.add(path);
    else if (block.name === "edit") fileOps.edited.add(path);
  }
}

/** Sorted lists: modified = written ∪ edited; read = read but never modified. */
export function computeFileLists(fileOps: FileOperations): { readFiles: string[]; modifiedFiles: string[] } {
  const modified = new Set([...fileOps.written, ...fileOps.edited]);
  return {
    readFiles: [...fileOps.read].filter((p) => !modified.has(p)).sort(),
    modifiedFiles: [...modified].sort(),
  };
}

/** Adds file lists stored in an earlier summary's `details` (`{ readFiles, modifiedFiles }`) to `fileOps`. */
export function addFileListsFromDetails(details: unknown, fileOps: FileOperations): void {
  if (typeof details !== "object" || details === null) return;
  const { readFiles, modifiedFiles } = details as { readFiles?: unknown; modifiedFiles?: unknown };
  if (Array.isArray(readFiles)) for (const f of readFiles) if (typeof f === "string") fileOps.read.add(f);
  if (Array.isArray(modifiedFiles)) for (const f of modifiedFiles) if (typeof f === "string") fileOps.edited.add(f);
}

/** The `<read-files>` / `<modified-files>` sections appended to a summary (with a leading blank line), or "". */
export function formatFileLists(readFiles: readonly string[], modifiedFiles: readonly string[]): string {
  const sections: string[] = [];
  if (readFiles.length > 0) sections.push(`<read-files>\n${readFiles.join("\n")}\n</read-files>`);
  if (modifiedFiles.length > 0) sections.push(`<modified-files>\n${modifiedFiles.join("\n")}\n</modified-files>`);
  return sections.length > 0 ? `\n\n${sections.join("\n\n")}` : "";
}
