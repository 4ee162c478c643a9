/**
 * Turns session events into transcript items. Streaming updates mutate the current items and ask for a frame;
 * the renderer coalesces frames, so a burst of deltas costs one redraw.
 */
import { AssistantItem, type ChatItem, NoticeItem, UserItem, userText } from "./chat-items.js";
import type { ChatView } from "./chat-view.js";
import { customMessageItem, type RendererLookup } from "./custom-message-item.js";
import type { StatusLine } from "./status-bar.js";
import { type ToolDisplay, ToolItem } from "./tool-item.js";

/** The subset of session events the UI reads; other event types are ignored. */
export interface UiEvent {
  type: string;
  message?: { role?: string; content?: unknown; stopReason?: string; errorMessage?: string };
  toolCallId?: string;
  toolName?: string;
  args?: unknown;
  partialResult?: unknown;
  result?: unknown;
  isError?: boolean;
  steering?: readonly unknown[];
  followUp?: readonly unknown[];
  reason?: string;
  errorMessage?: string;
  aborted?: boolean;
  attempt?: number;
  maxAttempts?: number;
  delayMs?: number;
}

export class SessionEventHandler {
  private assistant: AssistantItem | undefined;
  private tools = new Map<string, ToolItem>();
  /** The most recent tool call, for Ctrl+O once it is in the scrollback. */
  lastTool: ToolItem | undefined;
  /** The renderers of extensions' custom messages (the host points it at its session's extensions). */
  messageRenderer: RendererLookup = () => undefined;

  constructor(
    private view: ChatView,
    private status: StatusLine,
    private requestRender: () => void,
    private onRunEnd: () => void,
    readonly toolDisplay: ToolDisplay = { expanded: false },
  ) {}

  add(item: ChatItem): void {
    this.view.add(item);
    this.requestRender();
  }

  notice(message: string, level: "info" | "warning" | "error" = "info"): void {
    this.add(new NoticeItem(message, level));
  }

  handle(event: UiEvent): void {
    switch (event.type) {
      case "agent_start":
        this.status.setWorking(true);
        break;
      case "agent_end":
        this.status.setWorking(false);
        this.assistant = undefined;
        this.tools.clear();
        // Whatever never completed (an abort mid-stream) is final now.
        this.view.finishAll();
        this.onRunEnd();
        break;
      case "message_start":
        if (event.message?.role === "user") {
          this.add(new UserItem(userText(event.message.content)));
        } else if (event.message?.role === "assistant") {
          this.assistant = new AssistantItem();
          this.view.add(this.assistant);
        } else if (event.message?.role === "custom") {
          const item = customMessageItem(event.message, this.messageRenderer);
          if (item) this.view.add(item);
        }
        break;
      case "message_update":
        if (event.message?.role === "assistant") this.onAssistant(event.message, false);
        break;
      case "message_end":
        if (event.message?.role === "assistant") {
          this.onAssistant(event.message, true);
          // Usage, cost and context size change with every reply: refresh the status line (once per message).
          this.onRunEnd();
        }
        break;
      case "tool_execution_start":
        this.tool(event.toolCallId!, event.toolName ?? "tool").start(event.args);
        break;
      case "tool_execution_update":
        this.tool(event.toolCallId!, event.toolName ?? "tool").update(event.partialResult);
        break;
      case "tool_execution_end":
        this.tool(event.toolCallId!, event.toolName ?? "tool").end(event.result, event.isError === true);
        break;
      case "queue_update":
        this.status.setQueued(event.steering?.length ?? 0, event.followUp?.length ?? 0);
        break;
      case "compaction_start":
        this.status.setWorking(true, "compacting");
        break;
      case "compaction_end":
        this.status.setWorking(false);
        if (event.aborted) this.notice("compaction aborted", "warning");
        else if (event.errorMessage) this.notice(`compaction failed: ${event.errorMessage}`, "error");
        else this.notice("context compacted");
        break;
      case "auto_retry_start":
        this.notice(
          `retrying (${event.attempt}/${event.maxAttempts}) in ${Math.round((event.delayMs ?? 0) / 1000)}s: ${event.errorMessage ?? ""}`,
          "warning",
        );
        break;
      default:
        return;
    }
    this.requestRender();
  }

  private onAssistant(message: NonNullable<UiEvent["message"]>, end: boolean): void {
    if (!this.assistant) {
      this.assistant = new AssistantItem();
      this.view.add(this.assistant);
    }
    const msg = message as Parameters<AssistantItem["update"]>[0];
    if (end) this.assistant.end(msg);
    else this.assistant.update(msg);
    // Tool calls stream as part of the assistant message: show them as they appear.
    const content = Array.isArray(message.content) ? message.content : [];
    for (const part of content as Array<{ type: string; id?: string; name?: string; arguments?: unknown }>) {
      if (part.type === "toolCall" && part.id)
        this.tool(part.id, part.name ?? "tool").setArgs(part.name ?? "", part.arguments);
    }
    if (end) this.assistant = undefined;
  }

  private tool(id: string, name: string): ToolItem {
    let item = this.tools.get(id);
    if (!item) {
      item = new ToolItem(id, name, this.toolDisplay);
      this.tools.set(id, item);
      this.lastTool = item;
      this.view.add(item);
    }
    return item;
  }
}
