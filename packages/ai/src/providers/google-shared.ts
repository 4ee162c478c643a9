/**
 * Request side of the Gemini API: conversation → `contents` (thought signatures replayed to the same model),
 * tool declarations with JSON Schema reduced to the OpenAPI subset Gemini accepts, and thinking settings.
 */
import { transformMessages } from "../transform-messages.js";
import type {
  Api,
  AssistantMessage,
  Context,
  ImageContent,
  Model,
  ModelThinkingLevel,
  TextContent,
  ThinkingBudgets,
  Tool,
} from "../types.js";
import { mappedLevel, thinkingBudget } from "./thinking-shared.js";

/** Gemini 3's named thinking levels, as the wire spells them. */
export type GoogleThinkingLevel = "THINKING_LEVEL_UNSPECIFIED" | "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";

export type GeminiPart = Record<string, unknown>;
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

/** Keys of Gemini's `Schema` (an OpenAPI 3.0 subset). Everything else is removed. */
const SCHEMA_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

/**
 * Reduces a JSON Schema to what Gemini accepts: drops `$schema`, `$ref`/`$defs`, `additionalProperties`,
 * `patternProperties`, `examples`, `not`, conditionals and other unsupported keys; `const` becomes a
 * one-value `enum`; `oneOf` becomes `anyOf`; type arrays and `null` branches become `nullable`; `required`
 * keeps only declared properties; enums are strings and only on string types.
 */
export function sanitizeGeminiSchema(schema: unknown): Record<string, unknown> {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return {};
  const src = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === "const") {
      out.enum = [String(value)];
      if (src.type === undefined) out.type = "string";
      continue;
    }
    if (key === "oneOf") {
      if (src.anyOf === undefined) out.anyOf = value;
      continue;
    }
    if (!SCHEMA_KEYS.has(key)) continue;
    out[key] = value;
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as unknown[]).filter((t) => t !== "null");
    if (types.length < (out.type as unknown[]).length) out.nullable = true;
    out.type = types[0] ?? "string";
  }
  if (out.properties && typeof out.properties === "object") {
    const props: Record<string, unknown> = {};
    for (const [name, sub] of Object.entries(out.properties as Record<string, unknown>))
      props[name] = sanitizeGeminiSchema(sub);
    out.properties = props;
    if (Array.isArray(out.required))
      out.required = (out.required as unknown[]).filter((r) => typeof r === "string" && r in props);
  } else {
    delete out.required;
  }
  if (out.items !== undefined) out.items = sanitizeGeminiSchema(Array.isArray(out.items) ? out.items[0] : out.items);
  if (Array.isArray(out.anyOf)) {
    const branches = (out.anyOf as unknown[]).filter((b) => (b as { type?: unknown })?.type !== "null");
    if (branches.length < (out.anyOf as unknown[]).length) out.nullable = true;
    const clean = branches.map((b) => sanitizeGeminiSchema(b));
    if (clean.length === 1) {
      delete out.anyOf;
      Object.assign(out, { ...clean[0], ...out });
    } else if (clean.length === 0) {
      delete out.anyOf;
    } else {
      out.anyOf = clean;
    }
  }
  if (Array.isArray(out.enum)) {
    if (out.type === undefined || out.type === "string") {
      out.enum = (out.enum as unknown[]).filter((v) => v !== null).map((v) => String(v));
      out.type = "string";
    } else {
      delete out.enum;
    }
  }
  return out;
}

export function convertGeminiTools(tools: Tool[]): Record<string, unknown>[] {
  if (tools.length === 0) return [];
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: sanitizeGeminiSchema(t.parameters),
      })),
    },
  ];
}

function mediaParts(content: string | (TextContent | ImageContent)[]): GeminiPart[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  return content.map((p) =>
    p.type === "text" ? { text: p.text } : { inlineData: { mimeType: p.mimeType, data: p.data } },
  );
}

function isSameModel(message: AssistantMessage, model: Model<Api>): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/** Gemini 3 requires a thought signature on replayed function calls; Google documents this placeholder. */
const SKIP_SIGNATURE = "skip_thought_signature_validator";

function modelParts(message: AssistantMessage, model: Model<Api>): GeminiPart[] {
  const same = isSameModel(message, model);
  const needsSignature = /gemini-3/.test(model.id);
  const parts: GeminiPart[] = [];
  for (const block of message.content) {
    if (block.type === "thinking") {
      if (!block.thinking) continue;
      const part: GeminiPart = { text: block.thinking, thought: true };
      if (same && block.thinkingSignature) part.thoughtSignature = block.thinkingSignature;
      parts.push(part);
    } else if (block.type === "text") {
      const signature = same ? block.textSignature : undefined;
      // An empty text part can still carry the turn's thought signature, which Gemini wants back.
      if (!block.text && !signature) continue;
      const part: GeminiPart = { text: block.text };
      if (signature) part.thoughtSignature = signature;
      parts.push(part);
    } else {
      const part: GeminiPart = { functionCall: { name: block.name, args: block.arguments ?? {} } };
      const signature = same ? block.thoughtSignature : undefined;
      if (signature) part.thoughtSignature = signature;
      else if (needsSignature) part.thoughtSignature = SKIP_SIGNATURE;
      parts.push(part);
    }
  }
  return parts;
}

/** Converts the conversation; consecutive same-role turns (e.g. several tool results) are merged into one. */
export function convertGeminiContents(model: Model<Api>, context: Context): GeminiContent[] {
  const acceptsImages = model.input.includes("image");
  const out: GeminiContent[] = [];
  const push = (role: "user" | "model", parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts: [...parts] });
  };
  for (const m of transformMessages(context.messages, model)) {
    if (m.role === "user") push("user", mediaParts(m.content));
    else if (m.role === "assistant") push("model", modelParts(m, model));
    else {
      let text = "";
      const images: GeminiPart[] = [];
      for (const p of m.content) {
        if (p.type === "text") text += (text ? "\n" : "") + p.text;
        else if (acceptsImages) images.push({ inlineData: { mimeType: p.mimeType, data: p.data } });
      }
      const response = m.isError ? { error: text || "(error)" } : { output: text || "(no output)" };
      push("user", [{ functionResponse: { name: m.toolName, response } }, ...images]);
    }
  }
  return out;
}

/**
 * `thinkingConfig` for `level`: a token budget (Gemini 2.5) or a thinking level name (Gemini 3, or when the
 * model's map gives a name). `off` asks for no thinking (budget 0).
 */
export function geminiThinkingConfig(
  model: Model<Api>,
  level: ModelThinkingLevel,
  budgets: ThinkingBudgets | undefined,
): Record<string, unknown> | undefined {
  if (!model.reasoning) return undefined;
  if (level === "off") {
    const off = mappedLevel(model, "off");
    return off && /^\d+$/.test(off) ? { thinkingBudget: Number(off) } : { thinkingBudget: 0 };
  }
  const mapped = mappedLevel(model, level);
  if (mapped && !/^-?\d+$/.test(mapped)) return { includeThoughts: true, thinkingLevel: mapped.toUpperCase() };
  if (!mapped && /gemini-3/.test(model.id)) {
    return { includeThoughts: true, thinkingLevel: level === "xhigh" ? "HIGH" : level.toUpperCase() };
  }
  return { includeThoughts: true, thinkingBudget: thinkingBudget(model, level, budgets) };
}

/** pi-ai's explicit thinking settings for Gemini: on or off, with an optional budget or level name. */
export interface GoogleThinkingSettings {
  enabled: boolean;
  budgetTokens?: number;
  level?: GoogleThinkingLevel;
}

const GEMINI_3_PRO = /gemini-3(?:\.\d+)?-pro/;
const GEMINI_3_FLASH = /gemini-3(?:\.\d+)?-flash/;

/**
 * `thinkingConfig` for pi-ai's explicit settings: enabled sends `includeThoughts` with the level name (which
 * wins) or the budget; disabled is the same request as the level "off". Non-reasoning models get none.
 */
export function explicitGeminiThinkingConfig(
  model: Model<Api>,
  settings: GoogleThinkingSettings,
): Record<string, unknown> | undefined {
  if (!model.reasoning) return undefined;
  if (!settings.enabled) {
    // Gemini 3 cannot switch thinking off: it gets its lowest level.
    const id = model.id.toLowerCase();
    if (GEMINI_3_PRO.test(id)) return { thinkingLevel: "LOW" };
    if (GEMINI_3_FLASH.test(id)) return { thinkingLevel: "MINIMAL" };
    return geminiThinkingConfig(model, "off", undefined);
  }
  if (settings.level !== undefined) return { includeThoughts: true, thinkingLevel: settings.level };
  if (settings.budgetTokens !== undefined) return { includeThoughts: true, thinkingBudget: settings.budgetTokens };
  return { includeThoughts: true };
}
