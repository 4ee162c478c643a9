/**
 * Outbound delivery through the message hooks: `message_sending` may rewrite the text or cancel the send (cancel
 * is terminal), then the send runs, then `message_sent` observes the result. Used for final replies and for the
 * `message` tool.
 */
import type { HookRunner } from "../plugins/hook-runner.js";
import type { PluginHookContext } from "../plugins/hook-types.js";

export interface OutboundMessage {
  to: string;
  content: string;
  metadata?: Record<string, unknown>;
}

export interface OutboundResult {
  delivered: boolean;
  /** Set when a plugin cancelled the send. */
  cancelledBy?: string;
  /** The text actually sent (after rewrites). */
  content: string;
  error?: string;
}

export async function deliverOutbound(
  hooks: HookRunner | undefined,
  message: OutboundMessage,
  send: (content: string) => Promise<void> | void,
  ctx: PluginHookContext = {},
): Promise<OutboundResult> {
  let content = message.content;
  if (hooks?.hasHooks("message_sending")) {
    const decision = await hooks.runMessageSending({ ...message }, ctx);
    if (decision.cancel) return { delivered: false, cancelledBy: decision.cancelledBy ?? "plugin", content };
    if (typeof decision.content === "string") content = decision.content;
  }
  let error: string | undefined;
  try {
    await send(content);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (hooks?.hasHooks("message_sent")) {
    await hooks.runObserver(
      "message_sent",
      { to: message.to, content, success: error === undefined, ...(error ? { error } : {}) },
      ctx,
    );
  }
  return error === undefined ? { delivered: true, content } : { delivered: false, content, error };
}
