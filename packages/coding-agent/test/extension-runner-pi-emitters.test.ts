/**
 * ExtensionRunner's pi-named hooks (`emitContext`, `emitToolCall`, `emitToolResult`, `emitBeforeAgentStart`,
 * `invalidate`): given the same handlers, Tiller's runner answers as pi's does.
 */
import type { AgentMessage } from "@tiller/agent";
import { describe, expect, it } from "vitest";
import { loadExtensions } from "../src/index.js";
import { bothRunners } from "./extension-helpers.js";

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });

describe("ExtensionRunner: pi's emit* hooks", () => {
  it("emitContext hands handlers a copy and returns their messages", async () => {
    const handler = (e: { messages: AgentMessage[] }) => {
      e.messages.push(user("added by handler"));
      return { messages: e.messages.slice(-2) };
    };
    const { ours, theirs } = await bothRunners("context", [handler]);
    const original = [user("a"), user("b"), user("c")];
    const a = await ours.emitContext(original);
    const b = await theirs.emitContext(original as never);
    expect(a).toEqual(b);
    expect(a.map((m) => (m as { content: string }).content)).toEqual(["c", "added by handler"]);
    expect(original).toHaveLength(3);
  });

  it("emitToolCall: the first block wins; no block is undefined", async () => {
    const calls: string[] = [];
    const handlers = [
      (e: { toolName: string }) => {
        calls.push(`first:${e.toolName}`);
        return e.toolName === "bash" ? { block: true, reason: "no shell" } : undefined;
      },
      (e: { toolName: string }) => {
        calls.push(`second:${e.toolName}`);
        return undefined;
      },
    ];
    const { ours, theirs } = await bothRunners("tool_call", handlers);
    const event = (toolName: string) => ({ type: "tool_call" as const, toolCallId: "1", toolName, input: {} });
    expect(await ours.emitToolCall(event("bash"))).toEqual(await theirs.emitToolCall(event("bash") as never));
    expect(await ours.emitToolCall(event("bash"))).toEqual({ block: true, reason: "no shell" });
    expect(await ours.emitToolCall(event("read"))).toBe(await theirs.emitToolCall(event("read") as never));
    expect(calls).toEqual([
      "first:bash",
      "first:bash",
      "first:bash",
      "first:read",
      "second:read",
      "first:read",
      "second:read",
    ]);
  });

  it("emitToolCall writes replacement arguments into the event's input, where pi's hosts read them", async () => {
    const { ours } = await bothRunners("tool_call", [() => ({ input: { path: "/safe" } })]);
    const event = { type: "tool_call" as const, toolCallId: "1", toolName: "read", input: { path: "/etc/shadow" } };
    await ours.emitToolCall(event);
    expect(event.input).toEqual({ path: "/safe" });
  });

  it("emitToolResult returns the changed parts, undefined when nothing changed", async () => {
    const handler = (e: { toolName: string }) =>
      e.toolName === "read" ? { content: [{ type: "text", text: "redacted" }] } : undefined;
    const { ours, theirs } = await bothRunners("tool_result", [handler]);
    const event = (toolName: string) => ({
      type: "tool_result" as const,
      toolCallId: "1",
      toolName,
      input: {},
      content: [{ type: "text" as const, text: "secret" }],
      details: undefined,
      isError: false,
    });
    const a = await ours.emitToolResult(event("read"));
    const b = await theirs.emitToolResult(event("read") as never);
    expect(a?.content).toEqual(b?.content);
    expect(a?.content).toEqual([{ type: "text", text: "redacted" }]);
    expect(await ours.emitToolResult(event("ls"))).toBe(await theirs.emitToolResult(event("ls") as never));
  });

  it("emitBeforeAgentStart returns the replaced system prompt; invalidate makes the actions throw", async () => {
    const { ours, theirs } = await bothRunners("before_agent_start", [
      (e: { systemPrompt: string }) => ({ systemPrompt: `${e.systemPrompt} +rule` }),
    ]);
    const a = await ours.emitBeforeAgentStart("hi", undefined, "base", { cwd: "/p" });
    const b = await theirs.emitBeforeAgentStart("hi", undefined, "base", { cwd: "/p" });
    expect(a?.systemPrompt).toBe(b?.systemPrompt);
    expect(a).toEqual({ systemPrompt: "base +rule" });
    ours.invalidate("replaced");
    expect(() => ours.runtime.getSessionName()).toThrow("replaced");
  });
  it("getCommandDiagnostics reports a /command two extensions registered; the later one runs", async () => {
    const ran: string[] = [];
    const runner = await loadExtensions({
      cwd: process.cwd(),
      noDiscovery: true,
      factories: ["first", "second"].map((name) => ({
        name,
        factory: (api) => api.registerCommand("deploy", { handler: () => void ran.push(name) }),
      })),
    });
    expect(runner.getCommandDiagnostics()).toEqual([
      {
        type: "collision",
        message: "/deploy is registered by first and second; second's is used",
        path: "second",
        collision: { resourceType: "extension", name: "deploy", winnerPath: "second", loserPath: "first" },
      },
    ]);
    await runner.runCommand("/deploy");
    expect(ran).toEqual(["second"]);
  });
});
