/**
 * The request's messages as a run: system and developer messages become the extra system prompt, the last user
 * message the prompt (its `image_url` / `input_image` data URLs become images), and, for a stateless request,
 * the earlier user and assistant turns the history of its fresh session. A persistent session keeps its own
 * history, so there the earlier turns are not repeated.
 */
import type { AgentMessage } from "@tiller/agent";
import type { AssistantMessage, ImageContent, TextContent } from "@tiller/ai";
import { createEmptyUsage } from "@tiller/ai";
import { badRequest } from "./errors.js";
import type { RunTarget } from "./targets.js";
import type { RunInput } from "./types.js";

/** Most images one request may carry (the body cap bounds their bytes). */
export const MAX_IMAGES = 8;

/** One message reduced to what a run uses. */
export interface PlainMessage {
  role: "system" | "user" | "assistant";
  text: string;
  images: ImageContent[];
}

/** `data:image/png;base64,…` → an image; `field` names the part in errors. */
export function decodeDataUrl(url: string, field: string): ImageContent {
  const m = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/i.exec(url.trim());
  if (!m) {
    throw badRequest(
      `${field}: only base64 data URLs of images are accepted (data:image/png;base64,…)`,
      field,
      "invalid_image_url",
    );
  }
  return { type: "image", mimeType: (m[1] as string).toLowerCase(), data: (m[2] as string).replace(/\s+/g, "") };
}

function historyMessage(m: PlainMessage, at: number): AgentMessage | undefined {
  if (m.role === "user") {
    const content: (TextContent | ImageContent)[] = [];
    if (m.text) content.push({ type: "text", text: m.text });
    content.push(...m.images);
    return { role: "user", content, timestamp: at };
  }
  if (m.role === "assistant") {
    // The client's earlier answers: recorded as plain text turns (no provider of their own).
    const reply: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: m.text }],
      api: "openai-completions",
      provider: "http-client",
      model: "client-history",
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: at,
    };
    return reply;
  }
  return undefined;
}

/** The sampling of a request, or undefined when it set none (null counts as unset). */
export function samplingOf(
  temperature: number | null | undefined,
  maxTokens: number | null | undefined,
): RunInput["sampling"] {
  if (temperature == null && maxTokens == null) return undefined;
  return {
    ...(temperature != null ? { temperature } : {}),
    ...(maxTokens != null ? { maxTokens } : {}),
  };
}

/** The run of a conversation: `param` names the request's message list in errors. */
export function toRunInput(
  messages: PlainMessage[],
  target: RunTarget,
  param: string,
  instructions?: string,
): RunInput {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      last = i;
      break;
    }
  }
  if (last < 0) throw badRequest(`${param}: needs at least one user message`, param, "missing_user_message");
  const current = messages[last] as PlainMessage;
  if (!current.text.trim() && current.images.length === 0) {
    throw badRequest(`${param}: the last user message is empty`, param, "empty_message");
  }
  const images = messages.reduce((n, m) => n + m.images.length, 0);
  if (images > MAX_IMAGES)
    throw badRequest(`${param}: at most ${MAX_IMAGES} images per request`, param, "too_many_images");
  const system = [instructions, ...messages.filter((m) => m.role === "system").map((m) => m.text)]
    .filter((s): s is string => !!s?.trim())
    .join("\n\n");
  const history: AgentMessage[] = [];
  if (target.stateless) {
    const at = Date.now() - messages.length;
    messages.slice(0, last).forEach((m, i) => {
      const h = historyMessage(m, at + i);
      if (h) history.push(h);
    });
  }
  return {
    agentId: target.agentId,
    sessionKey: target.sessionKey,
    stateless: target.stateless,
    // An image-only message still needs prompt text for the transcript and the commands check.
    prompt: current.text.trim() ? current.text : "(image)",
    images: current.images,
    history,
    extraSystemPrompt: system || undefined,
    model: target.model,
  };
}
