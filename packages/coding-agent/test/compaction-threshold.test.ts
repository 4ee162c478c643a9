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
  execute: async (_id, params) => ({
    content: [{ type: "text", text: `${(params as { path: string }).path}: ${"x".repeat(2000)}` }],
    details: {},
  }),
};

/** Every tool result in the request answers a tool call of an earlier assistant message in the same request. */
function assertNoOrphans(context: Context): void {
  const calls = new Set<string>();
  for (const m of context.messages) {
    if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
    if (m.role === "toolResult") expect(calls.has(m.toolCallId), `orphan result ${m.toolCallId}`).toBe(true);
  }
}

function requestChars(context: Context): number {
  return JSON.stringify(context.messages).length + (context.systemPrompt?.length ?? 0);
}

describe("compaction at the threshold inside a long tool loop", () => {
  it("compacts between turns of one running loop, never splitting a tool call from its result", async () => {
    const faux = registerFauxProvider({ models: [{ id: "small", contextWindow: 4000, maxTokens: 500 }] });
    const TOOL_TURNS = 14;
    let loopCalls = 0;
    let summaryCalls = 0;
    const requestSizes: number[] = [];
    const respond = (context: Context) => {
      if (context.systemPrompt === SUMMARIZATION_SYSTEM_PROMPT) {
        summaryCalls++;
        return fauxAssistantMessage(`## Goal\nread many files\n## Progress\nsummary ${summaryCalls}`);
      }
      assertNoOrphans(context);
      requestSizes.push(requestChars(context));
      loopCalls++;
      return loopCalls <= TOOL_TURNS
        ? fauxAssistantMessage(fauxToolCall("read", { path: `f${loopCalls}.txt` }))
        : fauxAssistantMessage("finished reading");
    };
    faux.setResponses(Array.from({ length: 40 }, () => respond));

    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      tools: [readTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory({
        compaction: {
          enabled: true,
          reserveTokens: 1000,
          keepRecentTokens: 800,
          mode: "default",
          maxHistoryShare: 0.5,
        },
      }),
    });
    const events: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type !== "message_update") events.push(e);
    });
    await session.prompt("read all the files");

    const types = events.map((e) => e.type);
    const firstCompaction = types.indexOf("compaction_start");
    expect(firstCompaction).toBeGreaterThan(0);
    // It happened while the loop was running: more turns follow it before agent_end.
    expect(types.slice(firstCompaction).filter((t) => t === "turn_start").length).toBeGreaterThan(2);
    const ends = events.filter((e) => e.type === "compaction_end");
    expect(ends.length).toBeGreaterThanOrEqual(2);
    for (const e of ends) expect(e).toMatchObject({ reason: "threshold", willRetry: false, aborted: false });
    expect(loopCalls).toBe(TOOL_TURNS + 1);
    expect(summaryCalls).toBeGreaterThanOrEqual(ends.length);
    // No request after the first compaction exceeded the window (4000 tokens ~ 16000 chars).
    expect(Math.max(...requestSizes)).toBeLessThan(16000);

    // The session file keeps everything; compaction entries cut at a non-tool-result message.
    const sm = session.sessionManager;
    const entries = sm.getEntries();
    const compactions = entries.filter((e) => e.type === "compaction");
    expect(compactions.length).toBe(ends.length);
    for (const c of compactions) {
      const kept = sm.getEntry(c.firstKeptEntryId);
      expect(kept?.type).toBe("message");
      expect(kept?.type === "message" && kept.message.role).not.toBe("toolResult");
    }
    expect(entries.filter((e) => e.type === "message" && e.message.role === "toolResult")).toHaveLength(TOOL_TURNS);
    // The rebuilt context starts with the latest summary and ends with the answer.
    const ctx = sm.buildSessionContext();
    expect(ctx.messages[0]?.role).toBe("compactionSummary");
    const last = ctx.messages.at(-1);
    expect(last?.role === "assistant" && last.content[0]).toMatchObject({ text: "finished reading" });
    assertNoOrphans({ messages: ctx.messages.filter((m) => m.role !== "compactionSummary") as Context["messages"] });
    expect(session.messages).toEqual(ctx.messages);
    session.dispose();
    faux.unregister();
  });

  it("does not compact when compaction is disabled", async () => {
    const faux = registerFauxProvider({ models: [{ id: "small", contextWindow: 4000, maxTokens: 500 }] });
    let n = 0;
    faux.setResponses(
      Array.from(
        { length: 10 },
        () => () =>
          ++n <= 6 ? fauxAssistantMessage(fauxToolCall("read", { path: `f${n}` })) : fauxAssistantMessage("done"),
      ),
    );
    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      tools: [readTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory({
        compaction: {
          enabled: false,
          reserveTokens: 1000,
          keepRecentTokens: 800,
          mode: "default",
          maxHistoryShare: 0.5,
        },
      }),
    });
    const seen: string[] = [];
    session.subscribe((e) => {
      seen.push(e.type);
    });
    await session.prompt("go");
    expect(seen).not.toContain("compaction_start");
    session.dispose();
    faux.unregister();
  });
});
