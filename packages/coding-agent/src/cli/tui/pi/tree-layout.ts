/**
 * The drawing of pi's session tree: the entries in display order (depth first, the branch holding the current
 * leaf first at every fork), and for the entries a filter leaves visible, where each row sits: a chain of single
 * children stays in one column, a fork indents its children one column (and the first entry after a fork one
 * more), with `├─`/`└─` before each child of a fork and `│` lines down the columns of forks still open. A hidden
 * entry's children hang from its nearest visible ancestor. Iterative throughout: a session is a chain of
 * thousands of entries, too deep for recursion.
 */
import type { SessionTreeNode } from "../../../session/types.js";

/** A visible entry and how its row is drawn. */
export interface TreeRow {
  node: SessionTreeNode;
  /** Columns (3 characters each) before the entry's markers and text. */
  depth: number;
  /** The fork connector in the row's last column: `├` (more siblings below) or `└` (the last). */
  connector?: "mid" | "last";
  /** Columns holding an ancestor fork's line: `│` while that fork has more children below, else blank. */
  gutters: ReadonlyArray<{ column: number; line: boolean }>;
}

/** The visible entries' rows in display order, and the visible tree (parent and children by id). */
export interface TreeLayout {
  rows: TreeRow[];
  parent: Map<string, string | null>;
  children: Map<string | null, string[]>;
}

/** Every entry in display order; at each fork (and among roots) the child leading to `leafId` comes first. */
export function displayOrder(roots: readonly SessionTreeNode[], leafId: string | null): SessionTreeNode[] {
  // Which nodes lead to the leaf: a pre-order walk, then children before parents.
  const preorder: SessionTreeNode[] = [];
  const stack = [...roots].reverse();
  for (let n = stack.pop(); n; n = stack.pop()) {
    preorder.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as SessionTreeNode);
  }
  const leads = new Set<SessionTreeNode>();
  for (let i = preorder.length - 1; i >= 0; i--) {
    const n = preorder[i] as SessionTreeNode;
    if (n.entry.id === leafId || n.children.some((c) => leads.has(c))) leads.add(n);
  }
  const first = (nodes: readonly SessionTreeNode[]) => [
    ...nodes.filter((c) => leads.has(c)),
    ...nodes.filter((c) => !leads.has(c)),
  ];
  const out: SessionTreeNode[] = [];
  const todo = first(roots).reverse();
  for (let n = todo.pop(); n; n = todo.pop()) {
    out.push(n);
    const kids = first(n.children);
    for (let i = kids.length - 1; i >= 0; i--) todo.push(kids[i] as SessionTreeNode);
  }
  return out;
}

/**
 * The rows of the entries of `order` (display order) that `visible` keeps. Each visible entry's parent is its
 * nearest visible ancestor; several visible roots hang, without connectors, from an unseen common root.
 */
export function layoutVisible(order: readonly SessionTreeNode[], visible: ReadonlySet<string>): TreeLayout {
  // Display order lists a parent before its children, so the nearest visible ancestor is known when needed.
  const ancestor = new Map<string, string | null>();
  const parent = new Map<string, string | null>();
  const children = new Map<string | null, string[]>([[null, []]]);
  const byId = new Map<string, SessionTreeNode>();
  for (const n of order) {
    const { id, parentId } = n.entry;
    const up = parentId === null ? null : visible.has(parentId) ? parentId : (ancestor.get(parentId) ?? null);
    ancestor.set(id, up);
    if (!visible.has(id)) continue;
    byId.set(id, n);
    parent.set(id, up);
    const list = children.get(up) ?? [];
    list.push(id);
    children.set(up, list);
  }
  const roots = children.get(null) ?? [];
  const manyRoots = roots.length > 1;
  type Item = {
    id: string;
    indent: number;
    afterFork: boolean;
    connector: boolean;
    last: boolean;
    gutters: TreeRow["gutters"];
    root: boolean;
  };
  const rows: TreeRow[] = [];
  const todo: Item[] = [];
  const push = (ids: readonly string[], make: (id: string, last: boolean) => Item) => {
    for (let i = ids.length - 1; i >= 0; i--) todo.push(make(ids[i] as string, i === ids.length - 1));
  };
  push(roots, (id, last) => ({
    id,
    indent: manyRoots ? 1 : 0,
    afterFork: manyRoots,
    connector: manyRoots,
    last,
    gutters: [],
    root: manyRoots,
  }));
  for (let it = todo.pop(); it; it = todo.pop()) {
    const node = byId.get(it.id) as SessionTreeNode;
    // With an unseen common root, its children are drawn one column to the left.
    const depth = manyRoots ? Math.max(0, it.indent - 1) : it.indent;
    const drawn = it.connector && !it.root;
    rows.push({
      node,
      depth,
      gutters: it.gutters,
      ...(drawn && depth > 0 ? { connector: it.last ? ("last" as const) : ("mid" as const) } : {}),
    });
    const kids = children.get(it.id) ?? [];
    const fork = kids.length > 1;
    const indent = fork || (it.afterFork && it.indent > 0) ? it.indent + 1 : it.indent;
    const gutters = drawn ? [...it.gutters, { column: Math.max(0, depth - 1), line: !it.last }] : it.gutters;
    push(kids, (id, last) => ({ id, indent, afterFork: fork, connector: fork, last, gutters, root: false }));
  }
  return { rows, parent, children };
}
