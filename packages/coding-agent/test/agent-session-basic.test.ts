import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentTool } from "@tiller/agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSessionEvent,
  AuthStorage,
  clearSessionCache,
  createAgentSession,
  ModelRegistry,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let home: string;
const savedEnv = { ...process.env };
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-as-"));
  clearSessionCache();
  for (const k of Object.keys(process.env)) if (k.endsWith("_API_KEY")) delete process.env[k];
});
afterEach(() => {
  process.env = { ...savedEnv };
  rmSync(home, { recursive: true, force: true });
});

const echoTool: AgentTool = {
  name: "echo",
  label: "Echo",
  description: "echoes",
  parameters: Type.Object({ text: Type.String() }),
  execute: async (_id, params) => ({
    content: [{ type: "text", text: `echo:${(params as { text: string }).text}` }],
    details: {},
  }),
};

describe("AgentSession", () => {
  it("persists every message at its message_end and restores the transcript from the file", async () => {
    const faux = registerFauxProvider();
    faux.setResponses([fauxAssistantMessage(fauxToolCall("echo", { text: "hi" })), fauxAssistantMessage("all done")]);
    const { session } = await createAgentSession({
      cwd: "/proj",
      home,
      model: faux.getModel(),
      tools: [echoTool],
      settingsManager: SettingsManager.inMemory(),
      modelRegistry: ModelRegistry.inMemory(AuthStorage.inMemory()),
    });
    const persistedAtEnd: number[] = [];
    session.subscribe((e: AgentSessionEvent) => {
      if (e.type === "message_end") persistedAtEnd.push(session.sessionManager.getEntries().length);
    });
    await session.prompt("say hi");
    const file = session.sessionFile as string;
    // Each message_end listener already sees its message in the session (model_change + thinking first).
    expect(persistedAtEnd).toEqual([3, 4, 5, 6]);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const raw = readFileSync(file, "utf8").trim().split("\n");
    expect(raw).toHaveLength(7);
    session.dispose();

    const { session: again } = await createAgentSession({
      cwd: "/proj",
      home,
      sessionManager: SessionManager.open(file),
      settingsManager: SettingsManager.inMemory(),
      modelRegistry: ModelRegistry.inMemory(AuthStorage.inMemory()),
      model: faux.getModel(),
    });
    expect(again.messages).toEqual(session.messages);
    const stats = again.getSessionStats();
    expect(stats).toMatchObject({ userMessages: 1, assistantMessages: 2, toolCalls: 1, toolResults: 1 });
    again.dispose();
    faux.unregister();
  });

  it("uses the offline model when no model is configured and no key is set", async () => {
    const { session } = await createAgentSession({ cwd: "/proj", home });
    expect(session.model.provider).toBe("offline");
    expect(session.model.id).toBe("tiller-offline");
    session.dispose();
  });

  it("picks a catalog model of a provider that has a key, and the settings' default when given", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-test";
    const { session } = await createAgentSession({ cwd: "/proj", home });
    expect(session.model.provider).toBe("anthropic");
    session.dispose();
    const { session: s2 } = await createAgentSession({
      cwd: "/proj",
      home,
      settingsManager: SettingsManager.inMemory({ defaultProvider: "openai", defaultModel: "gpt-4.1" }),
    });
    expect(s2.model.id).toBe("gpt-4.1");
    s2.dispose();
  });

  it("queues a prompt sent during a run as steering or follow-up, and refuses it without a behaviour", async () => {
    const faux = registerFauxProvider({ tokensPerSecond: 2000 });
    faux.setResponses([
      fauxAssistantMessage(fauxToolCall("echo", { text: "1" })),
      fauxAssistantMessage("first answer"),
      fauxAssistantMessage("answer to follow-up"),
    ]);
    const { session } = await createAgentSession({
      cwd: "/proj",
      home,
      model: faux.getModel(),
      tools: [echoTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory(),
    });
    const queues: { steering: readonly string[]; followUp: readonly string[] }[] = [];
    session.subscribe((e) => {
      if (e.type === "queue_update") queues.push({ steering: e.steering, followUp: e.followUp });
    });
    // Wait for the run to reach its tool call (an event, not a fixed sleep: a loaded machine may be slow).
    const midRun = new Promise<void>((resolve) => {
      session.subscribe((e) => {
        if (e.type === "tool_execution_start") resolve();
      });
    });
    const run = session.prompt("start");
    await midRun;
    expect(session.isStreaming).toBe(true);
    await expect(session.prompt("no behaviour")).rejects.toThrow(/streamingBehavior/);
    await session.prompt("and then this", { streamingBehavior: "followUp" });
    await run;
    const users = session.messages.filter((m) => m.role === "user");
    expect(users).toHaveLength(2);
    expect(queues[0]).toEqual({ steering: [], followUp: ["and then this"] });
    expect(queues.at(-1)).toEqual({ steering: [], followUp: [] });
    session.dispose();
    faux.unregister();
  });

  it("setModel and setThinkingLevel are recorded in the session and clamped to the model", async () => {
    const faux = registerFauxProvider({ models: [{ id: "plain" }, { id: "thinker", reasoning: true }] });
    const { session } = await createAgentSession({
      cwd: "/proj",
      home,
      model: faux.getModel("plain"),
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory(),
    });
    expect(session.setThinkingLevel("high")).toBe("off");
    session.setModel(faux.getModel("thinker") as never);
    expect(session.setThinkingLevel("high")).toBe("high");
    const ctx = session.sessionManager.buildSessionContext();
    expect(ctx.model).toEqual({ provider: "faux", modelId: "thinker" });
    expect(ctx.thinkingLevel).toBe("high");
    session.dispose();
    faux.unregister();
  });
});
