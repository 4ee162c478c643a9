import { describe, expect, it } from "vitest";
import { OutputSink, sanitizeOutput } from "../src/tools/output-sink.js";
import { countLines, truncateHead, truncateTail } from "../src/tools/truncate.js";

describe("truncation limits", () => {
  it("counts a trailing newline as ending the last line", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\n")).toBe(1);
    expect(countLines("a\n\nb")).toBe(3);
  });

  it("keeps whole lines from the head, by whichever limit is hit first", () => {
    const byLines = truncateHead("1\n2\n3\n4\n", { maxLines: 2 });
    expect(byLines).toMatchObject({ content: "1\n2", truncatedBy: "lines", totalLines: 4, outputLines: 2 });
    const byBytes = truncateHead("aaaa\nbbbb\ncccc", { maxBytes: 10 });
    expect(byBytes).toMatchObject({ content: "aaaa\nbbbb", truncatedBy: "bytes", outputBytes: 9 });
    expect(truncateHead("toolongline", { maxBytes: 4 }).firstLineExceedsLimit).toBe(true);
  });

  it("keeps the tail, cutting a single oversized last line on a character boundary", () => {
    expect(truncateTail("1\n2\n3\n4", { maxLines: 2 }).content).toBe("3\n4");
    const partial = truncateTail(`x\n${"é".repeat(10)}`, { maxBytes: 5 });
    expect(partial.lastLinePartial).toBe(true);
    expect(partial.content).toBe("éé");
  });

  it("strips terminal escapes and carriage returns from command output", () => {
    expect(sanitizeOutput("\u001b[31mred\u001b[0m\r\nnext\u0007")).toBe("red\nnext");
  });

  it("keeps memory bounded while the full output goes to the spill file", async () => {
    const sink = new OutputSink({ maxBytes: 1000, maxLines: 50 });
    for (let i = 0; i < 5000; i++) sink.write(Buffer.from(`line ${i}\n`));
    const snap = await sink.finish();
    expect(snap.text.split("\n").at(-1)).toBe("line 4999");
    expect(snap.truncation.totalLines).toBe(5000);
    expect(snap.fullOutputPath).toBeDefined();
    expect((sink as unknown as { tail: string }).tail.length).toBeLessThanOrEqual(4000);
    const { readFileSync, rmSync } = await import("node:fs");
    expect(readFileSync(snap.fullOutputPath!, "utf8").split("\n").length).toBe(5001);
    rmSync(snap.fullOutputPath!.replace(/\/output\.log$/, ""), { recursive: true, force: true });
  });
});
