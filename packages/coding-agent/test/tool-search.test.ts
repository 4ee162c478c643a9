import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFindTool, findWithJs, findWithRipgrep } from "../src/tools/find.js";
import { compileGlob } from "../src/tools/glob.js";
import { createGrepTool } from "../src/tools/grep.js";
import { grepWithJs, grepWithRipgrep } from "../src/tools/grep-search.js";
import { IgnoreMatcher, parseIgnore } from "../src/tools/ignore.js";
import { createLsTool } from "../src/tools/ls.js";
import { findRipgrep } from "../src/tools/ripgrep.js";
import { tempDir, textOf } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  const files: Record<string, string> = {
    ".gitignore": "node_modules/\n*.log\n/build\n!keep.log\n",
    ".env": "SECRET=needle\n",
    "a.ts": "const needle = 1;\nconst other = 2;\n",
    "b.md": "no match here\n",
    "keep.log": "needle in kept log\n",
    "debug.log": "needle in ignored log\n",
    "build/out.js": "needle in build\n",
    "node_modules/pkg/index.js": "needle in deps\n",
    "src/build/x.ts": "needle in src/build (not root build)\n",
    "src/deep/c.ts": "first\nneedle two\nthird\nfourth\nneedle five\n",
    "src/deep/.gitignore": "gen.ts\n",
    "src/deep/gen.ts": "needle generated\n",
    ".git/config": "needle in git dir\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  writeFileSync(path.join(dir, "bin.dat"), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]));
});
afterEach(() => cleanup());

describe(".gitignore rules", () => {
  it("applies negation, folder-only, anchored and nested rules", () => {
    const m = new IgnoreMatcher(parseIgnore("*.log\n!keep.log\nout/\n/root-only\ndocs/**/*.tmp\n"));
    expect(m.ignores("x.log", false)).toBe(true);
    expect(m.ignores("a/b/x.log", false)).toBe(true);
    expect(m.ignores("keep.log", false)).toBe(false);
    expect(m.ignores("out", true)).toBe(true);
    expect(m.ignores("out", false)).toBe(false);
    expect(m.ignores("root-only", false)).toBe(true);
    expect(m.ignores("sub/root-only", false)).toBe(false);
    expect(m.ignores("docs/a/b/c.tmp", false)).toBe(true);
    expect(m.ignores("c.tmp", false)).toBe(false);
    const nested = m.with(parseIgnore("*.ts\n", "pkg"));
    expect(nested.ignores("pkg/x.ts", false)).toBe(true);
    expect(nested.ignores("x.ts", false)).toBe(false);
  });

  it("compiles globs with **, classes and braces", () => {
    expect(compileGlob("*.ts").matches("a/b/c.ts")).toBe(true);
    expect(compileGlob("src/**/*.ts").matches("src/x.ts")).toBe(true);
    expect(compileGlob("src/**/*.ts").matches("src/a/b/x.ts")).toBe(true);
    expect(compileGlob("src/*.ts").matches("src/a/x.ts")).toBe(false);
    expect(compileGlob("*.{ts,md}").matches("b.md")).toBe(true);
    expect(compileGlob("[ab].ts").matches("c.ts")).toBe(false);
  });
});

describe("grep tool (pure JS)", () => {
  const grep = () => createGrepTool(dir, { ripgrep: false });

  it("finds matches in sorted order and skips ignored, binary and .git files", async () => {
    const r = await grep().execute("1", { pattern: "needle" });
    expect(r.details.engine).toBe("js");
    expect(textOf(r)).toBe(
      [
        ".env:1: SECRET=needle",
        "a.ts:1: const needle = 1;",
        "keep.log:1: needle in kept log",
        "src/build/x.ts:1: needle in src/build (not root build)",
        "src/deep/c.ts:2: needle two",
        "src/deep/c.ts:5: needle five",
      ].join("\n"),
    );
  });

  it("shows context lines, ignores case, matches literally and filters by glob", async () => {
    const ctx = await grep().execute("1", { pattern: "NEEDLE", ignoreCase: true, path: "src/deep", context: 1 });
    expect(textOf(ctx)).toBe(
      ["c.ts-1- first", "c.ts:2: needle two", "c.ts-3- third", "c.ts-4- fourth", "c.ts:5: needle five"].join("\n"),
    );
    const lit = await grep().execute("1", { pattern: "(not root build)", literal: true });
    expect(textOf(lit)).toBe("src/build/x.ts:1: needle in src/build (not root build)");
    const globbed = await grep().execute("1", { pattern: "needle", glob: "*.ts" });
    expect(
      textOf(globbed)
        .split("\n")
        .map((l) => l.split(":")[0]),
    ).toEqual([
      "a.ts",
      "src/build/x.ts",
      "src/deep/c.ts",
      "src/deep/c.ts",
      "src/deep/gen.ts", // A --glob that names a file overrides .gitignore, as in ripgrep.
    ]);
  });

  it("caps matches with a note saying how to get more, and cuts long lines", async () => {
    writeFileSync(
      path.join(dir, "many.txt"),
      `${Array.from({ length: 50 }, () => "hit").join("\n")}\n${"hit".repeat(300)}\n`,
    );
    const r = await grep().execute("1", { pattern: "hit", path: "many.txt", limit: 10 });
    expect(
      textOf(r)
        .split("\n")
        .filter((l) => l.startsWith("many.txt:")).length,
    ).toBe(10);
    expect(textOf(r)).toContain("[10 matches limit reached. Use limit=20 for more, or refine the pattern]");
    expect(r.details.matchLimitReached).toBe(10);
    const long = await grep().execute("1", { pattern: "(hit){100}", path: "many.txt" });
    expect(textOf(long)).toContain("... [truncated]");
    expect(long.details.linesTruncated).toBe(true);
  });

  it("reports no matches, bad regexes, missing paths and aborts clearly", async () => {
    expect(textOf(await grep().execute("1", { pattern: "zzz_nothing" }))).toBe("No matches found");
    await expect(grep().execute("1", { pattern: "(" })).rejects.toThrow(/^Invalid regex/);
    await expect(grep().execute("1", { pattern: "x", path: "nope" })).rejects.toThrow("Path not found: nope");
    await expect(grep().execute("1", { pattern: "x" }, AbortSignal.abort())).rejects.toThrow("Search aborted");
    await expect(
      createGrepTool(dir, { ripgrep: false, sandbox: true }).execute("1", { pattern: "x", path: ".." }),
    ).rejects.toThrow(/outside the workspace/);
  });
});

describe("find tool (pure JS)", () => {
  const find = () => createFindTool(dir, { ripgrep: false });

  it("matches file names at any depth, respecting .gitignore", async () => {
    expect(textOf(await find().execute("1", { pattern: "*.ts" }))).toBe("a.ts\nsrc/build/x.ts\nsrc/deep/c.ts");
    expect(textOf(await find().execute("1", { pattern: "*.log" }))).toBe("keep.log");
    expect(textOf(await find().execute("1", { pattern: "src/**/*.ts", limit: 1 }))).toBe(
      "src/build/x.ts\n\n[1 results limit reached. Use limit=2 for more, or refine the pattern]",
    );
    expect(textOf(await find().execute("1", { pattern: "*.nothing" }))).toBe("No files found matching pattern");
  });

  it("reports aborts, missing folders and files given as folders", async () => {
    await expect(find().execute("1", { pattern: "*" }, AbortSignal.abort())).rejects.toThrow("Search aborted");
    await expect(find().execute("1", { pattern: "*", path: "nope" })).rejects.toThrow("Path not found: nope");
    await expect(find().execute("1", { pattern: "*", path: "a.ts" })).rejects.toThrow("Not a directory: a.ts");
    await expect(createLsTool(dir).execute("1", {}, AbortSignal.abort())).rejects.toThrow("ls aborted");
  });

  it("does not follow symlinked folders out of the tree", async () => {
    const { dir: outside, cleanup: c2 } = tempDir();
    try {
      writeFileSync(path.join(outside, "far.ts"), "x");
      symlinkSync(outside, path.join(dir, "link"));
      expect(textOf(await find().execute("1", { pattern: "far.ts" }))).toBe("No files found matching pattern");
    } finally {
      c2();
    }
  });
});

describe("ls tool", () => {
  it("lists sorted entries with / on folders, dotfiles included, ignored ones summarized", async () => {
    const r = await createLsTool(dir).execute("1", {});
    expect(textOf(r)).toBe(
      [
        ".env",
        ".git/",
        ".gitignore",
        "a.ts",
        "b.md",
        "bin.dat",
        "keep.log",
        "src/",
        "",
        "[3 ignored by .gitignore: build/, debug.log, node_modules/]",
      ].join("\n"),
    );
    const limited = await createLsTool(dir).execute("1", { path: "src", limit: 1 });
    expect(textOf(limited)).toBe("build/\n\n[1 entries limit reached. Use limit=2 for more]");
    await expect(createLsTool(dir).execute("1", { path: "a.ts" })).rejects.toThrow("Not a directory: a.ts");
  });
});

describe("ripgrep backend", () => {
  it("gives the same results as the JS search when rg is on PATH, and is never required", async () => {
    const rg = findRipgrep();
    const auto = await createGrepTool(dir).execute("1", { pattern: "needle" });
    if (!rg) {
      // Nothing is downloaded: without rg the tool runs the JS search.
      expect(auto.details.engine).toBe("js");
      expect(findRipgrep("/nonexistent-dir")).toBeUndefined();
      return;
    }
    expect(auto.details.engine).toBe("rg");
    for (const search of [
      { pattern: "needle" },
      { pattern: "NEEDLE", ignoreCase: true },
      { pattern: "needle", glob: "*.ts" },
      { pattern: "(not", literal: true },
    ]) {
      const q = { root: dir, limit: 100, ...search };
      expect(await grepWithRipgrep(q, rg)).toEqual(await grepWithJs(q));
    }
    for (const pattern of ["*.ts", "*.log", "src/**", ".env"]) {
      const q = { root: dir, pattern, limit: 100 };
      expect(await findWithRipgrep(q, rg)).toEqual(await findWithJs(q));
    }
  });
});
