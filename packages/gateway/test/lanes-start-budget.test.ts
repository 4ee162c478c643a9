/**
 * Lanes start a burst of tasks a few per event-loop turn: work queued by already-running tasks (a streaming run's
 * next deltas) gets the loop between them, and every task still starts, in FIFO order per lane.
 */
import { describe, expect, it } from "vitest";
import { CommandLanes } from "../src/lanes/command-lanes.js";

describe("CommandLanes start budget", () => {
  it("starts at most startsPerTick tasks per turn and lets other callbacks run between the batches", async () => {
    const lanes = new CommandLanes({ startsPerTick: 3 });
    lanes.setConcurrency("main", 100);
    const events: string[] = [];
    // Queued before the burst, like a running session's next delta batch: it must not wait for all 10 starts.
    setImmediate(() => events.push("other"));
    const done = Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        lanes.run("main", async () => {
          events.push(`start ${i}`);
        }),
      ),
    );
    expect(events).toEqual(["start 0", "start 1", "start 2"]);
    expect(lanes.stats("main")).toMatchObject({ active: 3, queued: 7 });
    await done;
    const starts = events.filter((e) => e.startsWith("start"));
    expect(starts).toEqual(Array.from({ length: 10 }, (_, i) => `start ${i}`));
    expect(events.indexOf("other")).toBeGreaterThan(0);
    expect(events.indexOf("other")).toBeLessThan(events.indexOf("start 9"));
  });

  it("counts starts of all lanes together (one run per session lane) and starts them all", async () => {
    const lanes = new CommandLanes({ startsPerTick: 2 });
    const started: string[] = [];
    const runs = Array.from({ length: 7 }, (_, i) =>
      lanes.run(`session:s${i}`, async () => {
        started.push(`s${i}`);
      }),
    );
    expect(started).toEqual(["s0", "s1"]);
    await Promise.all(runs);
    expect(started).toEqual(["s0", "s1", "s2", "s3", "s4", "s5", "s6"]);
    // Idle unconfigured lanes are still forgotten.
    expect(lanes.busy()).toEqual([]);
  });

  it("a lane cleared while it waits for budget rejects its waiting tasks and keeps working afterwards", async () => {
    const lanes = new CommandLanes({ startsPerTick: 1 });
    lanes.setConcurrency("main", 10);
    const a = lanes.run("main", async () => "a");
    const b = lanes.run("main", async () => "b");
    expect(lanes.clear("main", "test")).toBe(1);
    await expect(a).resolves.toBe("a");
    await expect(b).rejects.toThrow(/cleared: test/);
    await expect(lanes.run("main", async () => "c")).resolves.toBe("c");
  });
});
