/**
 * Each decision on a paused tool call: allow-once runs it once, allow-always runs it and every later call with the
 * same key without asking, deny gives the model an error result saying so (with the reason). Requests come from the
 * tool's `requiresApproval` or from `beforeToolCall`'s `requireApproval`.
 */
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../src/index.js";
import { gatedTool, nextApproval } from "./helpers/approvals.js";
import { model, recorder, scripted, textOf } from "./helpers/scripted.js";

const call = (command: string, id: string) => ({ call: "run", args: { command }, id });

function setup(requiresApproval: Parameters<typeof gatedTool>[1] = true, turns = 1) {
  const ran: string[] = [];
  const script = [];
  for (let i = 0; i < turns; i++) script.push({ blocks: [call(`cmd${i}`, `c${i}`)] });
  script.push({ blocks: [{ text: "finished" }] });
  const { streamFn, calls } = scripted(script);
  const agent = new Agent({ initialState: { model, tools: [gatedTool(ran, requiresApproval)] }, streamFn });
  const rec = recorder();
  agent.subscribe(rec.listener);
  return { agent, ran, calls, rec };
}

const results = (agent: Agent) => agent.state.messages.filter((m) => m.role === "toolResult");

describe("approval decisions", () => {
  it("allow-once: the call waits for the decision, then runs; the next call asks again", async () => {
    const { agent, ran, rec } = setup(true, 2);
    const first = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await first;
    expect(approval!.toolCall).toMatchObject({ id: "c0", name: "run", arguments: { command: "cmd0" } });
    expect(approval!.request.title).toContain("run");
    expect(agent.getPendingApprovals().map((a) => a.id)).toEqual([approval!.id]);
    expect(ran).toEqual([]); // nothing runs before the decision
    const second = nextApproval(agent);
    expect(agent.resolveApproval(approval!.id, "allow-once", { by: "alice" })).toBe(true);
    const [again] = await second;
    expect(ran).toEqual(["cmd0"]);
    expect(again!.toolCall.id).toBe("c1");
    agent.resolveApproval(again!.id, "allow-once");
    await run;
    expect(ran).toEqual(["cmd0", "cmd1"]);
    expect(results(agent).map((r) => r.isError)).toEqual([false, false]);
    const ends = rec.events.filter(
      (e): e is Extract<AgentEvent, { type: "tool_approval_end" }> => e.type === "tool_approval_end",
    );
    expect(ends[0]).toMatchObject({ resolution: { decision: "allow-once", by: "alice" }, cause: "decided" });
    expect(ends[0]!.remembered).toBeUndefined();
    // Order: the call starts, asks, is decided, runs, ends.
    const order = rec.types().filter((t) => t.startsWith("tool_"));
    expect(order.slice(0, 4)).toEqual([
      "tool_execution_start",
      "tool_approval_request",
      "tool_approval_end",
      "tool_execution_end",
    ]);
    expect(agent.getPendingApprovals()).toEqual([]);
  });

  it("allow-always: remembered for the agent (reported in tool_approval_end); later calls run without asking", async () => {
    const { agent, ran, rec } = setup(true, 3);
    const first = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await first;
    agent.resolveApproval(approval!.id, "allow-always");
    await run;
    expect(ran).toEqual(["cmd0", "cmd1", "cmd2"]);
    expect(rec.types().filter((t) => t === "tool_approval_request")).toHaveLength(1);
    const end = rec.events.find((e) => e.type === "tool_approval_end");
    expect(end).toMatchObject({ remembered: "run", resolution: { decision: "allow-always" } });
    expect(agent.getAlwaysAllowed()).toEqual(["run"]);
    agent.forgetAlwaysAllowed("run");
    expect(agent.getAlwaysAllowed()).toEqual([]);
  });

  it("the alwaysAllowed option restores remembered keys: nothing is asked", async () => {
    const ran: string[] = [];
    const { streamFn } = scripted([{ blocks: [call("x", "c0")] }, { blocks: [{ text: "ok" }] }]);
    const agent = new Agent({ initialState: { model, tools: [gatedTool(ran)] }, streamFn, alwaysAllowed: ["run"] });
    const rec = recorder();
    agent.subscribe(rec.listener);
    await agent.prompt("go");
    expect(ran).toEqual(["x"]);
    expect(rec.types()).not.toContain("tool_approval_request");
  });

  it("deny: the tool does not run; the model gets an error result saying it was denied, and why", async () => {
    const { agent, ran, calls } = setup(true, 1);
    const first = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await first;
    agent.resolveApproval(approval!.id, "deny", { by: "bob", reason: "not on a Friday" });
    await run;
    expect(ran).toEqual([]);
    const [result] = results(agent);
    expect(result!.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied: the user did not allow running "run"\. Reason: not on a Friday$/);
    // The model saw the denial on its next call and the run went on.
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.context.messages)).toContain("not on a Friday");
  });

  it("a listener may decide while handling the announcement (sync or async)", async () => {
    for (const async of [false, true]) {
      const { agent, ran } = setup(true, 1);
      agent.subscribe("tool_approval_request", async (event) => {
        if (async) await Promise.resolve();
        expect(agent.resolveApproval(event.approval.id, "allow-once", { by: "auto" })).toBe(true);
      });
      await agent.prompt("go");
      expect(ran).toEqual(["cmd0"]);
    }
  });

  it("bad decisions are refused with a clear error; unknown ids answer false", async () => {
    const { agent } = setup(() => ({ title: "Only once or no", decisions: ["allow-once", "deny"] }), 1);
    const first = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await first;
    expect(() => agent.resolveApproval(approval!.id, "allow-always")).toThrow(/not offered.*allow-once, deny/);
    expect(() => agent.resolveApproval(approval!.id, "yes" as never)).toThrow(/Unknown approval decision "yes"/);
    expect(agent.resolveApproval("approval_nope", "deny")).toBe(false);
    // Still pending after the refused attempts.
    expect(agent.resolveApproval(approval!.id, "deny")).toBe(true);
    expect(agent.resolveApproval(approval!.id, "deny")).toBe(false);
    await run;
  });

  it("requiresApproval as a function decides per call from the arguments, and may block", async () => {
    const ran: string[] = [];
    const { streamFn } = scripted([
      { blocks: [call("ls", "a"), call("rm -rf /", "b"), call("sudo x", "c")] },
      { blocks: [{ text: "ok" }] },
    ]);
    const tool = gatedTool(ran, (args) => {
      if (args.command.startsWith("rm")) return { block: true, reason: "rm is never allowed" };
      if (args.command.startsWith("sudo")) return { title: "Run as root?", severity: "critical", meta: { root: true } };
      return false;
    });
    const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn });
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    expect(approval!.request).toEqual({ title: "Run as root?", severity: "critical", meta: { root: true } });
    agent.resolveApproval(approval!.id, "allow-once");
    await run;
    expect(ran.sort()).toEqual(["ls", "sudo x"]);
    const byId = Object.fromEntries(results(agent).map((r) => [r.toolCallId, textOf(r)]));
    expect(byId.b).toBe("rm is never allowed");
  });

  it("beforeToolCall's requireApproval pauses the call with that request, args as the hook left them", async () => {
    const ran: string[] = [];
    const { streamFn } = scripted([{ blocks: [call("deploy", "d")] }, { blocks: [{ text: "ok" }] }]);
    const agent = new Agent({
      initialState: { model, tools: [gatedTool(ran, false)] },
      streamFn,
      beforeToolCall: ({ args }) => ({
        args: { command: `${args.command} --prod` },
        requireApproval: { title: "Deploy?", description: "to production", timeoutMs: 60_000, timeoutBehavior: "deny" },
      }),
    });
    const asked = nextApproval(agent);
    const run = agent.prompt("go");
    const [approval] = await asked;
    expect(approval!.args).toEqual({ command: "deploy --prod" });
    expect(approval!.request.description).toBe("to production");
    expect(approval!.expiresAt! - approval!.createdAt).toBe(60_000);
    // The pending approval is plain JSON: it survives a round trip unchanged (what a gateway stores).
    expect(JSON.parse(JSON.stringify(approval))).toEqual(approval);
    agent.resolveApproval(approval!.id, "allow-once");
    await run;
    expect(ran).toEqual(["deploy --prod"]);
  });

  it("a loop with no approval handler denies at once (nobody can be asked)", async () => {
    const { agentLoop } = await import("../src/index.js");
    const ran: string[] = [];
    const { streamFn } = scripted([{ blocks: [call("x", "c0")] }, { blocks: [{ text: "ok" }] }]);
    const stream = agentLoop(
      [{ role: "user", content: "go", timestamp: Date.now() }],
      { systemPrompt: "", messages: [], tools: [gatedTool(ran)] },
      { model, convertToLlm: (m) => m as never },
      undefined,
      streamFn,
    );
    const events: AgentEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(ran).toEqual([]);
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({ cause: "unavailable" });
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(JSON.stringify(end)).toContain("nobody can be asked");
  });
});
