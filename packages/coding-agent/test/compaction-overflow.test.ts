import type { AgentTool } from "@tiller/agent";
import type { Context } from "@tiller/ai";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import {
  type AgentSessionEvent,
  createAgentSession,
  SessionManager,
  SettingsManager,
  SUMMARIZATION_SYSTEM_PROMPT,
} from "../src/index.js";

const readTool: AgentTool = {
  name: "read",
  label: "Read",
  description: "reads a file",
  parameters: Type.Object({ path: Type.String() }),
  execute: async () => ({ content: [{ type: "text", text: "y".repeat(3000) }], details: {} }),
};

const settings = (enabled: boolean) =>
  SettingsManager.inMemory({
    // A huge window: the threshold never fires, only the provider's overflow error does.
    compaction: { enabled, reserveTokens: 1000, keepRecentTokens: 500, mode: "default", maxHistoryShare: 0.5 },
    retry: { enabled: true, maxRetries: 3, baseDelayMs: 1, maxDelayMs: 10 },
  });

/** A model whose real limit is 9,000 characters of request, far below the window it advertises. */
function overflowingModel(onSummary: () => void) {
  const faux = registerFauxProvider({ models: [{ id: "liar", contextWindow: 1_000_000 }] });
  let turns = 0;
  const respond = (context: Context) => {
    if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
      onSummary();
      return fauxAssistantMessage("## Goal\nread files\n## Progress\nread several files");
    }
    if (JSON.stringify(context.messages).length > 9000)
      return fauxAssistantMessage([], {
        stopReason: "error",
        errorMessage: "prompt is too long: 250000 tokens > 200000 maximum",
      });
    turns++;
    return turns <= 4
      ? fauxAssistantMessage(fauxToolCall("read", { path: `f${turns}` }))
      : fauxAssistantMessage("done");
  };
  faux.setResponses(Array.from({ length: 30 }, () => respond));
  return faux;
}

describe("compaction after a context-overflow error", () => {
  it("compacts and re-runs the failed turn once; the error leaves the context but stays in the file", async () => {
    let summaries = 0;
    const faux = overflowingModel(() => summaries++);
    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      tools: [readTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: settings(true),
    });
    const events: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type.startsWith("compaction") || e.type.startsWith("auto_retry")) events.push(e);
    });
    await session.prompt("read everything");

    expect(events.map((e) => e.type)).toEqual(["compaction_start", "compaction_end"]);
    expect(events[0]).toMatchObject({ reason: "overflow" });
    expect(events[1]).toMatchObject({ reason: "overflow", willRetry: true, aborted: false });
    expect(summaries).toBeGreaterThan(0);
    const last = session.messages.at(-1);
    expect(last?.role === "assistant" && last.stopReason).toBe("stop");
    expect(session.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(false);
    const inFile = session.sessionManager
      .getEntries()
      .filter((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "error");
    expect(inFile).toHaveLength(1);
    expect(session.sessionManager.buildSessionContext().messages).toEqual(session.messages);
    session.dispose();
    faux.unregister();
  });

  it("with compaction disabled, the overflow error is reported and neither compacted nor retried", async () => {
    const faux = overflowingModel(() => {});
    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      tools: [readTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: settings(false),
    });
    const seen: string[] = [];
    session.subscribe((e) => {
      seen.push(e.type);
    });
    await session.prompt("read everything");
    expect(seen.filter((t) => t.startsWith("compaction") || t.startsWith("auto_retry"))).toEqual([]);
    const last = session.messages.at(-1);
    expect(last?.role === "assistant" && last.errorMessage).toMatch(/prompt is too long/);
    session.dispose();
    faux.unregister();
  });
});
