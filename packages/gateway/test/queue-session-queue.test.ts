/** SessionQueues in process, with a controllable executor: modes, cap/drop, abort, lane release. */
import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../src/config/config-types.js";
import { CommandLanes } from "../src/lanes/command-lanes.js";
import { SessionQueues } from "../src/queue/session-queue.js";
import type { RunOutcome, RunRequest } from "../src/run/run-types.js";
import type { Turn } from "../src/run/turn.js";

function harness(settings: Partial<QueueSettings> = {}) {
  const started: Turn[] = [];
  const finished = new Map<string, RunOutcome>();
  const gates = new Map<Turn, () => void>();
  const lanes = new CommandLanes();
  lanes.setConcurrency("main", 4);
  const q = new SessionQueues({
    lanes,
    onStart: (t) => started.push(t),
    execute: (t) =>
      new Promise<RunOutcome>((resolve) => {
        const done = (): void =>
          resolve({
            status: t.abortReason ? "aborted" : "ok",
            summary: t.prompt,
            startedAt: 0,
            endedAt: 0,
            result: {
              payloads: [{ text: t.prompt }],
              meta: { durationMs: 0, agentMeta: { sessionId: "", provider: "", model: "" } },
            },
          });
        gates.set(t, done);
        t.controller.signal.addEventListener("abort", done);
      }),
    finish: (req, o) => finished.set(req.runId, o),
    settings: () => ({ mode: "followup", debounceMs: 0, cap: 20, drop: "summarize", ...settings }),
  });
  const req = (runId: string, message = runId): RunRequest => ({
    runId,
    sessionKey: "s",
    agentId: "main",
    message,
    acceptedAt: 0,
    source: "agent",
  });
  const flush = () => new Promise((r) => setTimeout(r, 5));
  const finishActive = async () => {
    await flush();
    const t = started.at(-1) as Turn;
    gates.get(t)?.();
    await flush();
  };
  return { q, started, finished, req, flush, finishActive, lanes };
}

describe("SessionQueues", () => {
  it("starts at once when idle; followup queues one turn per message", async () => {
    const h = harness();
    expect(h.q.submit(h.req("a"))).toBe("started");
    expect(h.q.submit(h.req("b"))).toBe("queued");
    expect(h.q.submit(h.req("c"))).toBe("queued");
    await h.finishActive();
    await h.finishActive();
    await h.finishActive();
    expect(h.started.map((t) => t.prompt)).toEqual(["a", "b", "c"]);
    expect([...h.finished.keys()]).toEqual(["a", "b", "c"]);
    expect(h.lanes.busy()).toEqual(expect.arrayContaining([expect.objectContaining({ lane: "main", active: 0 })]));
  });

  it("steer before the engine starts folds the message into the turn's prompt", async () => {
    const h = harness({ mode: "steer" });
    h.q.submit(h.req("a"));
    expect(h.q.submit(h.req("b"))).toBe("steered");
    await h.finishActive();
    expect(h.started).toHaveLength(1);
    expect(h.started[0]?.prompt).toBe("a\n\nb");
    expect(h.finished.get("b")).toBe(h.finished.get("a"));
  });

  it("collect merges everything queued into one turn; interrupt aborts and runs the newest", async () => {
    const h = harness({ mode: "collect" });
    h.q.submit(h.req("a"));
    h.q.submit(h.req("b"));
    h.q.submit(h.req("c"));
    await h.finishActive();
    await h.finishActive();
    expect(h.started).toHaveLength(2);
    expect(h.started[1]?.prompt).toContain("Queued #1\nb");
    expect(h.started[1]?.prompt).toContain("Queued #2\nc");

    const i = harness({ mode: "interrupt" });
    i.q.submit(i.req("x"));
    await i.flush();
    i.q.submit(i.req("y"));
    i.q.submit(i.req("z"));
    await i.flush();
    expect(i.finished.get("x")?.status).toBe("aborted");
    expect(i.finished.get("y")?.summary).toMatch(/superseded/);
    await i.finishActive();
    expect(i.finished.get("z")?.status).toBe("ok");
  });

  it("abort by runId removes a queued request; without runId it aborts the active turn", async () => {
    const h = harness();
    h.q.submit(h.req("a"));
    h.q.submit(h.req("b"));
    await h.flush();
    expect(h.q.abort("s", "b")).toEqual(["b"]);
    expect(h.finished.get("b")?.status).toBe("aborted");
    expect(h.q.abort("s")).toEqual(["a"]);
    await h.flush();
    expect(h.finished.get("a")?.status).toBe("aborted");
    expect(h.q.pendingCount("s")).toBe(0);
  });
});
