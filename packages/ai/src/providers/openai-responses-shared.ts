/**
 * Request side of the OpenAI Responses API: conversation → `input` items (reasoning items replayed with their
 * encrypted content for the same model), tools, and reasoning settings. Tool-call ids are `call_id|item_id`
 * so that a replay can give the API both.
 */
import { sanitizeId, shortHash, transformMessages } from "../transform-messages.js";
import type { Api, AssistantMessage, Context, Model, ModelThinkingLevel, TextSignatureV1, Tool } from "../types.js";
import { textOf } from "./stream-shared.js";
import { mappedLevel } from "./thinking-shared.js";

export type ResponsesItem = Record<string, unknown>;

/** Keeps `call|item` ids (each part sanitized, the call part at most 64 chars); foreign ids become a call id. */
export function normalizeResponsesToolCallId(id: string): string {
  const [call = "", item] = id.split("|");
  const callId = sanitizeId(call, /[^a-zA-Z0-9_-]/g, 64);
  return item && /^fc[_-]?/.test(item) ? `${callId}|${sanitizeId(item, /[^a-zA-Z0-9_-]/g, 64)}` : callId;
}

function isSameModel(message: AssistantMessage, model: Model<Api>): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/** The item id and phase a text block came with: pi-ai's v1 JSON signature, or a legacy plain id. */
function parseTextSignature(signature: string | undefined): { id: string; phase?: string } | undefined {
  if (!signature) return undefined;
  if (signature.startsWith("{")) {
    try {
      const parsed = JSON.parse(signature) as Partial<TextSignatureV1>;
      if (parsed.v === 1 && typeof parsed.id === "string") {
        const phase = parsed.phase === "commentary" || parsed.phase === "final_answer" ? parsed.phase : undefined;
        return phase ? { id: parsed.id, phase } : { id: parsed.id };
      }
    } catch {
      // Not JSON: a legacy plain id.
    }
  }
  return { id: signature };
}

function assistantItems(message: AssistantMessage, model: Model<Api>): ResponsesItem[] {
  const same = isSameModel(message, model);
  const items: ResponsesItem[] = [];
  let hasReasoning = false;
  let text = "";
  const flushText = (): void => {
    if (text) items.push({ role: "assistant", content: text });
    text = "";
  };
  for (const block of message.content) {
    if (block.type === "thinking") {
      if (same && block.thinkingSignature) {
        try {
          const item = JSON.parse(block.thinkingSignature) as ResponsesItem;
          if (item.type === "reasoning") {
            flushText();
            items.push(item);
            hasReasoning = true;
          }
        } catch {
          // Not a Responses reasoning item (e.g. another API's signature): nothing to replay.
        }
      }
    } else if (block.type === "text") {
      const signature = same ? parseTextSignature(block.textSignature) : undefined;
      if (signature && block.text) {
        // The model's own message item, id and phase kept (gpt-5.x reads "commentary" vs "final_answer").
        flushText();
        items.push({
          type: "message",
          role: "assistant",
          id: signature.id.length > 64 ? `msg_${shortHash(signature.id)}` : signature.id,
          status: "completed",
          content: [{ type: "output_text", text: block.text, annotations: [] }],
          ...(signature.phase ? { phase: signature.phase } : {}),
        });
        continue;
      }
      text = text && block.text ? `${text}\n\n${block.text}` : text + block.text;
    } else {
      flushText();
      const [callId = block.id, itemId] = block.id.split("|");
      const item: ResponsesItem = {
        type: "function_call",
        call_id: callId,
        name: block.name,
        arguments: JSON.stringify(block.arguments ?? {}),
      };
      // The item id ties a call to its reasoning item; only meaningful when that reasoning is replayed too.
      if (same && hasReasoning && itemId) item.id = itemId;
      items.push(item);
    }
  }
  flushText();
  return items;
}

/**
 * The conversation as `input` items. `includeSystemPrompt: false` leaves the system prompt out, for backends
 * that take it as top-level `instructions` (the ChatGPT Codex backend).
 */
export function convertResponsesInput(
  model: Model<Api>,
  context: Context,
  options: { includeSystemPrompt?: boolean } = {},
): ResponsesItem[] {
  const acceptsImages = model.input.includes("image");
  const items: ResponsesItem[] = [];
  if (context.systemPrompt && options.includeSystemPrompt !== false) {
    items.push({ role: model.reasoning ? "developer" : "system", content: context.systemPrompt });
  }
  for (const m of transformMessages(context.messages, model, (id) => normalizeResponsesToolCallId(id))) {
    if (m.role === "user") {
      if (typeof m.content === "string") {
        items.push({ role: "user", content: [{ type: "input_text", text: m.content }] });
        continue;
      }
      const content = m.content.map((part) =>
        part.type === "text"
          ? { type: "input_text", text: part.text }
          : { type: "input_image", detail: "auto", image_url: `data:${part.mimeType};base64,${part.data}` },
      );
      if (content.length > 0) items.push({ role: "user", content });
    } else if (m.role === "assistant") {
      items.push(...assistantItems(m, model));
    } else {
      const callId = m.toolCallId.split("|")[0];
      items.push({ type: "function_call_output", call_id: callId, output: textOf(m.content) || "(no output)" });
      const images = acceptsImages ? m.content.filter((p) => p.type === "image") : [];
      if (images.length > 0) {
        items.push({
          role: "user",
          content: [
            { type: "input_text", text: "Images returned by the tool call above:" },
            ...images.map((p) => ({
              type: "input_image",
              detail: "auto",
              image_url: `data:${p.mimeType};base64,${p.data}`,
            })),
          ],
        });
      }
    }
  }
  return items;
}

/** Function tools; `strict` defaults to false (`null` lets the server choose, as the Codex backend wants). */
export function convertResponsesTools(tools: Tool[], strict: boolean | null = false): ResponsesItem[] {
  return tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict,
  }));
}

/** Reasoning settings for `level`; `off` sends the model's mapped "off" effort when it has one (e.g. "none"). */
export function applyResponsesReasoning(
  params: Record<string, unknown>,
  model: Model<Api>,
  level: ModelThinkingLevel,
): void {
  if (!model.reasoning) return;
  if (level === "off") {
    const off = mappedLevel(model, "off");
    if (off) params.reasoning = { effort: off };
    return;
  }
  const effort = mappedLevel(model, level) ?? (level === "xhigh" ? "high" : level);
  params.reasoning = { effort, summary: "auto" };
  params.include = ["reasoning.encrypted_content"];
}
