/** Building user messages from prompt text and reading their text back. */
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
