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
