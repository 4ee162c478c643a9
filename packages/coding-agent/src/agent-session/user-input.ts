/** Building user messages from prompt text, and reading message text back. */
import type { AgentMessage } from "@tiller/agent";
import type { ImageContent, UserMessage } from "@tiller/ai";

export function textOf(content: UserMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .filter((b): b is { type: "text"; text: string } => b.type === "text")
    .map((b) => b.text)
    .join("");
}

export function userMessage(text: string, images?: ImageContent[]): UserMessage {
  return { role: "user", content: [{ type: "text", text }, ...(images ?? [])], timestamp: Date.now() };
}

/**
 * Trimmed text of the newest assistant message (an aborted one that produced nothing does not count), or
 * undefined when there is none or it has no text.
 */
export function lastAssistantText(messages: readonly AgentMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as AgentMessage;
    if (m.role !== "assistant") continue;
    if (m.stopReason === "aborted" && m.content.length === 0) continue;
    let text = "";
    for (const b of m.content) if (b.type === "text") text += b.text;
    return text.trim() || undefined;
  }
  return undefined;
}
