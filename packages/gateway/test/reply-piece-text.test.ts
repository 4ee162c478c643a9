/** The reply shaper keeps a long reply's text whole (its visible text is kept as pieces, see PieceText). */
import { expect, it } from "vitest";
import { ReplyShaper } from "../src/reply/reply-shaper.js";

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
