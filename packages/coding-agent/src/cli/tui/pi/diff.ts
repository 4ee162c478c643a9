/**
 * pi's `renderDiff`: a diff coloured line by line (added, removed, context), and where one line was replaced by
 * one line, the words that changed shown inverse. Reads both pi's numbered format (`+12 text`, `-12 text`,
 * ` 12 text`, which pi's edit tool writes) and unified diffs (`@@` hunks, `+text`, which Tiller's edit tool writes).
 * The word diff reuses Tiller's Myers line diff on word tokens.
 */
import { diffLines } from "../../../tools/diff.js";
import { expandTabs } from "../markdown/inline.js";
import { currentTheme } from "./theme.js";
import type { RenderDiffOptions } from "./types.js";

interface DiffLine {
  prefix: "+" | "-" | " ";
  /** The line number with its padding, or "" in a unified diff. */
  num: string;
  content: string;
}

function parse(line: string): DiffLine | undefined {
  const prefix = line[0];
  if (prefix !== "+" && prefix !== "-" && prefix !== " ") return undefined;
  // Unified diff file headers are not lines of the file.
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return undefined;
  const rest = line.slice(1);
  const m = /^(\s*\d+) (.*)$/s.exec(rest);
  if (m) return { prefix, num: m[1]!, content: m[2]! };
  // pi writes elided context as a prefix, padding and "...": keep it as it is.
  return { prefix, num: "", content: rest };
}

const show = (l: DiffLine, content: string) => (l.num ? `${l.prefix}${l.num} ${content}` : `${l.prefix}${content}`);

/** Words, runs of spaces and single other characters: the units a changed line is compared in. */
function tokens(s: string): string[] {
  return s.match(/\w+|\s+|[^\w\s]/g) ?? [];
}

/** The two lines with the tokens only one side has shown inverse (leading indentation never inverse). */
function wordDiff(oldText: string, newText: string): { removed: string; added: string } {
  const t = currentTheme();
  let removed = "";
  let added = "";
  let pendingRemoved = "";
  let pendingAdded = "";
  const flush = () => {
    if (pendingRemoved) removed += mark(pendingRemoved);
    if (pendingAdded) added += mark(pendingAdded);
    pendingRemoved = "";
    pendingAdded = "";
  };
  const mark = (s: string) => {
    const lead = /^\s*/.exec(s)![0];
    const body = s.slice(lead.length);
    return lead + (body ? t.inverse(body) : "");
  };
  for (const op of diffLines(tokens(oldText), tokens(newText))) {
    if (op.kind === "-") pendingRemoved += op.line;
    else if (op.kind === "+") pendingAdded += op.line;
    else {
      flush();
      removed += op.line;
      added += op.line;
    }
  }
  flush();
  return { removed, added };
}

/** The diff as coloured lines joined by "\n"; lines that are not diff lines are shown in the context colour. */
export function renderDiff(diffText: string, _options: RenderDiffOptions = {}): string {
  const t = currentTheme();
  const lines = diffText.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    const p = parse(line);
    if (!p) {
      out.push(t.fg("toolDiffContext", expandTabs(line)));
      i++;
      continue;
    }
    if (p.prefix !== "-") {
      out.push(t.fg(p.prefix === "+" ? "toolDiffAdded" : "toolDiffContext", show(p, expandTabs(p.content))));
      i++;
      continue;
    }
    // A run of removals, then the additions that replace them.
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    for (let q = parse(lines[i] ?? ""); q?.prefix === "-"; q = parse(lines[++i] ?? "")) removed.push(q);
    for (let q = parse(lines[i] ?? ""); q?.prefix === "+"; q = parse(lines[++i] ?? "")) added.push(q);
    if (removed.length === 1 && added.length === 1) {
      const w = wordDiff(expandTabs(removed[0]!.content), expandTabs(added[0]!.content));
      out.push(t.fg("toolDiffRemoved", show(removed[0]!, w.removed)));
      out.push(t.fg("toolDiffAdded", show(added[0]!, w.added)));
    } else {
      for (const r of removed) out.push(t.fg("toolDiffRemoved", show(r, expandTabs(r.content))));
      for (const a of added) out.push(t.fg("toolDiffAdded", show(a, expandTabs(a.content))));
    }
  }
  return out.join("\n");
}
