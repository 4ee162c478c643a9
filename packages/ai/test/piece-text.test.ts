/** A reply's text kept as pieces in fixed blocks: whatever the number of pieces and reads, it reads back exactly. */
import { expect, it } from "vitest";
import { PieceText } from "../src/piece-text.js";

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

it("says whether it equals a string, piece by piece, across blocks and after reads", () => {
  const t = new PieceText();
  expect(t.equals("")).toBe(true);
  expect(t.equals("x")).toBe(false);
  let expected = "";
  for (let i = 0; i < 600; i++) {
    const piece = `e${i}.`;
    t.append(piece);
    expected += piece;
    if (i === 300) expect(t.toString()).toBe(expected);
  }
  expect(t.equals(expected)).toBe(true);
  // Same length, one character changed at the start, in the middle (inside a piece) and at the end.
  for (const at of [0, Math.floor(expected.length / 2), expected.length - 1]) {
    const changed = `${expected.slice(0, at)}#${expected.slice(at + 1)}`;
    expect(t.equals(changed)).toBe(false);
  }
  expect(t.equals(`${expected}!`)).toBe(false);
  expect(t.equals(expected.slice(1))).toBe(false);
});

it("take() hands over the text and starts empty, however many blocks it held", () => {
  const t = new PieceText();
  expect(t.take()).toBe("");
  let all = "";
  let taken = "";
  for (let round = 0; round < 5; round++) {
    let expected = "";
    // 1, 300 and 700 pieces: one piece, two blocks, three blocks.
    for (let i = 0; i < [1, 300, 700, 2, 256][round]; i++) {
      const piece = `r${round}p${i};`;
      t.append(piece);
      expected += piece;
    }
    all += expected;
    expect(t.length).toBe(expected.length);
    const got = t.take();
    expect(got).toBe(expected);
    taken += got;
    expect(t.length).toBe(0);
    expect(t.toString()).toBe("");
  }
  expect(taken).toBe(all);
});
