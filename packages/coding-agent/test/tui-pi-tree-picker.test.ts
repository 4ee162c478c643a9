/**
 * pi's `/tree` picker on Tiller (`TreeSelectorComponent` and the `TreeList` its `getTreeList()` returns), over a
 * session written to disk and read back: it draws the tree, filters, searches, folds and labels as
 * pi-coding-agent 0.73.1 does (pi's component run side by side on the same tree), and answers with the entry the
 * user highlighted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { type Component, setKeybindings, visibleWidth } from "@mariozechner/pi-tui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTheme, KeybindingsManager, SessionManager, TreeSelectorComponent } from "../src/index.js";
import type { SessionTreeNode } from "../src/session/types.js";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const UP = "\x1b[A";
const DOWN = "\x1b[B";
const ENTER = "\r";
const ESC = "\x1b";
const CTRL_U = "\x15";
const CTRL_O = "\x0f";
const CTRL_LEFT = "\x1b[1;5D";
const CTRL_RIGHT = "\x1b[1;5C";
const BACKSPACE = "\x7f";

function lines(c: Component, width = 100): string[] {
  const out = c.render(width);
  for (const l of out) expect(visibleWidth(l), strip(l)).toBeLessThanOrEqual(width);
  return out.map(strip);
}

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 0 });
const reply = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text }],
  api: "openai-completions",
  provider: "p",
  model: "m",
  usage,
  stopReason: "stop" as const,
  timestamp: 0,
});
const callRead = (id: string, path: string) => ({
  ...reply(""),
  content: [{ type: "toolCall" as const, id, name: "read", arguments: { path } }],
  stopReason: "toolUse" as const,
});
const result = (id: string, text: string) => ({
  role: "toolResult" as const,
  toolCallId: id,
  toolName: "read",
  content: [{ type: "text" as const, text }],
  isError: false,
  timestamp: 0,
});

let dir: string;
let file: string;
const ids: Record<string, string> = {};

/** The session's tree as a fresh reader of the file sees it (labels and their times included). */
function tree(): { nodes: SessionTreeNode[]; leaf: string | null } {
  const sm = SessionManager.open(file, { readOnly: true });
  const out = { nodes: sm.getTree(), leaf: sm.getLeafId() };
  sm.close();
  return out;
}

beforeAll(() => {
  initTheme("dark");
  pi.initTheme("dark");
  // Both pickers read the keys installed in pi-tui (pi's interactive mode installs its manager the same way).
  setKeybindings(new KeybindingsManager());
  dir = mkdtempSync(join(tmpdir(), "tiller-tree-picker-"));
  const sm = SessionManager.create(dir, { sessionDir: dir });
  ids.q1 = sm.appendMessage(user("first question"));
  ids.call = sm.appendMessage(callRead("c1", "src/a.ts"));
  ids.res = sm.appendMessage(result("c1", "file text"));
  ids.a1 = sm.appendMessage(reply("first answer"));
  sm.appendModelChange("p", "other-model");
  ids.q2 = sm.appendMessage(user("second question"));
  ids.a2 = sm.appendMessage(reply("second answer"));
  sm.branch(ids.q1);
  ids.alt = sm.appendMessage(reply("another answer"));
  ids.q3 = sm.appendMessage(user("follow-up on the other branch"));
  sm.appendLabelChange(ids.a1, "checkpoint");
  sm.branch(ids.q3);
  file = sm.getSessionFile() as string;
  sm.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tiller's and pi's pickers on the same tree (each its own copy: labels are set on the nodes). */
function both(initialFilter?: "default" | "no-tools" | "user-only" | "labeled-only" | "all") {
  const onSelect: string[] = [];
  const t = tree();
  const p = tree();
  const tiller = new TreeSelectorComponent(
    t.nodes,
    t.leaf,
    40,
    (id) => onSelect.push(id),
    () => {},
    undefined,
    undefined,
    initialFilter,
  );
  const theirs = new pi.TreeSelectorComponent(
    p.nodes as never,
    p.leaf,
    40,
    () => {},
    () => {},
    undefined,
    undefined,
    initialFilter,
  );
  const keys = (...data: string[]) => {
    for (const d of data) {
      tiller.handleInput(d);
      theirs.handleInput(d);
    }
  };
  return { tiller, theirs, keys, onSelect };
}

describe("the session tree picker", () => {
  it("draws the rows pi draws: the current branch first and marked, forks indented, tool calls named", () => {
    const { tiller, theirs } = both();
    const rows = lines(tiller.getTreeList());
    expect(rows).toEqual(lines(theirs.getTreeList() as unknown as Component));
    const shown = rows.join("\n");
    // The current leaf's branch comes first at the fork and carries the • marker; the other branch follows.
    expect(shown.indexOf("another answer")).toBeLessThan(shown.indexOf("first answer"));
    expect(shown).toMatch(/• user: follow-up on the other branch/);
    expect(shown).toMatch(/\[checkpoint\] assistant: first answer/);
    expect(shown).toContain("[read: src/a.ts]");
    // The model change is bookkeeping, hidden by default; the tool-call-only assistant message always.
    expect(shown).not.toContain("other-model");
    expect(shown).toMatch(/├[─⊟] /);
    expect(shown).toMatch(/└[─⊟] /);
    expect(tiller.getTreeList().getSelectedNode()?.entry.id).toBe(ids.q3);
    // Every line fits a narrow terminal too (lines() checks the width).
    for (const width of [20, 40]) expect(lines(tiller, width).length).toBeGreaterThan(5);
  });

  it("moves, filters and searches as pi does, and answers with the highlighted entry", () => {
    const { tiller, theirs, keys, onSelect } = both();
    const list = tiller.getTreeList();
    const same = () => {
      expect(lines(list)).toEqual(lines(theirs.getTreeList() as unknown as Component));
      expect(list.getSelectedNode()?.entry.id).toBe(theirs.getTreeList().getSelectedNode()?.entry.id);
    };
    keys(UP, UP);
    same();
    keys(CTRL_U);
    same();
    expect(lines(list).join("\n")).not.toContain("answer");
    keys(CTRL_O, CTRL_O);
    same();
    expect(lines(list).at(-1)).toContain("[all]");
    expect(lines(list).join("\n")).toContain("[model: other-model]");
    keys(CTRL_O);
    same();
    for (const ch of "second") keys(ch);
    same();
    expect(list.getSearchQuery()).toBe("second");
    expect(lines(list).join("\n")).toContain("second question");
    expect(lines(list).join("\n")).not.toContain("first question");
    expect(lines(tiller).join("\n")).toContain("Type to search: second");
    keys(DOWN);
    same();
    tiller.handleInput(ENTER);
    expect(onSelect).toEqual([list.getSelectedNode()?.entry.id]);
    expect(["second question", "second answer"]).toContain(
      lines(list)
        .find((l) => l.startsWith("› "))
        ?.replace(/^.*(user|assistant): /, ""),
    );
    keys(BACKSPACE, BACKSPACE);
    same();
    expect(list.getSearchQuery()).toBe("seco");
  });

  it("Esc clears the search first, then cancels", () => {
    let cancelled = 0;
    const t = tree();
    const s = new TreeSelectorComponent(
      t.nodes,
      t.leaf,
      40,
      () => {},
      () => cancelled++,
    );
    for (const ch of "zzz") s.handleInput(ch);
    expect(lines(s.getTreeList())[0]).toContain("No entries found");
    s.handleInput(ESC);
    expect(cancelled).toBe(0);
    expect(s.getTreeList().getSearchQuery()).toBe("");
    // The highlighted entry (the last message: the leaf is the label entry, hidden) survived the empty result.
    expect(s.getTreeList().getSelectedNode()?.entry.id).toBe(ids.q3);
    s.handleInput(ESC);
    expect(cancelled).toBe(1);
  });

  it("folds a branch and unfolds it as pi does", () => {
    const { tiller, theirs, keys } = both();
    const list = tiller.getTreeList();
    // Up to the start of the current branch's segment (the first entry after the fork), then fold it.
    keys(CTRL_LEFT);
    expect(list.getSelectedNode()?.entry.id).toBe(ids.alt);
    keys(CTRL_LEFT);
    expect(lines(list)).toEqual(lines(theirs.getTreeList() as unknown as Component));
    const folded = lines(list).join("\n");
    expect(folded).toContain("⊞");
    expect(folded).not.toContain("follow-up on the other branch");
    keys(CTRL_RIGHT);
    expect(lines(list)).toEqual(lines(theirs.getTreeList() as unknown as Component));
    expect(lines(list).join("\n")).toContain("follow-up on the other branch");
  });

  it("edits a label with Shift+L: shown in the tree at once, reported, and removed when emptied", () => {
    const changes: Array<[string, string | undefined]> = [];
    const t = tree();
    const s = new TreeSelectorComponent(
      t.nodes,
      t.leaf,
      40,
      () => {},
      () => {},
      (id, label) => changes.push([id, label]),
    );
    s.handleInput("L");
    expect(lines(s).join("\n")).toContain("Label (empty to remove):");
    for (const ch of "todo") s.handleInput(ch);
    s.handleInput(ENTER);
    expect(changes).toEqual([[ids.q3, "todo"]]);
    expect(lines(s.getTreeList()).join("\n")).toContain("[todo] user: follow-up on the other branch");
    // Label times on Shift+T: today's label shows its time.
    s.handleInput("T");
    expect(lines(s.getTreeList()).join("\n")).toMatch(/\[todo\] \d\d:\d\d user: follow-up/);
    s.handleInput("L");
    // The editor opens on the label with the cursor at its start (as pi's): End, then erase it.
    s.handleInput("\x05");
    for (let i = 0; i < 4; i++) s.handleInput(BACKSPACE);
    s.handleInput(ENTER);
    expect(changes.at(-1)).toEqual([ids.q3, undefined]);
    expect(lines(s.getTreeList()).join("\n")).not.toContain("[todo]");
    // Esc in the editor keeps the label as it was.
    s.handleInput("L");
    s.handleInput("x");
    s.handleInput(ESC);
    expect(changes).toHaveLength(2);
  });

  it("updateNodeLabel shows the label, and the labeled filter finds it", () => {
    const t = tree();
    const s = new TreeSelectorComponent(
      t.nodes,
      t.leaf,
      40,
      () => {},
      () => {},
      undefined,
      undefined,
      "labeled-only",
    );
    const list = s.getTreeList();
    expect(lines(list).join("\n")).not.toContain("second answer");
    list.updateNodeLabel(ids.a2 as string, "keep", "2020-01-02T03:04:05.000Z");
    const shown = lines(list).join("\n");
    expect(shown).toContain("[keep] assistant: second answer");
    expect(shown).toContain("[checkpoint] assistant: first answer");
    expect(shown).not.toContain("question");
  });

  it("cancels at once on an empty tree", async () => {
    const cancelled = await new Promise<boolean>((resolve) => {
      new TreeSelectorComponent(
        [],
        null,
        40,
        () => resolve(false),
        () => resolve(true),
      );
    });
    expect(cancelled).toBe(true);
  });
});
