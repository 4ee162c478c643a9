/**
 * The stream's queue is a ring reused for the stream's life (it doubles when full): however pushes, reads and
 * drains interleave (the ring wrapping around, growing while wrapped), every event comes out once, in push order.
 */
import { expect, test } from "vitest";
import { EventStream } from "../src/event-stream.js";

test("events come out once, in push order, across wrap-arounds, growth and drains", async () => {
  const s = new EventStream<number, number>(
    (n) => n < 0,
    (n) => n,
  );
  const it = s[Symbol.asyncIterator]();
  const out: number[] = [];
  let next = 0;
  // Bursts of 1..40 events, each read partly by iteration and partly by drainQueued, some left queued.
  for (let round = 0; round < 60; round++) {
    const burst = 1 + ((round * 7) % 40);
    for (let i = 0; i < burst; i++) s.push(next++);
    const reads = round % 3 === 0 ? burst : Math.floor(burst / 2);
    for (let i = 0; i < reads; i++) out.push((await it.next()).value as number);
    if (round % 4 === 1) out.push(...(s.drainQueued?.() ?? []));
  }
  out.push(...(s.drainQueued?.() ?? []));
  expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
  s.push(-1);
  expect((await it.next()).value).toBe(-1);
  expect((await it.next()).done).toBe(true);
  expect(await s.result()).toBe(-1);
});
