/**
 * The event bridge joins a run's cumulative text only while a bus listener reads it: until then the coalesced
 * `assistant` events carry their delta alone (read from the pieces after what was sent, across assistant
 * messages, without the blank line that separates them in the text) and no chat delta is made; from the moment a
 * reader follows, the coalesced event carries the whole text from the run's start, and the first chat delta's
 * `deltaText` rebuilds the `message` it carries.
 */
import { expect, it } from "vitest";
import type { AgentEventPayload, ChatEventPayload } from "../src/protocol/schema/events.js";
import { EventBridge } from "../src/run/event-bridge.js";
import { type BusEvent, EventBus } from "../src/run/event-bus.js";

const message = { role: "assistant", content: [] };
const start = { type: "message_start", message } as never;
const delta = (d: string) =>
  ({
    type: "message_update",
    message,
    assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: d, partial: message },
  }) as never;

it("sends the coalesced deltas alone until a reader follows, then the whole text from the run's start", () => {
  const bus = new EventBus();
  let reading = false;
  const seen: BusEvent[] = [];
  const asked: string[] = [];
  bus.subscribe(
    (e) => seen.push(e),
    (sessionKey) => {
      asked.push(sessionKey);
      return reading;
    },
  );
  const bridge = new EventBridge({ runId: "r1", sessionKey: "s1" }, bus);
  const coalesced = () =>
    seen
      .filter((e) => e.event === "agent" && e.audience === "full")
      .map((e) => (e.payload as AgentEventPayload).data)
      .filter((d) => d.delta !== undefined);
  const chatDeltas = () =>
    seen.map((e) => e.payload as ChatEventPayload).filter((p) => "state" in p && p.state === "delta");

  bridge.handle(start);
  for (const d of ["a", "b", "c"]) bridge.handle(delta(d));
  bridge.emit("tool", { phase: "start", name: "t", toolCallId: "1" });
  bridge.handle(start);
  for (const d of ["x", "y"]) bridge.handle(delta(d));
  bridge.emit("tool", { phase: "start", name: "t", toolCallId: "2" });
  expect(coalesced()).toEqual([{ delta: "a" }, { delta: "bc" }, { delta: "xy" }]);
  expect(chatDeltas()).toEqual([]);
  expect(asked.length).toBeGreaterThan(0);
  expect(new Set(asked)).toEqual(new Set(["s1"]));

  reading = true;
  bridge.handle(delta("z"));
  bridge.emit("tool", { phase: "start", name: "t", toolCallId: "3" });
  expect(coalesced().at(-1)).toEqual({ text: "abc\n\nxyz", delta: "z" });
  const chat = chatDeltas();
  expect(chat).toHaveLength(1);
  expect(chat[0]?.deltaText).toBe("abc\n\nxyz");
  expect(chat[0]?.message).toMatchObject({ content: [{ type: "text", text: "abc\n\nxyz" }] });
  expect(bridge.text).toBe("abc\n\nxyz");
});
