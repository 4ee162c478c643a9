import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type AgentTool } from "../src/index.js";
import { model, recorder, scripted, textOf } from "./helpers/scripted.js";

const echo: AgentTool = {
  name: "echo",
  label: "Echo",
  description: "",
  parameters: Type.Object({}),
  execute: async () => ({ content: [{ type: "text", text: "echoed" }], details: {} }),
};

describe("events", () => {
  it("are delivered in order for a run with a tool call", async () => {
    const { streamFn } = scripted([{ blocks: [{ call: "echo", args: {} }] }, { blocks: [{ text: "ok" }] }]);
    const agent = new Agent({ initialState: { model, tools: [echo] }, streamFn });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("hi");
    expect(rec.types()).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_update",
      "message_update",
      "message_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start",
      "message_end",
      "turn_end",
      "turn_start",
      "message_start",
      "message_update",
      "message_update",
      "message_update",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    const end = rec.events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const turnEnd = rec.events.find((e) => e.type === "turn_end") as Extract<AgentEvent, { type: "turn_end" }>;
    expect(turnEnd.toolResults.map((r) => textOf(r))).toEqual(["echoed"]);
  });

  it("async listeners are awaited in order; prompt and waitForIdle settle only after them", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "abc" }], chunks: 3 }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const log: string[] = [];
    agent.subscribe(async (e) => {
      await new Promise((r) => setTimeout(r, e.type === "message_update" ? 5 : 1));
      log.push(`slow:${e.type}`);
    });
    agent.subscribe((e) => void log.push(`fast:${e.type}`));
    const run = agent.prompt("go");
    const idle = agent.waitForIdle().then(() => log.push("idle"));
    await run;
    log.push("prompt resolved");
    await idle;
    // Every event reached both listeners, slow first, and nothing overtook: each slow is followed by its fast.
    const pairs = log.slice(0, -2);
    for (let i = 0; i < pairs.length; i += 2) {
      expect(pairs[i]?.replace("slow:", "")).toBe(pairs[i + 1]?.replace("fast:", ""));
    }
    expect(pairs.at(-1)).toBe("fast:agent_end");
    expect(new Set(log.slice(-2))).toEqual(new Set(["idle", "prompt resolved"]));
    expect(agent.state.isStreaming).toBe(false);
  });

  it("isStreaming stays true until the agent_end listeners have settled", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "x" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    let streamingDuringEnd: boolean | undefined;
    agent.subscribe(async (e) => {
      if (e.type !== "agent_end") return;
      await new Promise((r) => setTimeout(r, 5));
      streamingDuringEnd = agent.state.isStreaming;
    });
    await agent.prompt("go");
    expect(streamingDuringEnd).toBe(true);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("a throwing listener is reported and isolated: the other listeners and the run go on", async () => {
    const { streamFn } = scripted([{ blocks: [{ call: "echo", args: {} }] }, { blocks: [{ text: "ok" }] }]);
    const reported: string[] = [];
    const agent = new Agent({
      initialState: { model, tools: [echo] },
      streamFn,
      onListenerError: (error, event) => reported.push(`${event.type}:${(error as Error).message}`),
    });
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start") throw new Error("sync boom");
    });
    agent.subscribe(async (e) => {
      if (e.type === "turn_end") throw new Error("async boom");
    });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("go");
    expect(reported).toEqual(["tool_execution_start:sync boom", "turn_end:async boom", "turn_end:async boom"]);
    expect(rec.types().at(-1)).toBe("agent_end");
    expect(rec.types().filter((t) => t === "tool_execution_start")).toHaveLength(1);
    expect(textOf(agent.state.messages.at(-1))).toBe("ok");
  });

  it("subscribe(type, handler) gets only that type, '*' gets all, and unsubscribe(type, handler) removes it", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "a" }] }, { blocks: [{ text: "b" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const ends: string[] = [];
    const all: string[] = [];
    const onEnd = (e: Extract<AgentEvent, { type: "message_end" }>) => void ends.push(textOf(e.message));
    agent.subscribe("message_end", onEnd);
    const wildcard = (e: AgentEvent) => void all.push(e.type);
    agent.subscribe("*", wildcard);
    await agent.prompt("one");
    expect(ends).toEqual(["one", "a"]);
    expect(all[0]).toBe("agent_start");
    expect(all.at(-1)).toBe("agent_end");
    agent.unsubscribe("message_end", onEnd);
    agent.unsubscribe("*", wildcard);
    await agent.prompt("two");
    expect(ends).toEqual(["one", "a"]);
    expect(all.filter((t) => t === "agent_start")).toHaveLength(1);
  });

  it("the function subscribe returns unsubscribes; listeners get the run's signal", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "a" }] }, { blocks: [{ text: "b" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const signals = new Set<AbortSignal>();
    const off = agent.subscribe((_e, signal) => void signals.add(signal));
    await agent.prompt("one");
    expect(signals.size).toBe(1);
    off();
    await agent.prompt("two");
    expect(signals.size).toBe(1);
  });

  it("message_update carries the streamed partial and the provider event", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "hello world" }], chunks: 2 }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const texts: string[] = [];
    agent.subscribe("message_update", (e) => {
      if (e.assistantMessageEvent.type === "text_delta") texts.push(textOf(e.message));
    });
    await agent.prompt("go");
    expect(texts).toEqual(["hello ", "hello world"]);
  });
});
