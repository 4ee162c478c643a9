import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type AgentTool } from "../src/index.js";
import { model, recorder, scripted, textOf, tick } from "./helpers/scripted.js";

const waitParams = Type.Object({ ms: Type.Number(), label: Type.String() });

/** Sleeps `ms` then returns its label; records start order and overlap. */
function waitTool(log: string[], mode?: "sequential" | "parallel"): AgentTool<typeof waitParams> {
  return {
    name: "wait",
    label: "Wait",
    description: "Wait",
    parameters: waitParams,
    executionMode: mode,
    execute: async (_id, { ms, label }) => {
      log.push(`start ${label}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${label}`);
      return { content: [{ type: "text", text: label }], details: { label } };
    },
  };
}

const countParams = Type.Object({ n: Type.Integer({ minimum: 1 }) });

describe("tool execution", () => {
  it("invalid arguments give an error result carrying the validation message, and the model fixes them next turn", async () => {
    const got: number[] = [];
    const tool: AgentTool<typeof countParams> = {
      name: "count",
      label: "Count",
      description: "Count to n",
      parameters: countParams,
      execute: async (_id, { n }) => {
        got.push(n);
        return { content: [{ type: "text", text: `counted to ${n}` }], details: {} };
      },
    };
    const { streamFn, calls } = scripted([
      { blocks: [{ call: "count", args: { n: "many" } }] },
      { blocks: [{ call: "count", args: { n: 3 } }] },
      { blocks: [{ text: "done" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    await agent.prompt("count");
    expect(got).toEqual([3]);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results[0]?.isError).toBe(true);
    expect(textOf(results[0])).toMatch(/Validation failed for tool "count"/);
    expect(textOf(results[0])).toMatch(/many/);
    // The model saw the validation error before it regenerated the call.
    expect(textOf(calls[1]!.context.messages.at(-1))).toMatch(/Validation failed/);
    expect(results[1]).toMatchObject({ isError: false });
    expect(textOf(results[1])).toBe("counted to 3");
  });

  it("coerces arguments the schema can take (a numeric string for a number)", async () => {
    const got: unknown[] = [];
    const tool: AgentTool<typeof countParams> = {
      name: "count",
      label: "Count",
      description: "",
      parameters: countParams,
      execute: async (_id, args) => {
        got.push(args.n);
        return { content: [], details: {} };
      },
    };
    const { streamFn } = scripted([{ blocks: [{ call: "count", args: { n: "4" } }] }]);
    await new Agent({ initialState: { model, tools: [tool] }, streamFn }).prompt("go");
    expect(got).toEqual([4]);
  });

  it("an unknown tool gives an error result naming the available tools", async () => {
    const { streamFn } = scripted([{ blocks: [{ call: "nope", args: {} }] }]);
    const agent = new Agent({ initialState: { model, tools: [waitTool([])] }, streamFn });
    await agent.prompt("go");
    const result = agent.state.messages.find((m) => m.role === "toolResult");
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toBe('Tool "nope" not found. Available tools: wait');
  });

  it("a tool that throws gives an error result with its message, and the run goes on", async () => {
    const tool: AgentTool = {
      name: "boom",
      label: "Boom",
      description: "",
      parameters: Type.Object({}),
      execute: async () => {
        throw new Error("disk on fire");
      },
    };
    const { streamFn, calls } = scripted([{ blocks: [{ call: "boom", args: {} }] }, { blocks: [{ text: "sorry" }] }]);
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("go");
    const end = rec.events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ isError: true });
    expect(textOf(agent.state.messages.find((m) => m.role === "toolResult"))).toBe("disk on fire");
    expect(calls).toHaveLength(2);
    expect(textOf(agent.state.messages.at(-1))).toBe("sorry");
  });

  it("onUpdate produces tool_execution_update events between start and end", async () => {
    const tool: AgentTool = {
      name: "progress",
      label: "Progress",
      description: "",
      parameters: Type.Object({}),
      execute: async (_id, _args, _signal, onUpdate) => {
        onUpdate?.({ content: [{ type: "text", text: "50%" }], details: { pct: 50 } });
        await tick();
        onUpdate?.({ content: [{ type: "text", text: "100%" }], details: { pct: 100 } });
        return { content: [{ type: "text", text: "ok" }], details: {} };
      },
    };
    const { streamFn } = scripted([{ blocks: [{ call: "progress", args: {} }] }]);
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("go");
    const toolEvents = rec.events.filter((e) => e.type.startsWith("tool_execution"));
    expect(toolEvents.map((e) => e.type)).toEqual([
      "tool_execution_start",
      "tool_execution_update",
      "tool_execution_update",
      "tool_execution_end",
    ]);
    const updates = toolEvents.filter(
      (e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update",
    );
    expect(updates.map((e) => e.partialResult.details.pct)).toEqual([50, 100]);
  });

  it("parallel: tools overlap, tool_execution_end comes in completion order, results keep the assistant's order", async () => {
    const log: string[] = [];
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "wait", args: { ms: 60, label: "slow" }, id: "1" },
          { call: "wait", args: { ms: 5, label: "fast" }, id: "2" },
        ],
      },
    ]);
    const agent = new Agent({ initialState: { model, tools: [waitTool(log)] }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("go");
    expect(log).toEqual(["start slow", "start fast", "end fast", "end slow"]);
    const ends = rec.events.filter((e) => e.type === "tool_execution_end").map((e) => e.toolCallId);
    expect(ends).toEqual(["2", "1"]);
    const turnEnd = rec.events.find((e) => e.type === "turn_end" && e.toolResults.length > 0);
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults.map((r) => r.toolCallId)).toEqual(["1", "2"]);
    expect(calls[1]!.context.messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId)).toEqual([
      "1",
      "2",
    ]);
  });

  it("sequential mode runs one tool at a time, and can be switched at run time", async () => {
    const log: string[] = [];
    const batch = {
      blocks: [
        { call: "wait", args: { ms: 30, label: "a" } },
        { call: "wait", args: { ms: 5, label: "b" } },
      ],
    };
    const { streamFn } = scripted([batch, batch, { blocks: [{ text: "ok" }] }]);
    const agent = new Agent({ initialState: { model, tools: [waitTool(log)] }, streamFn, toolExecution: "sequential" });
    agent.subscribe((e) => {
      if (e.type === "turn_end" && e.toolResults.length > 0) agent.setToolExecution("parallel");
    });
    await agent.prompt("go");
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start a", "start b", "end b", "end a"]);
  });

  it("a tool marked sequential makes its batch sequential", async () => {
    const log: string[] = [];
    const seq: AgentTool<typeof waitParams> = { ...waitTool(log, "sequential"), name: "wait_seq" };
    const { streamFn } = scripted([
      {
        blocks: [
          { call: "wait", args: { ms: 30, label: "a" } },
          { call: "wait_seq", args: { ms: 5, label: "b" } },
        ],
      },
    ]);
    const agent = new Agent({ initialState: { model, tools: [waitTool(log), seq] }, streamFn });
    await agent.prompt("go");
    expect(log).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("pendingToolCalls holds the running calls", async () => {
    const seen: string[][] = [];
    const { streamFn } = scripted([{ blocks: [{ call: "wait", args: { ms: 5, label: "x" }, id: "t1" }] }]);
    const agent = new Agent({ initialState: { model, tools: [waitTool([])] }, streamFn });
    agent.subscribe((e) => {
      if (e.type.startsWith("tool_execution")) seen.push([...agent.state.pendingToolCalls]);
    });
    await agent.prompt("go");
    expect(seen).toEqual([["t1"], []]);
    expect(agent.state.pendingToolCalls.size).toBe(0);
  });

  it("every result of the batch asking to terminate ends the run without another LLM call", async () => {
    const tool: AgentTool = {
      name: "finish",
      label: "Finish",
      description: "",
      parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: "text", text: "bye" }], details: {}, terminate: true }),
    };
    const { streamFn, calls } = scripted([{ blocks: [{ call: "finish", args: {} }] }]);
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    await agent.prompt("go");
    expect(calls).toHaveLength(1);
    expect(agent.state.messages.at(-1)?.role).toBe("toolResult");
  });
});
