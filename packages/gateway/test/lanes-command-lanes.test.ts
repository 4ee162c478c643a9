/** Lanes: FIFO per lane, caps, release on any ending, clear and drain. */
import { describe, expect, it } from "vitest";
import { CommandLanes, LaneClearedError } from "../src/lanes/command-lanes.js";

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe("CommandLanes", () => {
  it("runs at most `cap` tasks of a lane at once, in FIFO order", async () => {
    const lanes = new CommandLanes();
    lanes.setConcurrency("main", 2);
    let live = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        lanes.run("main", async () => {
          order.push(i);
          live++;
          peak = Math.max(peak, live);
          await tick();
          live--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("releases the slot when a task throws or rejects, so the lane never stays stuck", async () => {
    const lanes = new CommandLanes();
    await expect(
      lanes.run("session:a", () => {
        throw new Error("sync boom");
      }),
    ).rejects.toThrow("sync boom");
    await expect(lanes.run("session:a", async () => Promise.reject(new Error("async boom")))).rejects.toThrow();
    expect(await lanes.run("session:a", async () => 42)).toBe(42);
    expect(lanes.stats("session:a")).toMatchObject({ active: 0, queued: 0 });
  });

  it("clear rejects waiting tasks only; drain refuses new work", async () => {
    const lanes = new CommandLanes();
    let release!: () => void;
    const running = lanes.run("x", () => new Promise<string>((r) => (release = () => r("done"))));
    const waiting = lanes.run("x", async () => "never");
    expect(lanes.clear("x", "interrupt")).toBe(1);
    await expect(waiting).rejects.toBeInstanceOf(LaneClearedError);
    release();
    expect(await running).toBe("done");
    lanes.drain();
    await expect(lanes.run("y", async () => 1)).rejects.toThrow(/shutting down/);
  });

  it("forgets idle unconfigured lanes (one per session would otherwise accumulate)", async () => {
    const lanes = new CommandLanes();
    for (let i = 0; i < 100; i++) await lanes.run(`session:${i}`, async () => i);
    expect(lanes.busy()).toEqual([]);
  });
});
