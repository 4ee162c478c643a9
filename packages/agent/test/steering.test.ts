import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentTool, SKIPPED_FOR_STEERING } from "../src/index.js";
import { deferred, model, recorder, scripted, textOf, tick, user } from "./helpers/scripted.js";

const readParams = Type.Object({ path: Type.String({ minLength: 1 }) });

function readTool(
  onRun: (path: string, signal?: AbortSignal) => Promise<void> | void,
  ran: string[],
): AgentTool<typeof readParams> {
  return {
    name: "read_file",
    label: "Read",
    description: "Read a file",
    parameters: readParams,
    execute: async (_id, params, signal) => {
      ran.push(params.path);
      await onRun(params.path, signal);
      return { content: [{ type: "text", text: `contents of ${params.path}` }], details: { path: params.path } };
    },
  };
}

describe("steering (the seed's timeline)", () => {
  it("skips C after the user steers while B runs, injects the message, and ends when the model stops", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "read_file", args: { path: "A" }, id: "a" },
          { call: "read_file", args: { path: "B" }, id: "b" },
          { call: "read_file", args: { path: "C" }, id: "c" },
        ],
      },
      { blocks: [{ text: "Okay, I'll only process A" }] },
    ]);
    let agent!: Agent;
    const tool = readTool(async (path) => {
      if (path === "B") {
        agent.steer({ role: "user", content: "Only read A!" });
        await tick();
      }
    }, ran);
    agent = new Agent({ initialState: { model, tools: [tool] }, streamFn, toolExecution: "sequential" });
    const rec = recorder();
    agent.subscribe(rec.listener);

    await agent.prompt("Read files A, B, C");

    expect(ran).toEqual(["A", "B"]);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["a", false],
      ["b", false],
      ["c", true],
    ]);
    expect(textOf(results[2])).toBe(SKIPPED_FOR_STEERING);
    // The skipped call is paired with start/end events like any other.
    const ends = rec.events.filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => [e.toolCallId, e.isError])).toEqual([
      ["a", false],
      ["b", false],
      ["c", true],
    ]);
    // Turn 2's request holds the steering message right after the paired results.
    expect(calls).toHaveLength(2);
    const turn2 = calls[1]!.context.messages;
    expect(turn2.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "toolResult", "user"]);
    expect(textOf(turn2[5])).toBe("Only read A!");
    expect(textOf(agent.state.messages.at(-1))).toBe("Okay, I'll only process A");
    expect(rec.types().filter((t) => t === "turn_start")).toHaveLength(2);
    expect(rec.types().at(-1)).toBe("agent_end");
    expect(agent.state.isStreaming).toBe(false);
  });

  it("after-batch delivery lets the whole batch finish before the steering message (pi-agent-core 0.73)", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "read_file", args: { path: "A" } },
          { call: "read_file", args: { path: "B" } },
          { call: "read_file", args: { path: "C" } },
        ],
      },
      { blocks: [{ text: "ok" }] },
    ]);
    let agent!: Agent;
    const tool = readTool((path) => {
      if (path === "B") agent.steer("Only read A!");
    }, ran);
    agent = new Agent({
      initialState: { model, tools: [tool] },
      streamFn,
      toolExecution: "sequential",
      steeringDelivery: "after-batch",
    });
    await agent.prompt("Read files A, B, C");
    expect(ran).toEqual(["A", "B", "C"]);
    expect(agent.state.messages.filter((m) => m.role === "toolResult").every((m) => !m.isError)).toBe(true);
    expect(textOf(calls[1]!.context.messages.at(-1))).toBe("Only read A!");
  });

  it("abort delivery stops the running tool at once and injects the message", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      {
        blocks: [
          { call: "read_file", args: { path: "A" } },
          { call: "read_file", args: { path: "B" } },
        ],
      },
      { blocks: [{ text: "switching" }] },
    ]);
    let agent!: Agent;
    let sawAbort = false;
    const tool = readTool(async (path, signal) => {
      if (path !== "A") return;
      setTimeout(() => agent.steer("Stop! Do it differently"), 20);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 5000);
        signal?.addEventListener("abort", () => {
          sawAbort = true;
          clearTimeout(timer);
          reject(new Error("interrupted"));
        });
      });
    }, ran);
    agent = new Agent({
      initialState: { model, tools: [tool] },
      streamFn,
      toolExecution: "sequential",
      steeringDelivery: "abort",
    });
    const started = Date.now();
    await agent.prompt("go");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(sawAbort).toBe(true);
    expect(ran).toEqual(["A"]);
    const results = agent.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => [textOf(r), r.isError])).toEqual([
      ["interrupted", true],
      [SKIPPED_FOR_STEERING, true],
    ]);
    expect(textOf(calls[1]!.context.messages.at(-1))).toBe("Stop! Do it differently");
    expect(textOf(agent.state.messages.at(-1))).toBe("switching");
  });

  it("abort delivery cuts the in-flight stream and the next call sees the steering message", async () => {
    const { streamFn, calls } = scripted([
      { blocks: [{ text: "a long answer" }], hang: true },
      { blocks: [{ text: "ok" }] },
    ]);
    const agent = new Agent({ initialState: { model }, streamFn, steeringDelivery: "abort" });
    let steered = false;
    agent.subscribe((e) => {
      if (e.type === "message_update" && e.assistantMessageEvent.type === "text_end" && !steered) {
        steered = true;
        agent.steer("change of plan");
      }
    });
    await agent.prompt("go");
    const roles = agent.state.messages.map((m) => (m.role === "assistant" ? `assistant:${m.stopReason}` : m.role));
    expect(roles).toEqual(["user", "assistant:aborted", "user", "assistant:stop"]);
    expect(textOf(calls[1]!.context.messages.at(-1))).toBe("change of plan");
  });

  it("steering queued during the stream skips the whole batch under skip-remaining", async () => {
    const ran: string[] = [];
    const { streamFn } = scripted([
      { blocks: [{ text: "reading" }, { call: "read_file", args: { path: "A" } }] },
      { blocks: [{ text: "ok" }] },
    ]);
    const agent = new Agent({ initialState: { model, tools: [readTool(() => {}, ran)] }, streamFn });
    let steered = false;
    agent.subscribe((e) => {
      if (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta" && !steered) {
        steered = true;
        agent.steer("never mind");
      }
    });
    await agent.prompt("go");
    expect(ran).toEqual([]);
    expect(textOf(agent.state.messages.find((m) => m.role === "toolResult"))).toBe(SKIPPED_FOR_STEERING);
  });
});

describe("follow-up and queue modes", () => {
  it("takes follow-ups only when the agent would otherwise stop", async () => {
    const ran: string[] = [];
    const { streamFn, calls } = scripted([
      { blocks: [{ call: "read_file", args: { path: "A" } }] },
      { blocks: [{ text: "read A" }] },
      { blocks: [{ text: "report" }] },
    ]);
    let agent!: Agent;
    const tool = readTool(() => {
      agent.followUp({ role: "user", content: "Generate report after completion" });
    }, ran);
    agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    await agent.prompt("go");
    // The follow-up was queued during the tool but not injected before the turn that answered the tool result.
    expect(calls[1]!.context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(textOf(calls[2]!.context.messages.at(-1))).toBe("Generate report after completion");
    expect(textOf(agent.state.messages.at(-1))).toBe("report");
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("one-at-a-time takes one steering message per turn; all takes every queued message at once", async () => {
    for (const mode of ["one-at-a-time", "all"] as const) {
      const { streamFn, calls } = scripted([
        { blocks: [{ text: "1" }] },
        { blocks: [{ text: "2" }] },
        { blocks: [{ text: "3" }] },
      ]);
      const agent = new Agent({ initialState: { model }, streamFn });
      agent.setSteeringMode(mode);
      agent.steer("s1");
      agent.steer("s2");
      await agent.prompt("go");
      const userTexts = calls.map((c) => c.context.messages.filter((m) => m.role === "user").map(textOf));
      if (mode === "one-at-a-time") {
        expect(userTexts).toEqual([
          ["go", "s1"],
          ["go", "s1", "s2"],
        ]);
      } else {
        expect(userTexts).toEqual([["go", "s1", "s2"]]);
      }
    }
  });

  it("follow-up mode all injects every queued follow-up in one turn", async () => {
    const { streamFn, calls } = scripted([
      { blocks: [{ text: "1" }] },
      { blocks: [{ text: "2" }] },
      { blocks: [{ text: "3" }] },
    ]);
    const agent = new Agent({ initialState: { model }, streamFn, followUpMode: "all" });
    agent.followUp("f1");
    agent.followUp("f2");
    await agent.prompt("go");
    expect(calls).toHaveLength(2);
    expect(calls[1]!.context.messages.filter((m) => m.role === "user").map(textOf)).toEqual(["go", "f1", "f2"]);
  });

  it("the loop goes on while either queue holds messages and ends when both are empty", async () => {
    const { streamFn, calls } = scripted([
      { blocks: [{ text: "1" }] },
      { blocks: [{ text: "2" }] },
      { blocks: [{ text: "3" }] },
    ]);
    const agent = new Agent({ initialState: { model }, streamFn });
    agent.subscribe((e) => {
      if (e.type === "turn_end" && calls.length === 1) {
        agent.steer("steer");
        agent.followUp("later");
      }
    });
    await agent.prompt("go");
    expect(calls.map((c) => textOf(c.context.messages.at(-1)))).toEqual(["go", "steer", "later"]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("clearAllQueues drops queued messages", () => {
    const agent = new Agent({ initialState: { model } });
    agent.steer("a");
    agent.followUp("b");
    expect(agent.hasQueuedMessages()).toBe(true);
    agent.clearAllQueues();
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("prompt() during a run rejects and tells to use steer() or followUp()", async () => {
    const gate = deferred();
    const { streamFn } = scripted([
      () => {
        void gate.promise;
        return { blocks: [{ text: "slow" }], chunks: 1 };
      },
    ]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const run = agent.prompt("first");
    await expect(agent.prompt("second")).rejects.toThrow(/steer\(\) or followUp\(\)/);
    await expect(agent.continue()).rejects.toThrow(/already processing/);
    await run;
    expect(agent.state.messages.map(textOf)).toEqual(["first", "slow"]);
    await agent.prompt(user("third") as never);
    expect(agent.state.messages.map(textOf)).toEqual(["first", "slow", "third", "done."]);
  });

  it("continue() from an assistant tail runs queued steering, then follow-ups, else rejects", async () => {
    const { streamFn, calls } = scripted([{ blocks: [{ text: "1" }] }, { blocks: [{ text: "2" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    await agent.prompt("go");
    await expect(agent.continue()).rejects.toThrow(/assistant/);
    agent.followUp("more");
    await agent.continue();
    expect(textOf(calls[1]!.context.messages.at(-1))).toBe("more");
  });
});
