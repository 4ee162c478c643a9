import { expect, test } from "vitest";
import { EventStream } from "../src/event-stream.js";

const numbers = () =>
  new EventStream<number, number>(
    (n) => n < 0,
    (n) => n,
  );

test("drainQueued hands over every buffered event at once and iteration continues after them", async () => {
  const s = numbers();
  for (const n of [1, 2, 3]) s.push(n);
  const it = s[Symbol.asyncIterator]();
  expect((await it.next()).value).toBe(1);
  expect(s.drainQueued?.()).toEqual([2, 3]);
  expect(s.drainQueued?.()).toEqual([]);
  s.push(4);
  s.push(-1);
  expect((await it.next()).value).toBe(4);
  expect((await it.next()).value).toBe(-1);
  expect((await it.next()).done).toBe(true);
  expect(await s.result()).toBe(-1);
});

test("drainQueued on an empty stream does not disturb a waiting reader", async () => {
  const s = numbers();
  const it = s[Symbol.asyncIterator]();
  const pending = it.next();
  expect(s.drainQueued?.()).toEqual([]);
  s.push(7);
  expect((await pending).value).toBe(7);
});
