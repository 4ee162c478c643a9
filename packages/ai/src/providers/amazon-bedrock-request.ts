/**
 * Request side of Amazon Bedrock ConverseStream: the conversation in Converse's shape (strictly alternating
 * roles starting with a user turn, tool results as user `toolResult` blocks, no blank text), prompt-cache
 * points for Claude models, the tool configuration, and Claude thinking settings, which Converse only takes
 * through `additionalModelRequestFields`. Type-only imports: the SDK itself is loaded by amazon-bedrock.ts.
 */
import type {
  ContentBlock,
  Message as ConverseMessage,
  ConverseStreamCommandInput,
  Tool as ConverseTool,
  ToolChoice as ConverseToolChoice,
  ImageFormat,
  SystemContentBlock,
  ToolResultContentBlock,
} from "@aws-sdk/client-bedrock-runtime";
import { transformMessages } from "../transform-messages.js";
import type {
  Api,
  AssistantMessage,
  CacheRetention,
  Context,
  ImageContent,
  Model,
  ModelThinkingLevel,
  TextContent,
  ThinkingBudgets,
  Tool,
} from "../types.js";
import { normalizeAnthropicToolCallId } from "./anthropic-shared.js";
import { mappedLevel, thinkingBudget } from "./thinking-shared.js";

/** How Claude's thinking text comes back: summarized text, or omitted (the signature still travels). */
export type BedrockThinkingDisplay = "summarized" | "omitted";

/** The request-shaping options of `BedrockOptions` (see amazon-bedrock.ts). */
export interface BedrockRequestOptions {
  maxTokens?: number;
  temperature?: number;
  cacheRetention?: CacheRetention;
  toolChoice?: "auto" | "any" | "none" | { type: "tool"; name: string };
  reasoning?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
  interleavedThinking?: boolean;
  thinkingDisplay?: BedrockThinkingDisplay;
  requestMetadata?: Record<string, string>;
  /** Resolved signing region, used only to leave out fields GovCloud rejects. */
  region?: string;
}

/**
 * Model ids and names in a comparable form. Application inference profile ARNs do not contain the model's
 * name, so the user-chosen `model.name` is matched as well.
 */
function matchCandidates(model: Model<Api>): string[] {
  const out: string[] = [];
  for (const value of [model.id, model.name]) {
    if (!value) continue;
    const lower = value.toLowerCase();
    out.push(lower, lower.replace(/[\s_.:]+/g, "-"));
  }
  return out;
}

export function isClaudeModel(model: Model<Api>): boolean {
  return matchCandidates(model).some((s) => s.includes("claude"));
}

/** Claude models that take `thinking: {type: "adaptive"}` with an effort instead of a token budget. */
function usesAdaptiveThinking(model: Model<Api>): boolean {
  return matchCandidates(model).some((s) => /opus-4-[67]|sonnet-4-6/.test(s));
}

/** Claude 4.x, 3.7 Sonnet and 3.5 Haiku accept cache points; other models cache automatically or not at all. */
function supportsCachePoints(model: Model<Api>): boolean {
  const c = matchCandidates(model);
  if (!c.some((s) => s.includes("claude"))) return false;
  return c.some((s) => /-4-|claude-3-7-sonnet|claude-3-5-haiku/.test(s));
}

function cachePoint(retention: CacheRetention): ContentBlock & SystemContentBlock {
  return { cachePoint: { type: "default", ...(retention === "long" ? { ttl: "1h" } : {}) } } as ContentBlock &
    SystemContentBlock;
}

const IMAGE_FORMATS: Record<string, ImageFormat> = {
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
};

function imageBlock(image: ImageContent): ContentBlock {
  const format = IMAGE_FORMATS[image.mimeType.toLowerCase()];
  if (!format) throw new Error(`Bedrock does not accept images of type ${image.mimeType} (png, jpeg, gif, webp only)`);
  return { image: { format, source: { bytes: Buffer.from(image.data, "base64") } } };
}

function mediaBlocks(content: string | (TextContent | ImageContent)[]): ContentBlock[] {
  if (typeof content === "string") return content.trim() ? [{ text: content }] : [];
  const out: ContentBlock[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text.trim()) out.push({ text: part.text });
    } else out.push(imageBlock(part));
  }
  return out;
}

function assistantBlocks(message: AssistantMessage, model: Model<Api>): ContentBlock[] {
  const claude = isClaudeModel(model);
  const out: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text.trim()) out.push({ text: block.text });
    } else if (block.type === "toolCall") {
      out.push({ toolUse: { toolUseId: block.id, name: block.name, input: block.arguments ?? {} } });
    } else if (block.redacted) {
      // transformMessages keeps redacted thinking only for the model that produced it.
      if (block.thinkingSignature) {
        out.push({ reasoningContent: { redactedContent: Buffer.from(block.thinkingSignature, "base64") } });
      }
    } else if (claude && block.thinkingSignature && !block.thinking.trim()) {
      // thinkingDisplay "omitted": the text is empty but the signed block must go back for the turn to continue.
      out.push({ reasoningContent: { reasoningText: { text: block.thinking, signature: block.thinkingSignature } } });
    } else if (block.thinking.trim()) {
      if (!claude) {
        // Only Claude takes the signature field; other reasoning models reject it.
        out.push({ reasoningContent: { reasoningText: { text: block.thinking } } });
      } else if (block.thinkingSignature) {
        out.push({ reasoningContent: { reasoningText: { text: block.thinking, signature: block.thinkingSignature } } });
      } else {
        // Claude rejects unsigned reasoning (a cut stream, another source): keep it readable as text.
        out.push({ text: block.thinking });
      }
    }
  }
  return out;
}

function toolResultContent(content: (TextContent | ImageContent)[]): ToolResultContentBlock[] {
  const out: ToolResultContentBlock[] = [];
  for (const part of content) {
    if (part.type === "text") out.push({ text: part.text });
    else out.push({ image: (imageBlock(part) as { image: NonNullable<ContentBlock["image"]> }).image });
  }
  return out.length > 0 ? out : [{ text: "(no output)" }];
}

/**
 * Converts the conversation. Converse rejects two turns of one role in a row and a conversation that opens
 * with the assistant, so same-role turns are merged (tool results first in a user turn) and a placeholder
 * user turn is put in front when needed.
 */
export function convertBedrockMessages(
  model: Model<Api>,
  context: Context,
  retention: CacheRetention,
): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  const push = (role: "user" | "assistant", content: ContentBlock[]): void => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (!last || last.role !== role) {
      out.push({ role, content });
      return;
    }
    const merged = last.content ?? [];
    if (role === "user" && content.some((b) => b.toolResult)) {
      const results = [...merged.filter((b) => b.toolResult), ...content.filter((b) => b.toolResult)];
      const rest = [...merged.filter((b) => !b.toolResult), ...content.filter((b) => !b.toolResult)];
      last.content = [...results, ...rest];
    } else {
      merged.push(...content);
      last.content = merged;
    }
  };
  for (const m of transformMessages(context.messages, model, normalizeAnthropicToolCallId)) {
    if (m.role === "user") push("user", mediaBlocks(m.content));
    else if (m.role === "assistant") push("assistant", assistantBlocks(m, model));
    else {
      push("user", [
        {
          toolResult: {
            toolUseId: m.toolCallId,
            content: toolResultContent(m.content),
            status: m.isError ? "error" : "success",
          },
        },
      ]);
    }
  }
  if (out[0]?.role === "assistant") out.unshift({ role: "user", content: [{ text: "(continued)" }] });
  const last = out[out.length - 1];
  if (retention !== "none" && supportsCachePoints(model) && last?.role === "user") {
    last.content = [...(last.content ?? []), cachePoint(retention)];
  }
  return out;
}

function systemBlocks(
  model: Model<Api>,
  context: Context,
  retention: CacheRetention,
): SystemContentBlock[] | undefined {
  if (!context.systemPrompt) return undefined;
  const blocks: SystemContentBlock[] = [{ text: context.systemPrompt }];
  if (retention !== "none" && supportsCachePoints(model)) blocks.push(cachePoint(retention));
  return blocks;
}

function toolConfig(
  tools: Tool[] | undefined,
  choice: BedrockRequestOptions["toolChoice"],
): ConverseStreamCommandInput["toolConfig"] {
  // Converse has no "none" choice: leaving the tools out is how a turn is kept tool-free.
  if (!tools || tools.length === 0 || choice === "none") return undefined;
  const specs: ConverseTool[] = tools.map((t) => ({
    toolSpec: {
      name: t.name,
      description: t.description,
      inputSchema: { json: t.parameters as unknown as NonNullable<ConverseTool["toolSpec"]>["inputSchema"] },
    },
  })) as ConverseTool[];
  let toolChoice: ConverseToolChoice | undefined;
  if (choice === "auto") toolChoice = { auto: {} };
  else if (choice === "any") toolChoice = { any: {} };
  else if (typeof choice === "object") toolChoice = { tool: { name: choice.name } };
  return toolChoice ? { tools: specs, toolChoice } : { tools: specs };
}

/** Effort name for adaptive thinking: the model's map wins; Opus 4.7 has a native xhigh. */
function adaptiveEffort(model: Model<Api>, level: Exclude<ModelThinkingLevel, "off">): string {
  const mapped = mappedLevel(model, level);
  if (mapped) return mapped;
  if (level === "xhigh" && matchCandidates(model).some((s) => s.includes("opus-4-7"))) return "xhigh";
  if (level === "minimal" || level === "low") return "low";
  return level === "medium" ? "medium" : "high";
}

/**
 * Claude thinking through `additionalModelRequestFields`, and the output limit it needs: a budget must stay
 * below `maxTokens`, so the limit is raised (within the model's) when it would not fit.
 */
function claudeThinking(
  model: Model<Api>,
  options: BedrockRequestOptions,
  inference: NonNullable<ConverseStreamCommandInput["inferenceConfig"]>,
): Record<string, unknown> | undefined {
  const level = options.reasoning;
  if (!level || level === "off" || !model.reasoning || !isClaudeModel(model)) return undefined;
  // GovCloud's Converse schema does not know `display` yet.
  const govCloud = /^us-gov-/i.test(options.region ?? "") || /^(us-gov\.|arn:aws-us-gov:)/i.test(model.id);
  const display = govCloud ? {} : { display: options.thinkingDisplay ?? "summarized" };
  // Claude rejects a temperature together with thinking.
  delete inference.temperature;
  if (usesAdaptiveThinking(model)) {
    return { thinking: { type: "adaptive", ...display }, output_config: { effort: adaptiveEffort(model, level) } };
  }
  // Budget-based Claude models top out at high.
  const budgetLevel = level === "xhigh" ? "high" : level;
  let budget = thinkingBudget(model, budgetLevel, options.thinkingBudgets);
  let maxTokens = inference.maxTokens ?? model.maxTokens;
  if (maxTokens <= budget) maxTokens = Math.min(model.maxTokens, maxTokens + budget);
  if (maxTokens <= budget) budget = Math.max(1024, maxTokens - 1024);
  inference.maxTokens = maxTokens;
  const fields: Record<string, unknown> = { thinking: { type: "enabled", budget_tokens: budget, ...display } };
  if (options.interleavedThinking ?? true) fields.anthropic_beta = ["interleaved-thinking-2025-05-14"];
  return fields;
}

/** The ConverseStream request for one turn. */
export function buildConverseInput(
  model: Model<Api>,
  context: Context,
  options: BedrockRequestOptions,
): ConverseStreamCommandInput {
  const retention = options.cacheRetention ?? "short";
  const inference: NonNullable<ConverseStreamCommandInput["inferenceConfig"]> = {};
  if (options.maxTokens !== undefined) inference.maxTokens = options.maxTokens;
  if (options.temperature !== undefined) inference.temperature = options.temperature;
  const additional = claudeThinking(model, options, inference);
  const input: ConverseStreamCommandInput = {
    modelId: model.id,
    messages: convertBedrockMessages(model, context, retention),
  };
  const system = systemBlocks(model, context, retention);
  if (system) input.system = system;
  if (Object.keys(inference).length > 0) input.inferenceConfig = inference;
  const tools = toolConfig(context.tools, options.toolChoice);
  if (tools) input.toolConfig = tools;
  if (additional)
    input.additionalModelRequestFields = additional as ConverseStreamCommandInput["additionalModelRequestFields"];
  if (options.requestMetadata) input.requestMetadata = options.requestMetadata;
  return input;
}
