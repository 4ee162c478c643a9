import { createAssistantMessageEventStream, Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentTool, SKIPPED_FOR_ABORT } from "../src/index.js";
import { model, recorder, scripted, textOf } from "./helpers/scripted.js";

describe("abort", () => {
  it("during streaming: the stream's signal fires, the run ends aborted, and the agent can be prompted again", async () => {
    const { streamFn, calls } = scripted([
      { blocks: [{ text: "partial answer" }], hang: true },
      { blocks: [{ text: "fresh" }] },
    ]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    const unsubscribe = agent.subscribe((e) => {
      if (e.type === "message_update" && e.assistantMessageEvent.type === "text_end") agent.abort();
    });
    await agent.prompt("go");
    expect(calls[0]!.options?.signal?.aborted).toBe(true);
    const last = agent.state.messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(textOf(last)).toBe("partial answer");
    expect(agent.state.error).toBe("Request was aborted");
    expect(agent.state.errorMessage).toBe("Request was aborted");
    expect(agent.state.isStreaming).toBe(false);
    expect(rec.types().slice(-2)).toEqual(["turn_end", "agent_end"]);

    unsubscribe();
    await agent.prompt("again");
    expect(agent.state.messages.at(-1)).toMatchObject({ stopReason: "stop" });
    expect(textOf(agent.state.messages.at(-1))).toBe("fresh");
    expect(agent.state.error).toBeUndefined();
  });

  it("during a tool: the tool's signal fires, unstarted calls are skipped, and the run ends aborted without another LLM call", async () => {
    let toolSignal: AbortSignal | undefined;
    const tool: AgentTool = {
      name: "long",
      label: "Long",
      description: "",
      parameters: Type.Object({}),
      executionMode: "sequential",
      execute: (_id, _args, signal) =>
        new Promise((_resolve, reject) => {
          toolSignal = signal;
          signal?.addEventListener("abort", () => reject(new Error("tool aborted")));
        }),
    };
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "long", args: {}, id: "x" },
          { call: "long", args: {}, id: "y" },
        ],
      },
    ]);
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start" && e.toolCallId === "x") setTimeout(() => agent.abort(), 10);
    });
    await agent.prompt("go");
    expect(toolSignal?.aborted).toBe(true);
    expect(calls).toHaveLength(1);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, textOf(r), r.isError])).toEqual([
      ["x", "tool aborted", true],
      ["y", SKIPPED_FOR_ABORT, true],
    ]);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.signal).toBeUndefined();
  });

  it("abort() while idle does nothing", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "hi" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    agent.abort();
    await agent.prompt("go");
    expect(textOf(agent.state.messages.at(-1))).toBe("hi");
  });

  it("a stream function that throws ends the turn with an error message, not an exception", async () => {
    const agent = new Agent({
      initialState: { model },
      streamFn: () => {
        throw new Error("no provider");
      },
    });
    await agent.prompt("go");
    expect(agent.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "no provider",
    });
    expect(agent.state.error).toBe("no provider");
  });
});

describe("broken streams", () => {
  it("a stream that ends without done or error ends the turn with an error message instead of hanging", async () => {
    const agent = new Agent({
      initialState: { model },
      streamFn: () => {
        const stream = createAssistantMessageEventStream();
        setImmediate(() => stream.end());
        return stream;
      },
    });
    await agent.prompt("go");
    expect(agent.state.messages.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "The stream ended without a final message",
    });
  });
});
