/**
 * A stream lets go of each event once it is consumed: a reader that keeps up does not keep a backlog of read events
 * (each with its partial message) alive until the queue's next compaction, for every session streaming at once.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, test } from "vitest";
import { EventStream } from "../src/event-stream.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

test("events already read are collectable while the stream is still open", async () => {
  const s = new EventStream<{ n: number; payload: string }, number>(
    (e) => e.n < 0,
    (e) => e.n,
  );
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < 100; i++) {
    const e = { n: i, payload: `x${i}`.repeat(100) };
    refs.push(new WeakRef(e));
    s.push(e);
  }
  const it = s[Symbol.asyncIterator]();
  for (let i = 0; i < 100; i++) expect((await it.next()).value?.n).toBe(i);
  // WeakRef targets stay alive until the job that made them ends.
  await new Promise((r) => setTimeout(r, 0));
  gc();
  // (The last one read may still be referenced by the reader's own last result.)
  expect(refs.slice(0, 99).filter((r) => r.deref() !== undefined)).toHaveLength(0);
  s.push({ n: -1, payload: "" });
  expect(await s.result()).toBe(-1);
});
