/**
 * A paused call's wait ends without a person too: the timeout applies `timeoutBehavior` (allow runs the call once,
 * deny gives the model a timed-out denial), and abort cancels the wait (the call never runs, the run ends).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, type ApprovalRequest } from "../src/index.js";
import { gatedTool, nextApproval } from "./helpers/approvals.js";
import { model, recorder, scripted, textOf } from "./helpers/scripted.js";

function setup(request: ApprovalRequest) {
  const ran: string[] = [];
  const { streamFn, calls } = scripted([
    { blocks: [{ call: "run", args: { command: "make" }, id: "m" }] },
    { blocks: [{ text: "after" }] },
  ]);
  const agent = new Agent({ initialState: { model, tools: [gatedTool(ran, () => request)] }, streamFn });
  const rec = recorder();
  agent.subscribe(rec.listener);
  return { agent, ran, calls, rec };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("approval timeout and abort", () => {
  it('timeoutBehavior "allow": nobody answers, the call runs once when the timeout passes', async () => {
    const { agent, ran, rec } = setup({ title: "Build?", timeoutMs: 30, timeoutBehavior: "allow" });
    await agent.prompt("go");
    expect(ran).toEqual(["make"]);
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({
      cause: "timeout",
      resolution: { decision: "allow-once", by: "timeout" },
    });
    expect(agent.getPendingApprovals()).toEqual([]);
  });

  it('timeoutBehavior "deny" (the default): the call does not run and the model is told it timed out', async () => {
    const { agent, ran, rec, calls } = setup({ title: "Build?", timeoutMs: 30 });
    const asked = nextApproval(agent);
    await agent.prompt("go");
    const [approval] = await asked;
    expect(ran).toEqual([]);
    const result = agent.state.messages.find((m) => m.role === "toolResult");
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toBe('Denied: no decision on running "run" within 30 ms, so it was not run.');
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({
      cause: "timeout",
      resolution: { decision: "deny", by: "timeout" },
    });
    expect(calls).toHaveLength(2);
    // A late decision finds nothing to resolve.
    expect(agent.resolveApproval(approval!.id, "allow-once")).toBe(false);
  });

  it("a decision before the timeout wins; the timer is cleared and cannot decide again", async () => {
    // Only timers are faked (the scripted stream paces itself with setImmediate).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { agent, ran, rec } = setup({ title: "Build?", timeoutMs: 60_000, timeoutBehavior: "allow" });
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    expect(vi.getTimerCount()).toBe(1);
    agent.resolveApproval(approval!.id, "deny");
    await run;
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(120_000);
    expect(ran).toEqual([]);
    expect(rec.events.filter((e) => e.type === "tool_approval_end")).toHaveLength(1);
  });

  it("abort cancels the wait: the call never runs, the run ends aborted, nothing stays pending", async () => {
    const { agent, ran, rec, calls } = setup({ title: "Build?" });
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    agent.abort();
    await run;
    expect(ran).toEqual([]);
    expect(agent.getPendingApprovals()).toEqual([]);
    expect(agent.resolveApproval(approval!.id, "allow-once")).toBe(false);
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({
      cause: "aborted",
      resolution: { decision: "deny", by: "abort" },
    });
    const result = agent.state.messages.find((m) => m.role === "toolResult");
    expect(textOf(result)).toMatch(/"run" was interrupted \(aborted, or a new message arrived\) while waiting/);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(calls).toHaveLength(1); // the model was not asked again
    expect(agent.state.isStreaming).toBe(false);
  });
});
