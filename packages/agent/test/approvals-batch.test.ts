/**
 * A paused call does not hold up the rest of its batch in parallel mode, and steering sent while a call waits is
 * delivered as usual (at the next boundary / LLM call).
 */
import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentTool, SKIPPED_FOR_STEERING } from "../src/index.js";
import { gatedTool, nextApproval } from "./helpers/approvals.js";
import { model, recorder, scripted, textOf } from "./helpers/scripted.js";

const readParams = Type.Object({ path: Type.String() });
function readTool(read: string[]): AgentTool<typeof readParams> {
  return {
    name: "read",
    label: "read",
    description: "",
    parameters: readParams,
    execute: async (_id, { path }) => {
      read.push(path);
      return { content: [{ type: "text", text: `contents of ${path}` }], details: {} };
    },
  };
}

describe("approvals in a batch", () => {
  it("parallel: the other calls run and end while one call waits; results keep the assistant's order", async () => {
    const ran: string[] = [];
    const read: string[] = [];
    const { streamFn } = scripted([
      {
        blocks: [
          { call: "read", args: { path: "a" }, id: "r1" },
          { call: "run", args: { command: "deploy" }, id: "g" },
          { call: "read", args: { path: "b" }, id: "r2" },
        ],
      },
      { blocks: [{ text: "done" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [readTool(read), gatedTool(ran)] }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    const asked = nextApproval(agent);
    const bothReadsEnded = new Promise<void>((resolve) => {
      let n = 0;
      agent.subscribe("tool_execution_end", (e) => {
        if (e.toolName === "read" && ++n === 2) resolve();
      });
    });
    const run = agent.prompt("go");
    const [approval] = await asked;
    await bothReadsEnded; // while "g" still waits
    expect(read).toEqual(["a", "b"]);
    expect(ran).toEqual([]);
    expect(agent.state.pendingToolCalls).toEqual(new Set(["g"]));
    agent.resolveApproval(approval!.id, "allow-once");
    await run;
    expect(ran).toEqual(["deploy"]);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => r.toolCallId)).toEqual(["r1", "g", "r2"]);
    expect(results.every((r) => !r.isError)).toBe(true);
  });

  it("parallel: two calls wait at once and are decided independently", async () => {
    const ran: string[] = [];
    const { streamFn } = scripted([
      {
        blocks: [
          { call: "run", args: { command: "one" }, id: "g1" },
          { call: "run", args: { command: "two" }, id: "g2" },
        ],
      },
      { blocks: [{ text: "done" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [gatedTool(ran)] }, streamFn });
    const asked = nextApproval(agent, 2);
    const run = agent.prompt("go");
    const [a1, a2] = await asked;
    expect(agent.getPendingApprovals().map((a) => a.toolCall.id)).toEqual(["g1", "g2"]);
    agent.resolveApproval(a2!.id, "allow-once");
    agent.resolveApproval(a1!.id, "deny");
    await run;
    expect(ran).toEqual(["two"]);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["g1", true],
      ["g2", false],
    ]);
  });

  it("steering while a call waits is delivered as usual: the next LLM call sees it", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      { blocks: [{ call: "run", args: { command: "deploy" }, id: "g" }] },
      { blocks: [{ text: "noted" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [gatedTool(ran)] }, streamFn });
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    agent.steer("use the staging cluster");
    expect(agent.getPendingApprovals()).toHaveLength(1); // steering does not decide the approval
    agent.resolveApproval(approval!.id, "allow-once");
    await run;
    expect(ran).toEqual(["deploy"]);
    expect(calls).toHaveLength(2);
    const second = calls[1]!.context.messages;
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(textOf(second[3] as never)).toBe("use the staging cluster");
  });

  it('steeringDelivery "abort": steering ends the wait at once; the call does not run and the message is delivered', async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      { blocks: [{ call: "run", args: { command: "deploy" }, id: "g" }] },
      { blocks: [{ text: "changed plans" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [gatedTool(ran)] }, streamFn, steeringDelivery: "abort" });
    const rec = recorder();
    agent.subscribe(rec.listener);
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    await asked;
    agent.steer("stop, deploy to staging instead");
    await run;
    expect(ran).toEqual([]);
    expect(agent.getPendingApprovals()).toEqual([]);
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({ cause: "aborted" });
    expect(calls).toHaveLength(2);
    expect(textOf(calls[1]!.context.messages.at(-1) as never)).toBe("stop, deploy to staging instead");
    expect(textOf(agent.state.messages.at(-1))).toBe("changed plans");
  });

  it("sequential: steering during a wait skips the calls not started yet (skip-remaining), as usual", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "run", args: { command: "first" }, id: "g1" },
          { call: "run", args: { command: "second" }, id: "g2" },
        ],
      },
      { blocks: [{ text: "ok" }] },
    ]);
    const agent = new Agent({
      initialState: { model, tools: [gatedTool(ran)] },
      streamFn,
      toolExecution: "sequential",
    });
    const rec = recorder();
    agent.subscribe(rec.listener);
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    agent.steer("stop after this one");
    agent.resolveApproval(approval!.id, "allow-once");
    await run;
    expect(ran).toEqual(["first"]);
    expect(rec.events.filter((e) => e.type === "tool_approval_request")).toHaveLength(1);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(textOf(results[1])).toBe(SKIPPED_FOR_STEERING);
    expect(textOf(calls[1]!.context.messages.at(-1) as never)).toBe("stop after this one");
  });
});
