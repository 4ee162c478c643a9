/**
 * Resolving what the model sees from a session tree: walk from the leaf to the root, then replay the path,
 * replacing everything before the latest compaction's `firstKeptEntryId` by its summary.
 */
import { contextOfPath } from "./path-context.js";
import type { CompactionEntry, SessionContext, SessionEntry, SessionTreeNode } from "./types.js";

/** Entries from the root to `leafId` (inclusive), oldest first. A dangling parent ends the walk. */
export function pathToRoot(byId: ReadonlyMap<string, SessionEntry>, leafId: string | null): SessionEntry[] {
  const path: SessionEntry[] = [];
  let current = leafId === null ? undefined : byId.get(leafId);
  // A parent cycle (corrupt file) would loop forever: a path can never be longer than the map.
  while (current && path.length <= byId.size) {
    path.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

/**
 * Context of the path ending at `leafId`. `undefined` means the last entry of `entries`; `null` means "before the
 * first entry" (empty context). Model and thinking level are the latest on the path (an assistant message counts
 * as a model change).
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): SessionContext {
  if (leafId === null) return { messages: [], thinkingLevel: "off", model: null };
  let index = byId;
  if (!index) {
    const m = new Map<string, SessionEntry>();
    for (const e of entries) m.set(e.id, e);
    index = m;
  }
  const leaf = (leafId !== undefined ? index.get(leafId)?.id : undefined) ?? entries[entries.length - 1]?.id;
  if (leaf === undefined) return { messages: [], thinkingLevel: "off", model: null };
  return contextOfPath(pathToRoot(index, leaf));
}

/** The latest compaction entry on a path, or null (pi's contract). */
export function getLatestCompactionEntry(path: readonly SessionEntry[]): CompactionEntry | null {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i] as SessionEntry;
    if (e.type === "compaction") return e;
  }
  return null;
}

/** The entries as a tree, in file order (roots first; an entry whose parent is missing becomes a root). */
export function buildTree(
  entries: readonly SessionEntry[],
  labels: ReadonlyMap<string, string>,
  labelTimestamps?: ReadonlyMap<string, string>,
): SessionTreeNode[] {
  const nodes = new Map<string, SessionTreeNode>();
  for (const e of entries) {
    const label = labels.get(e.id);
    const labelTimestamp = label !== undefined ? labelTimestamps?.get(e.id) : undefined;
    nodes.set(e.id, {
      entry: e,
      children: [],
      ...(label !== undefined ? { label } : {}),
      ...(labelTimestamp !== undefined ? { labelTimestamp } : {}),
    });
  }
  const roots: SessionTreeNode[] = [];
  for (const e of entries) {
    const node = nodes.get(e.id) as SessionTreeNode;
    const parent = e.parentId === null ? undefined : nodes.get(e.parentId);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
