/** A reply's text kept as pieces in fixed blocks: whatever the number of pieces and reads, it reads back exactly. */
import { expect, it } from "vitest";
import { PieceText } from "../src/reply/piece-text.js";
import { ReplyShaper } from "../src/reply/reply-shaper.js";

it("reads back every piece in order across blocks, between reads and after them", () => {
  const t = new PieceText();
  let expected = "";
  expect(t.toString()).toBe("");
  for (let i = 0; i < 1000; i++) {
    const piece = i % 7 === 0 ? "" : `p${i}|`;
    t.append(piece);
    expected += piece;
    if (i === 300 || i === 301 || i === 777) expect(t.toString()).toBe(expected);
  }
  expect(t.length).toBe(expected.length);
  expect(t.toString()).toBe(expected);
  expect(t.toString()).toBe(expected);
});

it("a reply of 5,000 deltas comes out of the reply shaper whole", () => {
  const shaper = new ReplyShaper();
  const message = { role: "assistant", content: [], stopReason: "stop" } as never;
  shaper.handleEvent({ type: "message_start", message });
  const deltas = Array.from({ length: 5000 }, (_, i) => `w${i} `);
  for (const delta of deltas) {
    shaper.handleEvent({
      type: "message_update",
      message,
      assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: message },
    } as never);
  }
  shaper.handleEvent({ type: "message_end", message });
  expect(shaper.finalize()).toEqual([{ text: deltas.join("").trim() }]);
});

it("reads any tail without the text before it, across blocks, cut pieces and earlier whole reads", () => {
  const t = new PieceText();
  let expected = "";
  expect(t.sliceFrom(0)).toBe("");
  for (let i = 0; i < 700; i++) {
    const piece = `q${i}-`;
    t.append(piece);
    expected += piece;
    // Tails that start inside a piece, on a piece's edge, a block back, and at the very start or end.
    for (const start of [expected.length - 1, expected.length - piece.length, expected.length - 1500, 0, 3]) {
      expect(t.sliceFrom(start)).toBe(expected.slice(Math.max(0, start)));
    }
    expect(t.sliceFrom(expected.length)).toBe("");
    if (i === 400) expect(t.toString()).toBe(expected);
  }
  expect(t.toString()).toBe(expected);
  expect(t.sliceFrom(10)).toBe(expected.slice(10));
});
