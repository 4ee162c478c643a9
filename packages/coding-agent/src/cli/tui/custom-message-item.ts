/**
 * An extension's custom message in the transcript: drawn by the renderer its extension registered for the
 * message's `customType` (`registerMessageRenderer`), else as a `[customType]` label and its content. Messages
 * sent with `display: false` are for the model only and get no item.
 */
import type { CustomMessage } from "../../session/messages.js";
import type { ChatItem } from "./chat-items.js";
import { CustomMessageComponent } from "./pi/messages.js";
import type { MessageRenderer } from "./pi/types.js";

/** Finds the renderer of a custom type (the session's extension runner). */
export type RendererLookup = (customType: string) => MessageRenderer | undefined;

/** The transcript item of `message`, or undefined when it is not to be displayed. */
export function customMessageItem(message: unknown, lookup: RendererLookup): ChatItem | undefined {
  const m = message as Partial<CustomMessage>;
  if (m.role !== "custom" || typeof m.customType !== "string" || m.display === false) return undefined;
  const component = new CustomMessageComponent(m as CustomMessage, lookup(m.customType));
  // Complete when it arrives: committed to the scrollback at once.
  return {
    render: (width) => component.render(width),
    invalidate: () => component.invalidate(),
    finished: () => true,
    finish: () => {},
  };
}
