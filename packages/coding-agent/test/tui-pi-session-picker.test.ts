/**
 * pi's `/resume` picker on Tiller (`SessionSelectorComponent` and the `SessionList` its `getSessionList()`
 * returns), over real session files: the order of each sort mode and of a search is pi-coding-agent 0.73.1's
 * (pi's component run side by side on the same listing), the highlighted row is the path Enter answers, and
 * deleting, renaming and switching folders change what a user sees and what is on disk.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import { type Component, setKeybindings, visibleWidth } from "@mariozechner/pi-tui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initTheme, KeybindingsManager, SessionManager, SessionSelectorComponent } from "../src/index.js";
import type { SessionInfo } from "../src/session/types.js";

const here = dirname(fileURLToPath(import.meta.url));
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const DOWN = "\x1b[B";
const ENTER = "\r";
const ESC = "\x1b";
const TAB = "\t";
const CTRL_D = "\x04";
const CTRL_N = "\x0e";
const CTRL_P = "\x10";
const CTRL_R = "\x12";
const CTRL_S = "\x13";

function text(c: Component, width = 120): string {
  const out = c.render(width);
  for (const l of out) expect(visibleWidth(l), strip(l)).toBeLessThanOrEqual(width);
  return out.map(strip).join("\n");
}

/** Resolves once `check` holds, looking again after each turn of the event loop (generous bound: a loaded machine). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

const user = (t: string) => ({ role: "user" as const, content: t, timestamp: 0 });

let root: string;
let dir: string;
let other: string;
const paths: Record<string, string> = {};

/** A session of `cwd` in `sessionDir` with these user messages, a name, a parent, modified `minutesAgo`. */
function write(
  key: string,
  cwd: string,
  sessionDir: string,
  messages: string[],
  o: { name?: string; parent?: string; minutesAgo: number },
): void {
  const sm = SessionManager.create(cwd, { sessionDir });
  if (o.parent) sm.newSession({ parentSession: o.parent });
  for (const m of messages) sm.appendMessage(user(m));
  if (o.name) sm.appendSessionInfo(o.name);
  const file = sm.getSessionFile() as string;
  sm.close();
  const t = new Date(Date.now() - o.minutesAgo * 60_000);
  utimesSync(file, t, t);
  paths[key] = file;
}

const list = () => SessionManager.list(root, { sessionDir: dir });

beforeAll(() => {
  initTheme("dark");
  pi.initTheme("dark");
  setKeybindings(new KeybindingsManager());
  root = mkdtempSync(join(tmpdir(), "tiller-session-picker-"));
  dir = join(root, "sessions");
  other = join(root, "elsewhere");
  mkdirSync(dir);
  mkdirSync(other);
  write("parser", root, dir, ["fix the json parser", "now the tokenizer"], { name: "Parser work", minutesAgo: 50 });
  write("fork", root, dir, ["try a streaming parser instead"], { parent: paths.parser, minutesAgo: 5 });
  write("docs", root, dir, ["write the docs for node cve handling"], { minutesAgo: 20 });
  write("oldest", root, dir, ["hello there"], { minutesAgo: 90 });
  write("away", other, other, ["a session in another folder"], { minutesAgo: 1 });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The paths in row order, read by moving the highlight down from the top. */
function order(l: { getSelectedSessionPath(): string | undefined; handleInput(d: string): void }): string[] {
  const out: string[] = [];
  for (let i = 0; i < 20; i++) {
    const p = l.getSelectedSessionPath();
    if (p === undefined || out.at(-1) === p) break;
    out.push(p);
    l.handleInput(DOWN);
  }
  return out;
}

/** Tiller's and pi's pickers over the same listing, both loaded. */
async function both(sessions: SessionInfo[]) {
  const kb = new KeybindingsManager();
  const picked: string[] = [];
  const tiller = new SessionSelectorComponent(
    async () => sessions,
    async () => sessions,
    (p) => picked.push(p),
    () => {},
    () => {},
    () => {},
    { keybindings: kb },
  );
  const theirs = new pi.SessionSelectorComponent(
    async () => sessions as never,
    async () => sessions as never,
    () => {},
    () => {},
    () => {},
    () => {},
    { keybindings: kb as never },
  );
  await until(
    () =>
      tiller.getSessionList().getSelectedSessionPath() !== undefined &&
      theirs.getSessionList().getSelectedSessionPath() !== undefined,
    "both lists loaded",
  );
  return { tiller, theirs, picked };
}

describe("the session picker", () => {
  it("lists threaded (forks under their parent) and setSortMode reorders as pi does", async () => {
    const { tiller, theirs } = await both(list());
    const ours = tiller.getSessionList();
    const piList = theirs.getSessionList();
    const threaded = order(ours);
    expect(threaded).toEqual([paths.docs, paths.parser, paths.fork, paths.oldest]);
    expect(order(piList)).toEqual(threaded);
    const shown = text(tiller);
    expect(shown).toMatch(/Parser work/);
    expect(shown).toMatch(/└─ try a streaming parser instead/);
    expect(shown).toContain("Sort: Threaded");
    // Every line fits a narrow terminal too (text() checks the width).
    for (const width of [20, 40]) expect(text(tiller, width)).toContain("…");
    for (const mode of ["recent", "relevance", "threaded"] as const) {
      for (let i = 0; i < 10; i++) ours.handleInput("\x1b[A");
      for (let i = 0; i < 10; i++) piList.handleInput("\x1b[A");
      ours.setSortMode(mode);
      piList.setSortMode(mode);
      expect(order(ours), mode).toEqual(order(piList));
    }
    ours.setSortMode("recent");
    for (let i = 0; i < 10; i++) ours.handleInput("\x1b[A");
    expect(order(ours)).toEqual([paths.fork, paths.docs, paths.parser, paths.oldest]);
    // Parents that point at each other (hand-edited headers) still list both sessions.
    const [a, b] = list().filter((s) => s.path === paths.docs || s.path === paths.oldest);
    ours.setSessions(
      [{ ...a, parentSessionPath: b?.path } as SessionInfo, { ...b, parentSessionPath: a?.path } as SessionInfo],
      false,
    );
    ours.setSortMode("threaded");
    for (let i = 0; i < 10; i++) ours.handleInput("\x1b[A");
    expect(order(ours).sort()).toEqual([paths.docs, paths.oldest].sort());
  });

  it("filters as the user types (fuzzy words, quoted phrases, re:) in pi's order, and Enter answers the highlighted path", async () => {
    for (const query of ["parser", "node cve", '"node cve"', "re:tokeni[sz]er", "zzzz", '"hello', "re:("]) {
      for (const mode of ["threaded", "recent", "relevance"] as const) {
        const { tiller, theirs } = await both(list());
        tiller.getSessionList().setSortMode(mode);
        theirs.getSessionList().setSortMode(mode);
        for (const ch of query) {
          tiller.handleInput(ch);
          theirs.handleInput(ch);
        }
        expect(order(tiller.getSessionList()), `${query} (${mode})`).toEqual(order(theirs.getSessionList()));
      }
    }
    const { tiller, picked } = await both(list());
    for (const ch of "streaming") tiller.handleInput(ch);
    expect(text(tiller)).toContain("streaming");
    expect(text(tiller)).not.toContain("hello there");
    expect(tiller.getSessionList().getSelectedSessionPath()).toBe(paths.fork);
    tiller.handleInput(ENTER);
    expect(picked).toEqual([paths.fork]);
  });

  it("cycles the sort with Ctrl+S, shows only named sessions with Ctrl+N, and paths with Ctrl+P", async () => {
    const { tiller } = await both(list());
    tiller.handleInput(CTRL_S);
    expect(text(tiller)).toContain("Sort: Recent");
    expect(tiller.getSessionList().getSelectedSessionPath()).toBe(paths.fork);
    tiller.handleInput(CTRL_S);
    expect(text(tiller)).toContain("Sort: Fuzzy");
    tiller.handleInput(CTRL_N);
    expect(text(tiller)).toContain("Name: Named");
    expect(order(tiller.getSessionList())).toEqual([paths.parser]);
    tiller.handleInput(CTRL_P);
    expect(text(tiller, 200)).toContain(paths.parser as string);
    expect(text(tiller, 200)).toContain("path (on)");
  });

  it("loads every folder's sessions on Tab (once, with progress) and back to this folder's", async () => {
    let allCalls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const everything = [...list(), ...SessionManager.list(other, { sessionDir: other })];
    const s = new SessionSelectorComponent(
      async () => list(),
      async (progress) => {
        allCalls++;
        progress?.(1, 2);
        await gate;
        return everything;
      },
      () => {},
      () => {},
      () => {},
      () => {},
    );
    await until(() => s.getSessionList().getSelectedSessionPath() !== undefined, "this folder's sessions");
    expect(text(s)).toContain("◉ Current Folder");
    expect(text(s)).not.toContain("another folder");
    s.handleInput(TAB);
    await until(() => text(s).includes("Loading 1/2"), "progress");
    release();
    await until(() => text(s).includes("a session in another folder"), "every folder's sessions");
    expect(text(s)).toContain("◉ All");
    expect(text(s)).toContain(other);
    s.handleInput(TAB);
    expect(text(s)).not.toContain("another folder");
    s.handleInput(TAB);
    expect(text(s)).toContain("another folder");
    expect(allCalls).toBe(1);
  });

  it("deletes a session after confirmation (not the current one, nor one another process writes)", async () => {
    const victimDir = join(root, "victims");
    mkdirSync(victimDir);
    write("v1", root, victimDir, ["to be deleted"], { minutesAgo: 1 });
    write("v2", root, victimDir, ["the current one"], { minutesAgo: 2 });
    write("v3", root, victimDir, ["held by another process"], { minutesAgo: 3 });
    const child: ChildProcess = spawn(
      process.execPath,
      [
        "--conditions=tiller-source",
        "--import",
        "tsx",
        join(here, "session-lock-child.ts"),
        paths.v3 as string,
        "hold",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        let out = "";
        child.stdout?.on("data", (d) => {
          out += String(d);
          if (out.includes("opened")) resolve();
          if (out.includes("error")) reject(new Error(out));
        });
        child.once("exit", () => reject(new Error(`child exited: ${out}`)));
      });
      // The child's append made it the newest: back to where it was.
      const t = new Date(Date.now() - 3 * 60_000);
      utimesSync(paths.v3 as string, t, t);
      const loads: number[] = [];
      const s = new SessionSelectorComponent(
        async () => {
          loads.push(1);
          return SessionManager.list(root, { sessionDir: victimDir });
        },
        async () => [],
        () => {},
        () => {},
        () => {},
        () => {},
        undefined,
        paths.v2,
      );
      const l = s.getSessionList();
      l.setSortMode("recent");
      await until(() => l.getSelectedSessionPath() === paths.v1, "listed");
      // Esc keeps it.
      s.handleInput(CTRL_D);
      expect(text(s)).toContain("Delete session?");
      s.handleInput(ESC);
      expect(text(s)).not.toContain("Delete session?");
      expect(existsSync(paths.v1 as string)).toBe(true);
      s.handleInput(CTRL_D);
      s.handleInput(ENTER);
      await until(() => !existsSync(paths.v1 as string) && loads.length === 2, "deleted and listed again");
      await until(() => !text(s).includes("to be deleted"), "row gone");
      expect(text(s)).toMatch(/Session (deleted|moved to trash)/);
      // The current session: refused with a message.
      expect(l.getSelectedSessionPath()).toBe(paths.v2);
      s.handleInput(CTRL_D);
      expect(text(s)).toContain("Cannot delete the currently active session");
      expect(existsSync(paths.v2 as string)).toBe(true);
      // Another live process writes it: refused, the file stays.
      s.handleInput(DOWN);
      expect(l.getSelectedSessionPath()).toBe(paths.v3);
      s.handleInput(CTRL_D);
      s.handleInput(ENTER);
      await until(() => text(s).includes("Failed to delete"), "refusal");
      expect(text(s)).toContain(`pid ${child.pid}`);
      expect(existsSync(paths.v3 as string)).toBe(true);
    } finally {
      child.kill();
    }
  });

  it("renames with Ctrl+R through renameSession and lists the new name", async () => {
    const renameDir = join(root, "renames");
    mkdirSync(renameDir);
    write("r1", root, renameDir, ["unnamed so far"], { minutesAgo: 1 });
    const renamed: Array<[string, string | undefined]> = [];
    const s = new SessionSelectorComponent(
      async () => SessionManager.list(root, { sessionDir: renameDir }),
      async () => [],
      () => {},
      () => {},
      () => {},
      () => {},
      {
        renameSession: async (path, name) => {
          renamed.push([path, name]);
          const sm = SessionManager.open(path);
          sm.appendSessionInfo(name as string);
          sm.close();
        },
      },
    );
    await until(() => s.getSessionList().getSelectedSessionPath() !== undefined, "listed");
    expect(text(s)).toContain("rename");
    s.handleInput(CTRL_R);
    expect(text(s)).toContain("Rename Session");
    for (const ch of "Spike") s.handleInput(ch);
    s.handleInput(ENTER);
    await until(() => renamed.length === 1 && !text(s).includes("Rename Session"), "the rename done");
    expect(renamed).toEqual([[paths.r1, "Spike"]]);
    await until(() => text(s).includes("Spike"), "the new name listed");
    expect(s.getSessionList().getSelectedSessionPath()).toBe(paths.r1);
  });
});
