/**
 * Durable approvals at the agent level: what `tool_approval_request` hands out, plus the transcript, is enough for
 * a fresh Agent (a new process) to finish the batch — run or deny the call with its stored arguments, keep results
 * already known, append each result once — and continue the run.
 */
import { type ToolResultMessage, Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentMessage,
  type AgentTool,
  expiredApproval,
  type PendingApproval,
  toolResultOf,
} from "../src/index.js";
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
      return { content: [{ type: "text", text: `contents of ${path}` }], details: { path } };
    },
  };
}

/** Runs a first agent until its call waits, and returns what a gateway would have stored (as JSON). */
async function interrupted(blocks: Parameters<typeof scripted>[0][number]) {
  const ran: string[] = [];
  const read: string[] = [];
  const { streamFn } = scripted([blocks]);
  const first = new Agent({ initialState: { model, tools: [readTool(read), gatedTool(ran)] }, streamFn });
  const ends: ToolResultMessage[] = [];
  first.subscribe("tool_execution_end", (e) => {
    if (e.toolName === "read") ends.push(toolResultOf(e));
  });
  const reads = "blocks" in blocks ? blocks.blocks.filter((b) => "call" in b && b.call === "read").length : 0;
  const readsEnded = new Promise<void>((resolve) => {
    if (reads === 0) resolve();
    first.subscribe("tool_execution_end", () => {
      if (ends.length === reads) resolve();
    });
  });
  const asked = nextApproval(first);
  const run = first.prompt("deploy it");
  const [approval] = await asked;
  await readsEnded; // a gateway stores each result of the batch as it ends
  // Stored durably: the approval and the transcript so far (it ends with the assistant message).
  const stored = JSON.parse(JSON.stringify({ approval, transcript: first.state.messages, results: ends })) as {
    approval: PendingApproval;
    transcript: AgentMessage[];
    results: ToolResultMessage[];
  };
  first.abort(); // the process dies
  await run;
  return { stored, ran, read };
}

describe("resuming a pending approval in a new agent", () => {
  it("allow-once: the call runs with its stored arguments, its result is appended once, the run continues", async () => {
    const { stored, ran } = await interrupted({ blocks: [{ call: "run", args: { command: "deploy" }, id: "g" }] });
    expect(stored.transcript.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(ran).toEqual([]);

    const ran2: string[] = [];
    const { streamFn, calls } = scripted([{ blocks: [{ text: "deployed" }] }]);
    const second = new Agent({
      initialState: { model, tools: [gatedTool(ran2)], messages: stored.transcript },
      streamFn,
    });
    const rec = recorder();
    second.subscribe(rec.listener);
    await second.resumeToolCalls({ approvals: [{ approval: stored.approval, decision: "allow-once", by: "op" }] });
    expect(ran2).toEqual(["deploy"]);
    const roles = second.state.messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(second.state.messages.filter((m) => m.role === "toolResult" && m.toolCallId === "g")).toHaveLength(1);
    expect(textOf(second.state.messages.at(-1))).toBe("deployed");
    // The model's next call saw the tool result.
    expect(calls[0]!.context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({
      cause: "decided",
      resolution: { decision: "allow-once", by: "op" },
    });
    expect(rec.types()[0]).toBe("agent_start");
    expect(rec.types().at(-1)).toBe("agent_end");
  });

  it("deny: the call is not run; the model reads the denial and its reason", async () => {
    const { stored } = await interrupted({ blocks: [{ call: "run", args: { command: "drop db" }, id: "g" }] });
    const ran2: string[] = [];
    const { streamFn } = scripted([{ blocks: [{ text: "ok, not dropping" }] }]);
    const second = new Agent({
      initialState: { model, tools: [gatedTool(ran2)], messages: stored.transcript },
      streamFn,
    });
    await second.resumeToolCalls({ approvals: [{ approval: stored.approval, decision: "deny", reason: "prod data" }] });
    expect(ran2).toEqual([]);
    const result = second.state.messages.find((m) => m.role === "toolResult");
    expect(result?.isError).toBe(true);
    expect(textOf(result)).toContain("Reason: prod data");
  });

  it("a parallel batch: known results are kept (not re-run), the decided call runs, order is the assistant's", async () => {
    const { stored, read } = await interrupted({
      blocks: [
        { call: "read", args: { path: "a" }, id: "r1" },
        { call: "run", args: { command: "deploy" }, id: "g" },
      ],
    });
    expect(read).toEqual(["a"]);
    expect(stored.results.map((r) => r.toolCallId)).toEqual(["r1"]);
    const ran2: string[] = [];
    const read2: string[] = [];
    const { streamFn } = scripted([{ blocks: [{ text: "all done" }] }]);
    const second = new Agent({
      initialState: { model, tools: [readTool(read2), gatedTool(ran2)], messages: stored.transcript },
      streamFn,
    });
    await second.resumeToolCalls({
      approvals: [{ approval: stored.approval, decision: "allow-always" }],
      results: stored.results,
    });
    expect(read2).toEqual([]); // r1's result was known
    expect(ran2).toEqual(["deploy"]);
    const results = second.state.messages.filter((m) => m.role === "toolResult");
    expect(results.map((r) => r.toolCallId)).toEqual(["r1", "g"]);
    expect(textOf(results[0])).toBe("contents of a");
    expect(second.getAlwaysAllowed()).toEqual(["run"]);
  });

  it("an approval that expired while the process was down resolves as its timeoutBehavior says", async () => {
    const { stored } = await interrupted({ blocks: [{ call: "run", args: { command: "late" }, id: "g" }] });
    const approval = { ...stored.approval, request: { ...stored.approval.request, timeoutMs: 1000 } };
    approval.expiresAt = approval.createdAt + 1000;
    expect(expiredApproval(approval, approval.createdAt + 999)).toBeUndefined();
    const expired = expiredApproval(approval, approval.createdAt + 1000)!;
    expect(expired).toMatchObject({ decision: "deny", by: "timeout", cause: "timeout" });
    expect(
      expiredApproval({ ...approval, request: { ...approval.request, timeoutBehavior: "allow" } }, approval.expiresAt),
    ).toMatchObject({ decision: "allow-once" });

    const ran2: string[] = [];
    const { streamFn } = scripted([{ blocks: [{ text: "understood" }] }]);
    const second = new Agent({
      initialState: { model, tools: [gatedTool(ran2)], messages: stored.transcript },
      streamFn,
    });
    const rec = recorder();
    second.subscribe(rec.listener);
    await second.resumeToolCalls({ approvals: [expired] });
    expect(ran2).toEqual([]);
    expect(rec.events.find((e) => e.type === "tool_approval_end")).toMatchObject({ cause: "timeout" });
    expect(textOf(second.state.messages.find((m) => m.role === "toolResult"))).toBe(
      'Denied: no decision on running "run" within 1000 ms, so it was not run.',
    );
  });

  it("refuses a resume that does not fit the transcript, before anything runs", async () => {
    const { stored } = await interrupted({ blocks: [{ call: "run", args: { command: "x" }, id: "g" }] });
    const ran2: string[] = [];
    const { streamFn } = scripted([]);
    const noAssistant = new Agent({
      initialState: { model, tools: [gatedTool(ran2)], messages: stored.transcript.slice(0, 1) },
      streamFn,
    });
    await expect(
      noAssistant.resumeToolCalls({ approvals: [{ approval: stored.approval, decision: "allow-once" }] }),
    ).rejects.toThrow(/does not end with the assistant message/);
    const agent = new Agent({
      initialState: { model, tools: [gatedTool(ran2)], messages: stored.transcript },
      streamFn,
    });
    const other = { ...stored.approval, toolCall: { ...stored.approval.toolCall, id: "nope" } };
    await expect(agent.resumeToolCalls({ approvals: [{ approval: other, decision: "allow-once" }] })).rejects.toThrow(
      /not a call of the last message/,
    );
    await expect(
      agent.resumeToolCalls({ approvals: [{ approval: stored.approval, decision: "maybe" as never }] }),
    ).rejects.toThrow(/Unknown approval decision/);
    expect(ran2).toEqual([]);
    expect(agent.state.messages).toHaveLength(2);
  });
});
