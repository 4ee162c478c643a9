import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unifiedDiff } from "../src/tools/diff.js";
import { createEditTool } from "../src/tools/edit.js";
import { createWriteTool } from "../src/tools/write.js";
import { tempDir, textOf } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const file = (name: string) => path.join(dir, name);

describe("edit tool", () => {
  it("applies several replacements matched against the original file and returns a diff", async () => {
    writeFileSync(file("a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const r = await createEditTool(dir).execute("1", {
      path: "a.ts",
      edits: [
        { oldText: "const c = 3;", newText: "const c = 30;" },
        { oldText: "const a = 1;", newText: "const a = 10;\nconst a2 = 11;" },
      ],
    });
    expect(readFileSync(file("a.ts"), "utf8")).toBe("const a = 10;\nconst a2 = 11;\nconst b = 2;\nconst c = 30;\n");
    expect(r.details.diff).toContain("-const a = 1;\n+const a = 10;\n+const a2 = 11;");
    expect(r.details.diff).toContain("-const c = 3;\n+const c = 30;");
    expect(r.details.firstChangedLine).toBe(1);
    expect(textOf(r)).toContain("Edited a.ts: 2 replacements");
  });

  it("refuses a not-found, an ambiguous, an overlapping and a no-op edit, leaving the file alone", async () => {
    const original = "foo\nbar\nfoo\nbaz\n";
    writeFileSync(file("a.txt"), original);
    const tool = createEditTool(dir);
    await expect(tool.execute("1", { path: "a.txt", edits: [{ oldText: "qux", newText: "x" }] })).rejects.toThrow(
      "Could not find oldText in a.txt",
    );
    await expect(tool.execute("1", { path: "a.txt", edits: [{ oldText: "foo", newText: "x" }] })).rejects.toThrow(
      "Found 2 matches for oldText in a.txt; each edit must match exactly one region",
    );
    await expect(
      tool.execute("1", {
        path: "a.txt",
        edits: [
          { oldText: "bar\nfoo", newText: "1" },
          { oldText: "foo\nbaz", newText: "2" },
        ],
      }),
    ).rejects.toThrow("edits[0] and edits[1] overlap");
    await expect(tool.execute("1", { path: "a.txt", edits: [{ oldText: "baz", newText: "baz" }] })).rejects.toThrow(
      "No changes made to a.txt",
    );
    await expect(tool.execute("1", { path: "a.txt", edits: [{ oldText: "", newText: "x" }] })).rejects.toThrow(
      "oldText is empty",
    );
    await expect(tool.execute("1", { path: "b.txt", edits: [{ oldText: "a", newText: "b" }] })).rejects.toThrow(
      "File not found: b.txt",
    );
    expect(readFileSync(file("a.txt"), "utf8")).toBe(original);
  });

  it("keeps the BOM and CRLF line endings", async () => {
    writeFileSync(file("win.txt"), "\ufeffline one\r\nline two\r\nline three\r\n");
    await createEditTool(dir).execute("1", {
      path: "win.txt",
      edits: [{ oldText: "line two\nline three", newText: "line 2\nline 3" }],
    });
    expect(readFileSync(file("win.txt"), "utf8")).toBe("\ufeffline one\r\nline 2\r\nline 3\r\n");
  });

  it("falls back to a whitespace- and quote-tolerant match", async () => {
    writeFileSync(file("q.py"), "def f():   \n    print(\u201chi\u201d)  \n    return 1\n");
    const r = await createEditTool(dir).execute("1", {
      path: "q.py",
      edits: [{ oldText: 'def f():\n    print("hi")', newText: "def f():\n    print('bye')" }],
    });
    expect(readFileSync(file("q.py"), "utf8")).toBe("def f():\n    print('bye')  \n    return 1\n");
    expect(r.details.fuzzyEdits).toEqual([0]);
  });

  it("maps a tolerant match that starts and ends mid-line back to the original text", async () => {
    writeFileSync(file("m.js"), "x = \u201ca\u201d;  \ny = 1;  \n");
    await createEditTool(dir).execute("1", { path: "m.js", edits: [{ oldText: '"a";\ny', newText: '"b";\nz' }] });
    expect(readFileSync(file("m.js"), "utf8")).toBe('x = "b";\nz = 1;  \n');
  });

  it("tolerates tabs versus spaces in indentation when that is the only difference", async () => {
    writeFileSync(file("t.go"), "func f() {\n\tx := 1\n\treturn x\n}\n");
    await createEditTool(dir).execute("1", {
      path: "t.go",
      edits: [{ oldText: "    x := 1\n    return x", newText: "\tx := 2\n\treturn x" }],
    });
    expect(readFileSync(file("t.go"), "utf8")).toBe("func f() {\n\tx := 2\n\treturn x\n}\n");
  });

  it("accepts the legacy single oldText/newText shape", async () => {
    writeFileSync(file("a.txt"), "hello world\n");
    const tool = createEditTool(dir);
    const args = tool.prepareArguments!({ path: "a.txt", oldText: "world", newText: "there" });
    await tool.execute("1", args);
    expect(readFileSync(file("a.txt"), "utf8")).toBe("hello there\n");
  });

  it("serializes parallel edits and writes to one file so none is lost", async () => {
    writeFileSync(file("n.txt"), Array.from({ length: 20 }, (_, i) => `v${i}=0`).join("\n"));
    const edit = createEditTool(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        edit.execute(String(i), { path: "n.txt", edits: [{ oldText: `v${i}=0`, newText: `v${i}=1` }] }),
      ),
    );
    expect(readFileSync(file("n.txt"), "utf8")).toBe(Array.from({ length: 20 }, (_, i) => `v${i}=1`).join("\n"));
    // A write queued between edits lands in order: the edit after it sees the written content.
    const write = createWriteTool(dir);
    await Promise.all([
      write.execute("w", { path: "n.txt", content: "fresh\n" }),
      edit.execute("e", { path: "n.txt", edits: [{ oldText: "fresh", newText: "edited" }] }),
    ]);
    expect(readFileSync(file("n.txt"), "utf8")).toBe("edited\n");
  });

  it("does nothing when the run is already aborted", async () => {
    writeFileSync(file("a.txt"), "keep\n");
    await expect(
      createEditTool(dir).execute(
        "1",
        { path: "a.txt", edits: [{ oldText: "keep", newText: "x" }] },
        AbortSignal.abort(),
      ),
    ).rejects.toThrow("Edit aborted");
    await expect(
      createWriteTool(dir).execute("1", { path: "a.txt", content: "x" }, AbortSignal.abort()),
    ).rejects.toThrow("Write aborted");
    expect(readFileSync(file("a.txt"), "utf8")).toBe("keep\n");
  });

  it("refuses escapes from the sandbox", async () => {
    await expect(
      createEditTool(dir, { sandbox: true }).execute("1", {
        path: "/etc/hostname",
        edits: [{ oldText: "a", newText: "b" }],
      }),
    ).rejects.toThrow(/outside the workspace/);
  });
});

describe("unified diff", () => {
  it("renders separate hunks with context and correct ranges", () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    const b = [...a];
    b[1] = "changed2";
    b.splice(15, 1);
    const { diff, firstChangedLine } = unifiedDiff(a.join("\n"), b.join("\n"), "f");
    expect(firstChangedLine).toBe(2);
    expect(diff).toContain("@@ -1,5 +1,5 @@\n l1\n-l2\n+changed2\n l3");
    expect(diff).toContain("@@ -13,7 +13,6 @@\n l13\n l14\n l15\n-l16\n l17");
  });
});
