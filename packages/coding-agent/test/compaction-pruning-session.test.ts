import type { AgentTool } from "@tiller/agent";
import { type Context, fauxAssistantMessage, fauxToolCall, registerFauxProvider, Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { createAgentSession, SessionManager, SettingsManager } from "../src/index.js";

const bigTool: AgentTool = {
  name: "read",
  label: "Read",
  description: "reads",
  parameters: Type.Object({ path: Type.String() }),
  execute: async (_id, p) => ({
    content: [{ type: "text", text: `${(p as { path: string }).path}:${"q".repeat(9000)}` }],
    details: {},
  }),
};

describe("context pruning in a session", () => {
  it("after the cache TTL, old large tool results are trimmed in requests but kept whole in the session", async () => {
    const faux = registerFauxProvider();
    const requests: Context[] = [];
    let n = 0;
    const respond = (ctx: Context) => {
      requests.push({ messages: JSON.parse(JSON.stringify(ctx.messages)) });
      return ++n <= 4 ? fauxAssistantMessage(fauxToolCall("read", { path: `f${n}` })) : fauxAssistantMessage("done");
    };
    faux.setResponses(Array.from({ length: 6 }, () => respond));
    const { session } = await createAgentSession({
      cwd: "/proj",
      model: faux.getModel(),
      tools: [bigTool],
      sessionManager: SessionManager.inMemory("/proj"),
      settingsManager: SettingsManager.inMemory({
        contextPruning: { mode: "cache-ttl", ttlMs: 0, keepRecentTurns: 1, minChars: 4000 },
      }),
    });
    await session.prompt("read four files");
    const last = requests.at(-1) as Context;
    const results = last.messages.filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(4);
    const lengths = results.map((r) => (r.content[0] as { text: string }).text.length);
    expect(lengths.slice(0, 3).every((l) => l < 2000)).toBe(true);
    expect(lengths[3]).toBeGreaterThan(9000);
    const stored = session.sessionManager
      .getEntries()
      .filter((e) => e.type === "message" && e.message.role === "toolResult");
    for (const e of stored)
      expect(
        e.type === "message" &&
          e.message.role === "toolResult" &&
          (e.message.content[0] as { text: string }).text.length,
      ).toBeGreaterThan(9000);
    session.dispose();
    faux.unregister();
  });
});
