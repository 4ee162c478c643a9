/**
 * Stage "claim": after the prompt is built, an extension may answer the turn itself (a plugin's
 * `before_agent_reply`, `/context`). The run then calls no model: its model call answers with the claim's text
 * (or the silent token, which reply shaping drops).
 */
import { type AssistantMessage, createAssistantMessageEventStream, createEmptyUsage } from "@tiller/ai";
import { SILENT_REPLY_TOKEN } from "../../reply/reply-shaper.js";
import type { ModelCall, TurnClaim } from "../run-types.js";

/** A model call that answers with the claim's reply without any network. */
export function claimedModelCall(claim: TurnClaim): ModelCall {
  const text = claim.reply?.trim() ? claim.reply : SILENT_REPLY_TOKEN;
  return (model) => {
    const stream = createAssistantMessageEventStream();
    const message: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text }],
      api: model.api,
      provider: "plugin",
      model: claim.pluginId,
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    const empty: AssistantMessage = { ...message, content: [] };
    queueMicrotask(() => {
      stream.push({ type: "start", partial: empty });
      stream.push({ type: "text_start", contentIndex: 0, partial: empty });
      stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: message });
      stream.push({ type: "text_end", contentIndex: 0, content: text, partial: message });
      stream.push({ type: "done", reason: "stop", message });
    });
    return stream;
  };
}
