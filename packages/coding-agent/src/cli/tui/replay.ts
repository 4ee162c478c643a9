/** Rebuilds transcript items from stored messages (after /resume, /tree, /fork), newest `limit` messages only. */
import type { AgentMessage } from "@tiller/agent";
import { AssistantItem, type ChatItem, NoticeItem, UserItem, userText } from "./chat-items.js";
import { customMessageItem, type RendererLookup } from "./custom-message-item.js";
import { type ToolDisplay, ToolItem } from "./tool-item.js";

export function replayItems(
  messages: readonly AgentMessage[],
  limit = 40,
  display?: ToolDisplay,
  renderers: RendererLookup = () => undefined,
): ChatItem[] {
  const items: ChatItem[] = [];
  const start = Math.max(0, messages.length - limit);
  if (start > 0) items.push(new NoticeItem(`… ${start} earlier messages not shown`));
  const tools = new Map<string, ToolItem>();
  for (const raw of messages.slice(start)) {
    const m = raw as { role?: string; content?: unknown; toolCallId?: string; isError?: boolean };
    if (m.role === "user") items.push(new UserItem(userText(m.content)));
    else if (m.role === "assistant") {
      const a = new AssistantItem();
      a.end(raw as Parameters<AssistantItem["end"]>[0]);
      items.push(a);
      for (const p of (m.content as Array<{ type: string; id?: string; name?: string; arguments?: unknown }>) ?? []) {
        if (p.type !== "toolCall" || !p.id) continue;
        const t = new ToolItem(p.id, p.name ?? "tool", display);
        t.setArgs(p.name ?? "", p.arguments);
        tools.set(p.id, t);
        items.push(t);
      }
    } else if (m.role === "toolResult" && m.toolCallId) {
      tools.get(m.toolCallId)?.end(raw, m.isError === true);
    } else if (m.role === "custom") {
      const item = customMessageItem(raw, renderers);
      if (item) items.push(item);
    }
  }
  for (const i of items) i.finish();
  return items;
}
