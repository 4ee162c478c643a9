/** Token and cost totals of a session, over every message in its file (all branches). */
import type { SessionManager } from "../session/session-manager.js";
import type { SessionStats } from "./events.js";

export function computeSessionStats(sm: SessionManager): SessionStats {
  const stats: SessionStats = {
    sessionId: sm.getSessionId(),
    sessionFile: sm.getSessionFile(),
    userMessages: 0,
    assistantMessages: 0,
    toolCalls: 0,
    toolResults: 0,
    totalMessages: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
  };
  for (const e of sm.getEntries()) {
    if (e.type !== "message") continue;
    stats.totalMessages++;
    const m = e.message;
    if (m.role === "user") stats.userMessages++;
    else if (m.role === "toolResult") stats.toolResults++;
    else if (m.role === "assistant") {
      stats.assistantMessages++;
      for (const b of m.content) if (b.type === "toolCall") stats.toolCalls++;
      stats.tokens.input += m.usage.input;
      stats.tokens.output += m.usage.output;
      stats.tokens.cacheRead += m.usage.cacheRead;
      stats.tokens.cacheWrite += m.usage.cacheWrite;
      stats.cost += m.usage.cost.total;
    }
  }
  const t = stats.tokens;
  t.total = t.input + t.output + t.cacheRead + t.cacheWrite;
  return stats;
}
