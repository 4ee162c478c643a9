/**
 * pi's pluggable tool backends (`ReadOperations`, `GrepOperations`, `FindOperations`, `LsOperations`): a tool
 * given custom operations reads, lists and searches through them instead of the local disk. Where pi's tool can
 * run here (read, ls, find with a custom glob: no rg/fd needed) the same backend is handed to pi's tool too and
 * both must answer alike.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAllTools,
  createFindTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  type FindOperations,
  type GrepOperations,
  type LsOperations,
  type ReadOperations,
} from "../src/index.js";
import { tempDir, textOf } from "./tool-helpers.js";

/** A tiny remote-like file system: absolute path → contents; folders are implied by the paths. */
function memoryFs(root: string, files: Record<string, string>) {
  const abs = new Map(Object.entries(files).map(([rel, text]) => [path.join(root, rel), text]));
  const isDir = (p: string) => p === root || [...abs.keys()].some((f) => f.startsWith(`${p}/`));
  const enoent = (p: string) => Object.assign(new Error(`ENOENT: ${p}`), { code: "ENOENT" });
  const calls: string[] = [];
  const read: ReadOperations = {
    access: async (p) => {
      calls.push(`access ${p}`);
      if (!abs.has(p) && !isDir(p)) throw enoent(p);
    },
    readFile: async (p) => {
      calls.push(`readFile ${p}`);
      const text = abs.get(p);
      if (text === undefined) throw isDir(p) ? Object.assign(new Error("EISDIR"), { code: "EISDIR" }) : enoent(p);
      return Buffer.from(text);
    },
  };
  const ls: LsOperations = {
    exists: (p) => abs.has(p) || isDir(p),
    stat: (p) => {
      if (!abs.has(p) && !isDir(p)) throw enoent(p);
      return { isDirectory: () => isDir(p) };
    },
    readdir: (p) => {
      calls.push(`readdir ${p}`);
      const names = new Set<string>();
      for (const f of abs.keys()) if (f.startsWith(`${p}/`)) names.add(f.slice(p.length + 1).split("/")[0]!);
      return [...names];
    },
  };
  return { abs, read, ls, calls };
}

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

describe("custom tool operations", () => {
  it("read reads through ReadOperations (access, then readFile), as pi's read does", async () => {
    const fs = memoryFs(dir, { "remote.txt": "line one\nline two\n" });
    const ours = await createReadTool(dir, { operations: fs.read }).execute("1", { path: "remote.txt" });
    expect(textOf(ours)).toBe("line one\nline two");
    expect(fs.calls).toEqual([`access ${path.join(dir, "remote.txt")}`, `readFile ${path.join(dir, "remote.txt")}`]);
    const theirs = await pi.createReadTool(dir, { operations: fs.read }).execute("1", { path: "remote.txt" });
    // Tiller's read drops the file's final newline (its existing behaviour); the lines are pi's.
    expect(textOf(ours)).toBe(textOf(theirs as typeof ours).trimEnd());
    // Nothing of it is on the local disk.
    await expect(createReadTool(dir).execute("1", { path: "remote.txt" })).rejects.toThrow(/File not found/);
    await expect(createReadTool(dir, { operations: fs.read }).execute("1", { path: "nope.txt" })).rejects.toThrow(
      "File not found: nope.txt",
    );
  });

  it("read takes the image type from detectImageMimeType when the backend has one", async () => {
    const fs = memoryFs(dir, { "pic.bin": "not really a png" });
    const tool = createReadTool(dir, { operations: { ...fs.read, detectImageMimeType: async () => "image/png" } });
    const r = await tool.execute("1", { path: "pic.bin" });
    expect(r.content[1]).toEqual({
      type: "image",
      mimeType: "image/png",
      data: Buffer.from("not really a png").toString("base64"),
    });
  });

  it("grep checks the path with isDirectory and takes context lines from readFile", async () => {
    writeFileSync(path.join(dir, "a.txt"), "before\nneedle\nafter\n");
    const seen: string[] = [];
    const ops: GrepOperations = {
      isDirectory: (p) => {
        seen.push(`isDirectory ${p}`);
        return true;
      },
      // The backend's view of the file differs from the disk's: context must come from here.
      readFile: (p) => {
        seen.push(`readFile ${p}`);
        return "REMOTE BEFORE\nneedle\nREMOTE AFTER\n";
      },
    };
    const r = await createGrepTool(dir, { operations: ops, ripgrep: false }).execute("1", {
      pattern: "needle",
      context: 1,
    });
    expect(textOf(r)).toBe("a.txt-1- REMOTE BEFORE\na.txt:2: needle\na.txt-3- REMOTE AFTER");
    expect(seen).toEqual([`isDirectory ${dir}`, `readFile ${path.join(dir, "a.txt")}`]);
    const missing = { ...ops, isDirectory: () => Promise.reject(new Error("no such path")) };
    await expect(createGrepTool(dir, { operations: missing }).execute("1", { pattern: "x" })).rejects.toThrow(
      "Path not found: .",
    );
  });

  it("find takes a custom glob's relative paths as relative to the search folder", async () => {
    // pi resolves them against the process's folder instead, so "lib/b.ts" would come out as "../../…/lib/b.ts".
    const ops: FindOperations = { exists: () => true, glob: () => ["lib/b.ts"] };
    const r = await createFindTool(dir, { operations: ops }).execute("1", { pattern: "*.ts", path: "src" });
    expect(textOf(r)).toBe("lib/b.ts");
  });

  it("find lists through a custom glob (pi's ignore list and limit), relative to the search folder", async () => {
    const asked: unknown[] = [];
    const ops: FindOperations = {
      exists: (p) => p === path.join(dir, "src"),
      glob: (pattern, cwd, options) => {
        asked.push({ pattern, cwd, options });
        return [path.join(cwd, "a.ts"), path.join(cwd, "lib/b.ts")];
      },
    };
    const ours = await createFindTool(dir, { operations: ops }).execute("1", {
      pattern: "*.ts",
      path: "src",
      limit: 5,
    });
    expect(textOf(ours)).toBe("a.ts\nlib/b.ts");
    expect(asked).toEqual([
      {
        pattern: "*.ts",
        cwd: path.join(dir, "src"),
        options: { ignore: ["**/node_modules/**", "**/.git/**"], limit: 5 },
      },
    ]);
    const theirs = await pi
      .createFindTool(dir, { operations: ops })
      .execute("1", { pattern: "*.ts", path: "src", limit: 5 });
    expect(textOf(ours)).toBe(textOf(theirs as typeof ours));
    const limited = await createFindTool(dir, { operations: ops }).execute("1", {
      pattern: "*",
      path: "src",
      limit: 2,
    });
    expect(limited.details.resultLimitReached).toBe(2);
    await expect(createFindTool(dir, { operations: ops }).execute("1", { pattern: "*" })).rejects.toThrow(
      "Path not found: .",
    );
  });

  it("ls lists through LsOperations, folders marked, as pi's ls does", async () => {
    const fs = memoryFs(dir, { "b.txt": "", "A/x.txt": "", "c/d/e.txt": "" });
    const ours = await createLsTool(dir, { operations: fs.ls }).execute("1", {});
    expect(textOf(ours)).toBe("A/\nb.txt\nc/");
    const theirs = await pi.createLsTool(dir, { operations: fs.ls }).execute("1", {});
    expect(textOf(ours)).toBe(textOf(theirs as typeof ours));
    await expect(createLsTool(dir, { operations: fs.ls }).execute("1", { path: "b.txt" })).rejects.toThrow(
      "Not a directory: b.txt",
    );
    await expect(createLsTool(dir, { operations: fs.ls }).execute("1", { path: "zz" })).rejects.toThrow(
      "Path not found: zz",
    );
  });

  it("the bundles hand pi's per-tool options (ToolsOptions) to each tool", async () => {
    mkdirSync(path.join(dir, "local"));
    const fs = memoryFs(dir, { "only-remote/f.txt": "remote text" });
    const tools = createAllTools(dir, { read: { operations: fs.read }, ls: { operations: fs.ls } });
    expect(textOf(await tools.read!.execute("1", { path: "only-remote/f.txt" }))).toBe("remote text");
    expect(textOf(await tools.ls!.execute("1", {}))).toBe("only-remote/");
  });
});
