/**
 * Line diff (Myers, after trimming the common head and tail) rendered as a unified diff. Used by edit to
 * show what changed.
 */

type Op = { kind: "=" | "-" | "+"; line: string };

/** Shortest edit script between two line arrays. O((N+M)·D) time. */
export function diffLines(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const A = a.slice(head, a.length - tail);
  const B = b.slice(head, b.length - tail);
  const middle = myers(A, B);
  const ops: Op[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: "=", line: a[i]! });
  ops.push(...middle);
  for (let i = a.length - tail; i < a.length; i++) ops.push({ kind: "=", line: a[i]! });
  return ops;
}

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((line) => ({ kind: "+", line }));
  if (m === 0) return a.map((line) => ({ kind: "-", line }));
  const max = n + m;
  const offset = max;
  let v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    // The saved frontiers cost O(D·(N+M)) memory; past a budget, show a plain replace instead.
    if (d * (2 * max + 2) > 20_000_000)
      return [...a.map((line) => ({ kind: "-" as const, line })), ...b.map((line) => ({ kind: "+" as const, line }))];
    trace.push(v.slice());
    const next = v;
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) x = v[offset + k + 1]!;
      else x = v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  // Backtrack through the saved frontiers.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!)) prevK = k + 1;
    else prevK = k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: "=", line: a[x - 1]! });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "+", line: b[y - 1]! });
      else ops.push({ kind: "-", line: a[x - 1]! });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

export interface UnifiedDiff {
  diff: string;
  /** 1-based line of the first change in the new text, if anything changed. */
  firstChangedLine?: number;
}

/** Unified diff of two texts with `context` lines around each change. */
export function unifiedDiff(oldText: string, newText: string, fileName: string, context = 3): UnifiedDiff {
  const ops = diffLines(oldText.split("\n"), newText.split("\n"));
  const out: string[] = [`--- a/${fileName}`, `+++ b/${fileName}`];
  let firstChangedLine: number | undefined;
  let i = 0;
  // Line numbers (1-based) in old/new at the start of ops[i].
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = 1;
  let nn = 1;
  for (const op of ops) {
    oldNo.push(o);
    newNo.push(nn);
    if (op.kind !== "+") o++;
    if (op.kind !== "-") nn++;
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === "=") i++;
    if (i >= ops.length) break;
    firstChangedLine ??= newNo[i];
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while the next change is within 2*context unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== "=") end++;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === "=") gap++;
      if (gap < ops.length && gap - end <= context * 2) end = gap;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    const oldStart = oldCount === 0 ? oldNo[start]! - 1 : oldNo[start]!;
    const newStart = newCount === 0 ? newNo[start]! - 1 : newNo[start]!;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of slice) out.push(`${op.kind === "=" ? " " : op.kind}${op.line}`);
    i = end;
  }
  return { diff: out.length > 2 ? out.join("\n") : "", firstChangedLine };
}
