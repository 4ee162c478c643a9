import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool } from "../src/tools/read.js";
import { createWriteTool } from "../src/tools/write.js";
import { tempDir, textOf } from "./tool-helpers.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("read tool", () => {
  it("reads a small file whole", async () => {
    writeFileSync(path.join(dir, "a.txt"), "one\ntwo\n");
    const r = await createReadTool(dir).execute("1", { path: "a.txt" });
    expect(textOf(r)).toBe("one\ntwo");
  });

  it("truncates at 2,000 lines and says which offset continues", async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`);
    writeFileSync(path.join(dir, "big.txt"), lines.join("\n"));
    const tool = createReadTool(dir);
    const first = textOf(await tool.execute("1", { path: "big.txt" }));
    expect(first).toContain("line 2000\n");
    expect(first).not.toContain("line 2001");
    expect(first).toContain("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]");
    const next = textOf(await tool.execute("2", { path: "big.txt", offset: 2001 }));
    expect(next.startsWith("line 2001\n")).toBe(true);
    expect(next.trimEnd().endsWith("line 2500")).toBe(true);
  });

  it("truncates at 50 KB before the line limit", async () => {
    const line = "x".repeat(999);
    writeFileSync(path.join(dir, "wide.txt"), Array(100).fill(line).join("\n"));
    const r = await createReadTool(dir).execute("1", { path: "wide.txt" });
    const text = textOf(r);
    expect(text).toContain("[Showing lines 1-51 of 100. Use offset=52 to continue.]");
    expect(r.details.truncation?.truncatedBy).toBe("bytes");
  });

  it("honours offset and limit and says how many lines remain", async () => {
    writeFileSync(path.join(dir, "a.txt"), "1\n2\n3\n4\n5\n");
    const text = textOf(await createReadTool(dir).execute("1", { path: "a.txt", offset: 2, limit: 2 }));
    expect(text).toBe("2\n3\n\n[2 more lines in file. Use offset=4 to continue.]");
    const fromZero = textOf(await createReadTool(dir).execute("1", { path: "a.txt", offset: 0, limit: 1 }));
    expect(fromZero).toBe("1\n\n[4 more lines in file. Use offset=2 to continue.]");
    await expect(createReadTool(dir).execute("1", { path: "a.txt", offset: -3 })).rejects.toThrow(
      "offset must be a positive integer, got -3",
    );
  });

  it("refuses an offset past the end and a missing file with clear errors", async () => {
    writeFileSync(path.join(dir, "a.txt"), "1\n2\n");
    const tool = createReadTool(dir);
    await expect(tool.execute("1", { path: "a.txt", offset: 10 })).rejects.toThrow(
      "Offset 10 is beyond the end of the file (2 lines)",
    );
    await expect(tool.execute("1", { path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
    await expect(tool.execute("1", { path: "." })).rejects.toThrow("Path is a directory");
  });

  it("points to sed when a single line is over the byte limit", async () => {
    writeFileSync(path.join(dir, "min.js"), "y".repeat(60 * 1024));
    const text = textOf(await createReadTool(dir).execute("1", { path: "min.js" }));
    expect(text).toContain("[Line 1 is 60.0KB, over the 50.0KB limit. Use bash: sed -n '1p' min.js");
  });

  it("returns images as image blocks, or a note for text-only models", async () => {
    writeFileSync(path.join(dir, "dot.dat"), PNG_1PX);
    const r = await createReadTool(dir).execute("1", { path: "dot.dat" });
    const img = r.content.find((c) => c.type === "image");
    expect(img).toEqual({ type: "image", mimeType: "image/png", data: PNG_1PX.toString("base64") });
    const noted = await createReadTool(dir, { modelAcceptsImages: false }).execute("1", { path: "dot.dat" });
    expect(noted.content.every((c) => c.type === "text")).toBe(true);
    expect(textOf(noted)).toContain("The current model cannot view images");
  });

  it("rejects promptly when the signal is already aborted", async () => {
    writeFileSync(path.join(dir, "a.txt"), "x");
    await expect(createReadTool(dir).execute("1", { path: "a.txt" }, AbortSignal.abort())).rejects.toThrow(/aborted/);
  });
});

describe("write tool", () => {
  it("creates parent folders and overwrites", async () => {
    const tool = createWriteTool(dir);
    await tool.execute("1", { path: "deep/er/file.txt", content: "first" });
    const r = await tool.execute("2", { path: "deep/er/file.txt", content: "héllo" });
    expect(readFileSync(path.join(dir, "deep/er/file.txt"), "utf8")).toBe("héllo");
    expect(textOf(r)).toBe("Wrote 6 bytes to deep/er/file.txt");
  });

  it("says when the target is a directory", async () => {
    mkdirSync(path.join(dir, "d"));
    await expect(createWriteTool(dir).execute("1", { path: "d", content: "x" })).rejects.toThrow(
      "Path is a directory: d",
    );
  });
});

describe("sandbox", () => {
  it("refuses reads and writes outside the root, through .. and absolute paths", async () => {
    const { dir: outside, cleanup: cleanOut } = tempDir();
    try {
      writeFileSync(path.join(outside, "secret.txt"), "s3cret");
      const read = createReadTool(dir, { sandbox: true });
      const write = createWriteTool(dir, { sandbox: true });
      const rel = path.relative(dir, path.join(outside, "secret.txt"));
      await expect(read.execute("1", { path: rel })).rejects.toThrow(/outside the workspace/);
      await expect(read.execute("1", { path: path.join(outside, "secret.txt") })).rejects.toThrow(
        /outside the workspace/,
      );
      await expect(write.execute("1", { path: "../x.txt", content: "x" })).rejects.toThrow(/outside the workspace/);
      // Without the sandbox the same read works.
      expect(textOf(await createReadTool(dir).execute("1", { path: rel }))).toBe("s3cret");
    } finally {
      cleanOut();
    }
  });

  it("refuses symlinks that lead outside, even dangling ones and linked folders", async () => {
    const { dir: outside, cleanup: cleanOut } = tempDir();
    try {
      writeFileSync(path.join(outside, "secret.txt"), "s3cret");
      symlinkSync(path.join(outside, "secret.txt"), path.join(dir, "link.txt"));
      symlinkSync(outside, path.join(dir, "linkdir"));
      symlinkSync(path.join(outside, "not-yet.txt"), path.join(dir, "dangling.txt"));
      const read = createReadTool(dir, { sandbox: true });
      const write = createWriteTool(dir, { sandbox: true });
      await expect(read.execute("1", { path: "link.txt" })).rejects.toThrow(/outside the workspace/);
      await expect(read.execute("1", { path: "linkdir/secret.txt" })).rejects.toThrow(/outside the workspace/);
      await expect(write.execute("1", { path: "linkdir/new.txt", content: "x" })).rejects.toThrow(
        /outside the workspace/,
      );
      await expect(write.execute("1", { path: "dangling.txt", content: "x" })).rejects.toThrow(/outside the workspace/);
      // Inside links and new files inside are fine.
      writeFileSync(path.join(dir, "real.txt"), "ok");
      symlinkSync(path.join(dir, "real.txt"), path.join(dir, "inner-link.txt"));
      expect(textOf(await read.execute("1", { path: "inner-link.txt" }))).toBe("ok");
      await write.execute("1", { path: "new/dir/file.txt", content: "fine" });
      expect(readFileSync(path.join(dir, "new/dir/file.txt"), "utf8")).toBe("fine");
    } finally {
      cleanOut();
    }
  });
});
