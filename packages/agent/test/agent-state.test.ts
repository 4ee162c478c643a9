import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentState, type AgentTool } from "../src/index.js";
import { model, scripted, textOf, user } from "./helpers/scripted.js";

const noop: AgentTool = {
  name: "noop",
  label: "Noop",
  description: "",
  parameters: Type.Object({}),
  execute: async () => ({ content: [], details: {} }),
};

describe("agent state", () => {
  it("has defaults and takes initialState", () => {
    expect(new Agent().state).toMatchObject({
      systemPrompt: "",
      thinkingLevel: "off",
      tools: [],
      messages: [],
      isStreaming: false,
      streamMessage: null,
      streamingMessage: undefined,
      error: undefined,
    });
    const agent = new Agent({
      initialState: { systemPrompt: "be brief", model, thinkingLevel: "high", tools: [noop], messages: [user("hi")] },
    });
    expect(agent.state.systemPrompt).toBe("be brief");
    expect(agent.state.model.id).toBe("scripted-1");
    expect(agent.state.thinkingLevel).toBe("high");
    expect(agent.state.tools.map((t) => t.name)).toEqual(["noop"]);
    expect(agent.state.messages.map(textOf)).toEqual(["hi"]);
  });

  it("a snapshot never changes: every update makes a new one", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "answer" }] }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const before = agent.state;
    const beforeMessages = before.messages;
    expect(Object.isFrozen(before)).toBe(true);
    expect(Object.isFrozen(beforeMessages)).toBe(true);
    expect(() => (beforeMessages as unknown[]).push(1)).toThrow();

    agent.setSystemPrompt("new prompt");
    agent.setThinkingLevel("low");
    agent.appendMessage(user("note"));
    expect(before.systemPrompt).toBe("");
    expect(before.thinkingLevel).toBe("off");
    expect(before.messages).toHaveLength(0);
    expect(agent.state).not.toBe(before);
    expect(agent.state.systemPrompt).toBe("new prompt");

    const snapshots: AgentState[] = [];
    agent.subscribe(() => void snapshots.push(agent.state));
    await agent.prompt("go");
    // Snapshots taken during the run still show the run as it was then.
    const duringDelta = snapshots.find((s) => s.streamMessage !== null && s.streamMessage.role === "assistant");
    expect(duringDelta?.isStreaming).toBe(true);
    expect(duringDelta?.messages.map(textOf)).toEqual(["note", "go"]);
    expect(snapshots[0]?.messages.map(textOf)).toEqual(["note"]);
    expect(agent.state.messages.map(textOf)).toEqual(["note", "go", "answer"]);
    expect(agent.state.streamMessage).toBeNull();
  });

  it("reading the state twice without a change returns the same snapshot", () => {
    const agent = new Agent();
    expect(agent.state).toBe(agent.state);
    expect(agent.state.messages).toBe(agent.state.messages);
  });

  it("exposes the message being streamed as streamMessage and streamingMessage", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "abcd" }], chunks: 2 }]);
    const agent = new Agent({ initialState: { model }, streamFn });
    const seen: string[] = [];
    agent.subscribe("message_update", () => {
      const s = agent.state;
      expect(s.streamingMessage).toBe(s.streamMessage);
      seen.push(textOf(s.streamMessage ?? undefined));
    });
    await agent.prompt("go");
    expect(seen).toContain("ab");
    expect(seen.at(-1)).toBe("abcd");
  });

  it("pi-agent-core style assignments update the agent, copying arrays, and leave the old snapshot alone", () => {
    const agent = new Agent();
    const old = agent.state;
    const messages = [user("a")];
    agent.state.messages = messages;
    agent.state.systemPrompt = "sys";
    agent.state.tools = [noop];
    agent.state.model = model;
    messages.push(user("b"));
    expect(agent.state.messages.map(textOf)).toEqual(["a"]);
    expect(agent.state.systemPrompt).toBe("sys");
    expect(agent.state.tools).toHaveLength(1);
    expect(agent.state.model).toBe(model);
    expect(old.messages).toHaveLength(0);
    expect(old.systemPrompt).toBe("");
  });

  it("setters, replaceMessages and reset", () => {
    const agent = new Agent();
    agent.setModel(model);
    agent.setTools([noop]);
    agent.replaceMessages([user("x"), user("y")]);
    expect(agent.state.messages).toHaveLength(2);
    agent.steer("s");
    agent.reset();
    expect(agent.state.messages).toHaveLength(0);
    expect(agent.hasQueuedMessages()).toBe(false);
    expect(agent.state.model).toBe(model);
  });

  it("setSteeringMode / setFollowUpMode / modes as fields", () => {
    const agent = new Agent({ steeringMode: "all" });
    expect(agent.steeringMode).toBe("all");
    agent.setSteeringMode("one-at-a-time");
    agent.followUpMode = "all";
    expect(agent.getSteeringMode()).toBe("one-at-a-time");
    expect(agent.getFollowUpMode()).toBe("all");
    expect(agent.toolExecution).toBe("parallel");
  });

  it("prompt accepts text with images, a message, or several messages", async () => {
    const { streamFn, calls } = scripted([]);
    const agent = new Agent({ initialState: { model }, streamFn });
    await agent.prompt("look", [{ type: "image", data: "AAAA", mimeType: "image/png" }]);
    expect(calls[0]!.context.messages[0]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "look" }, { type: "image" }],
    });
    await agent.prompt([user("a"), user("b")]);
    expect(calls[1]!.context.messages.slice(-2).map(textOf)).toEqual(["a", "b"]);
  });

  it("forwards the model, reasoning level, session id and API key to the stream function", async () => {
    const { streamFn, calls } = scripted([]);
    const agent = new Agent({
      initialState: { model, thinkingLevel: "medium", systemPrompt: "sys" },
      streamFn,
      sessionId: "sess-1",
      getApiKey: (provider) => `key-for-${provider}`,
    });
    await agent.prompt("go");
    expect(calls[0]!.options).toMatchObject({ reasoning: "medium", sessionId: "sess-1", apiKey: "key-for-offline" });
    expect(calls[0]!.context.systemPrompt).toBe("sys");
  });
});
