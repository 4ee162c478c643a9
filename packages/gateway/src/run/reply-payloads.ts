/**
 * Default reply payloads of a run: the text of each assistant message it produced, the model's error text
 * when it failed. Reply shaping (directives, NO_REPLY, block chunking) refines these via `shapeReply`.
 */
import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage, Usage } from "@tiller/ai";
import type { ReplyPayload } from "./run-types.js";

export function assistantText(m: AssistantMessage): string {
  let out = "";
  for (const c of m.content) if (c.type === "text") out += c.text;
  return out;
}

export function buildPayloads(messages: readonly AgentMessage[]): ReplyPayload[] {
  const out: ReplyPayload[] = [];
  for (const m of messages) {
    if ((m as { role?: string }).role !== "assistant") continue;
    const a = m as AssistantMessage;
    const text = assistantText(a).trim();
    if (text) out.push({ text, mediaUrl: null });
    if (a.stopReason === "error" && a.errorMessage)
      out.push({ text: `⚠️ ${a.errorMessage}`, isError: true, mediaUrl: null });
  }
  return out;
}

/** The last assistant message of a run, if any. */
export function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string };
    if (m.role === "assistant") return m as AssistantMessage;
  }
  return undefined;
}

/** Sums the usage of the run's assistant messages into `into`. */
export function sumUsage(messages: readonly AgentMessage[], into: Usage): Usage {
  for (const m of messages) {
    if ((m as { role?: string }).role !== "assistant") continue;
    const u = (m as AssistantMessage).usage;
    if (!u) continue;
    into.input += u.input;
    into.output += u.output;
    into.cacheRead += u.cacheRead;
    into.cacheWrite += u.cacheWrite;
    into.totalTokens += u.totalTokens;
    into.cost.total += u.cost?.total ?? 0;
  }
  return into;
}
