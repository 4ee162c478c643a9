import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockChunker } from "../src/reply/block-chunker.js";

function streamThrough(chunker: BlockChunker, text: string, step: number): string[] {
  const blocks: string[] = [];
  for (let i = 0; i < text.length; i += step) {
    chunker.append(text.slice(i, i + step));
    blocks.push(...chunker.drain());
  }
  blocks.push(...chunker.flush());
  return blocks;
}

const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)];

/** Every block boundary must be a grapheme boundary of the original text (blocks concatenate back to it). */
function expectGraphemeSafe(original: string, blocks: string[]) {
  expect(blocks.join("")).toBe(original);
  const boundaries = new Set(graphemes(original).map((g) => g.index));
  let offset = 0;
  for (const b of blocks.slice(0, -1)) {
    offset += b.length;
    expect(boundaries.has(offset)).toBe(true);
  }
}

describe("block chunker: break preference", () => {
  it("waits for minChars, then breaks at a paragraph inside [min, max]", () => {
    const c = new BlockChunker({ minChars: 20, maxChars: 60, breakPreference: "paragraph" });
    c.append("Short intro.\n\n");
    expect(c.drain()).toEqual([]); // below minChars
    c.append("A second paragraph that is long enough.\n\nThird");
    expect(c.drain()).toEqual(["Short intro.\n\nA second paragraph that is long enough."]);
    expect(c.flush()).toEqual(["Third"]);
  });

  it("when the buffer is full without a paragraph, falls back to a line, then a sentence, then whitespace", () => {
    const lines = new BlockChunker({ minChars: 10, maxChars: 40 });
    expect(streamThrough(lines, "line one is here\nline two is here\nline three is here", 5)).toEqual([
      "line one is here\nline two is here",
      "line three is here",
    ]);
    const sentences = new BlockChunker({ minChars: 10, maxChars: 40 });
    expect(streamThrough(sentences, "First sentence here. Second sentence is here. Third.", 7)).toEqual([
      "First sentence here.",
      "Second sentence is here. Third.",
    ]);
    const words = new BlockChunker({ minChars: 10, maxChars: 20 });
    const blocks = streamThrough(words, "alpha beta gamma delta epsilon zeta eta theta", 3);
    expect(blocks.every((b) => b.length <= 20)).toBe(true);
    expect(blocks.join(" ")).toBe("alpha beta gamma delta epsilon zeta eta theta");
  });

  it("a long word is hard-broken at maxChars and nothing is lost", () => {
    const word = "x".repeat(95);
    const blocks = streamThrough(new BlockChunker({ minChars: 10, maxChars: 30 }), word, 7);
    expect(blocks.map((b) => b.length)).toEqual([30, 30, 30, 5]);
    expect(blocks.join("")).toBe(word);
  });

  it("message_end style flush emits everything, still split at maxChars", () => {
    const c = new BlockChunker({ minChars: 100, maxChars: 30 });
    c.append("tiny");
    expect(c.drain()).toEqual([]);
    expect(c.flush()).toEqual(["tiny"]);
    expect(c.pendingLength).toBe(0);
  });
});

describe("block chunker: code fences", () => {
  it("never breaks inside a fence when a break exists outside it", () => {
    const text = "Intro paragraph here.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter the code block.";
    const blocks = streamThrough(new BlockChunker({ minChars: 15, maxChars: 80 }), text, 4);
    for (const b of blocks) expect((b.match(/```/g) ?? []).length % 2).toBe(0);
    expect(blocks.join("\n\n")).toBe(text);
  });

  it("a fence longer than maxChars is closed and reopened with its info string", () => {
    const body = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const text = `\`\`\`python\n${body}\n\`\`\`\nDone.`;
    const blocks = streamThrough(new BlockChunker({ minChars: 20, maxChars: 60 }), text, 5);
    expect(blocks.length).toBeGreaterThan(2);
    for (const b of blocks.slice(0, -1)) {
      expect(b.startsWith("```python\n")).toBe(true);
      expect(b.endsWith("\n```")).toBe(true);
      expect(b.length).toBeLessThanOrEqual(64);
    }
    // All code lines survive, in order, exactly once.
    const lines = blocks
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("line "));
    expect(lines).toEqual(body.split("\n"));
    expect(blocks.at(-1)?.endsWith("Done.")).toBe(true);
  });

  it("a tilde fence and an inline ``` mention are told apart", () => {
    const text = "Use ```inline``` here.\n~~~\na\n\nb\n~~~\n\nend of text";
    const blocks = streamThrough(new BlockChunker({ minChars: 5, maxChars: 200 }), text, 3);
    expect(blocks).toEqual(["Use ```inline``` here.\n~~~\na\n\nb\n~~~", "end of text"]);
  });
});

describe("block chunker: unicode", () => {
  it("CJK text breaks after sentence punctuation and stays within maxChars", () => {
    const text = "今天天气很好。我们去公园散步吧！你觉得怎么样？好的，我们走吧。".repeat(4);
    const blocks = streamThrough(new BlockChunker({ minChars: 10, maxChars: 25 }), text, 3);
    expect(blocks.join("")).toBe(text);
    for (const b of blocks) {
      expect(b.length).toBeLessThanOrEqual(25);
      expect(b.at(-1)).toMatch(/[。！？]/);
    }
  });

  it("emoji: surrogate pairs, ZWJ families, flags and skin tones are never split", () => {
    const text = "👨‍👩‍👧‍👦🇫🇷👍🏽😀".repeat(12);
    for (const max of [7, 8, 9, 10, 11, 13]) {
      const blocks = streamThrough(new BlockChunker({ minChars: 1, maxChars: max }), text, 5);
      expectGraphemeSafe(text, blocks);
    }
  });

  it("property: any text and any delta size loses no non-space character and keeps blocks ≤ maxChars", () => {
    const alphabet = fc.constantFrom("a", "b", " ", "\n", ".", "。", "😀", "é", "中", "!", "\n\n");
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 300 }).map((a) => a.join("")),
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 4, max: 40 }),
        (text, step, max) => {
          const blocks = streamThrough(new BlockChunker({ minChars: Math.floor(max / 2), maxChars: max }), text, step);
          for (const b of blocks) expect(b.length).toBeLessThanOrEqual(max);
          expect(blocks.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("block chunker: cost", () => {
  it("one-character deltas over 400k characters stay linear", () => {
    const para = `${"word ".repeat(60)}\n\n`;
    const text = para.repeat(Math.ceil(400_000 / para.length));
    const c = new BlockChunker({ minChars: 800, maxChars: 1200 });
    const t0 = performance.now();
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      c.append(text[i] as string);
      n += c.drain().length;
    }
    n += c.flush().length;
    const ms = performance.now() - t0;
    expect(n).toBeGreaterThan(300);
    expect(ms).toBeLessThan(3000);
  });
});
