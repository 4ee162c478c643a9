/**
 * Request side of Mistral's chat API, in the official SDK's (camelCase) request shape: messages with
 * 9-character alphanumeric tool-call ids (the only ids Mistral accepts), thinking replayed as `thinking`
 * chunks to the same model, tool results with name, and the reasoning knobs (`promptMode` for Magistral,
 * `reasoningEffort` for the models that take one).
 */
import { transformMessages } from "../transform-messages.js";
import type { Api, Context, ImageContent, Model, ModelThinkingLevel, TextContent, Tool } from "../types.js";
import { normalizeMistralToolCallId } from "./openai-completions-shared.js";
import { textOf } from "./stream-shared.js";
import { mappedLevel } from "./thinking-shared.js";

export type MistralMessage = Record<string, unknown> & { role: "system" | "user" | "assistant" | "tool" };
type Chunk = Record<string, unknown>;

function mediaChunks(content: (TextContent | ImageContent)[], acceptsImages: boolean): Chunk[] {
  const out: Chunk[] = [];
  for (const part of content) {
    if (part.type === "text") out.push({ type: "text", text: part.text });
    else if (acceptsImages) out.push({ type: "image_url", imageUrl: `data:${part.mimeType};base64,${part.data}` });
  }
  return out;
}

export function convertMistralMessages(model: Model<Api>, context: Context): MistralMessage[] {
  const acceptsImages = model.input.includes("image");
  const out: MistralMessage[] = [];
  if (context.systemPrompt) out.push({ role: "system", content: context.systemPrompt });
  for (const m of transformMessages(context.messages, model, (id) => normalizeMistralToolCallId(id))) {
    if (m.role === "user") {
      if (typeof m.content === "string") {
        out.push({ role: "user", content: m.content });
        continue;
      }
      const content = mediaChunks(m.content, acceptsImages);
      if (content.length > 0) out.push({ role: "user", content });
    } else if (m.role === "assistant") {
      const content: Chunk[] = [];
      const toolCalls: Chunk[] = [];
      for (const block of m.content) {
        if (block.type === "text") {
          if (block.text.trim()) content.push({ type: "text", text: block.text });
        } else if (block.type === "thinking") {
          // Only the same model's thinking is still a thinking block here (transformMessages made others text).
          if (block.thinking.trim())
            content.push({ type: "thinking", thinking: [{ type: "text", text: block.thinking }] });
        } else {
          toolCalls.push({
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) },
          });
        }
      }
      // Mistral rejects an assistant message with neither content nor tool calls.
      if (content.length === 0 && toolCalls.length === 0) continue;
      const message: MistralMessage = { role: "assistant" };
      if (content.length > 0) message.content = content;
      if (toolCalls.length > 0) message.toolCalls = toolCalls;
      out.push(message);
    } else {
      const text = textOf(m.content) || (m.content.some((p) => p.type === "image") ? "(see attached image)" : "");
      const body = `${m.isError ? "[tool error] " : ""}${text || "(no output)"}`;
      const images = acceptsImages
        ? mediaChunks(
            m.content.filter((p) => p.type === "image"),
            true,
          )
        : [];
      out.push({
        role: "tool",
        toolCallId: m.toolCallId,
        name: m.toolName,
        content: images.length > 0 ? [{ type: "text", text: body }, ...images] : body,
      });
    }
  }
  return out;
}

export function convertMistralTools(tools: Tool[]): Chunk[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters as unknown, strict: false },
  }));
}

/** Models that take `reasoning_effort` (none | high); other reasoning models (Magistral) take `prompt_mode`. */
export function usesMistralReasoningEffort(model: Model<Api>): boolean {
  return /^(mistral-small-(latest|2603)|mistral-medium-(3\.5|2604))$/.test(model.id);
}

/** The reasoning knobs for a provider-neutral level (undefined: send nothing, the model's default). */
export function mistralReasoning(
  model: Model<Api>,
  level: ModelThinkingLevel | undefined,
): { promptMode?: "reasoning"; reasoningEffort?: "none" | "high" } {
  if (level === undefined || !model.reasoning) return {};
  if (usesMistralReasoningEffort(model)) {
    if (level === "off") return { reasoningEffort: "none" };
    const mapped = mappedLevel(model, level);
    return { reasoningEffort: mapped === "none" ? "none" : "high" };
  }
  return level === "off" ? {} : { promptMode: "reasoning" };
}
