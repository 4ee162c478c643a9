/**
 * Request side of the Anthropic Messages API: message conversion with the repairs Anthropic requires
 * (strictly alternating roles, tool results as user `tool_result` blocks, no empty text blocks, tool-use ids
 * matching `^[a-zA-Z0-9_-]+$` and at most 64 characters), prompt caching marks, and thinking settings.
 */
import { sanitizeId, transformMessages } from "../transform-messages.js";
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
import { mappedLevel, thinkingBudget } from "./thinking-shared.js";

export type AnthropicBlock = Record<string, unknown> & { type: string };
export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** Anthropic accepts tool-use ids matching `^[a-zA-Z0-9_-]+$`, at most 64 characters. */
export function normalizeAnthropicToolCallId(id: string): string {
  return sanitizeId(id, /[^a-zA-Z0-9_-]/g, 64);
}

function isSameModel(message: AssistantMessage, model: Model<Api>): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

function mediaBlocks(content: (TextContent | ImageContent)[]): AnthropicBlock[] {
  const out: AnthropicBlock[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text.trim()) out.push({ type: "text", text: part.text });
    } else {
      out.push({ type: "image", source: { type: "base64", media_type: part.mimeType, data: part.data } });
    }
  }
  return out;
}

function assistantBlocks(message: AssistantMessage, model: Model<Api>): AnthropicBlock[] {
  const same = isSameModel(message, model);
  const out: AnthropicBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text.trim()) out.push({ type: "text", text: block.text });
    } else if (block.type === "thinking") {
      if (same && block.redacted && block.thinkingSignature) {
        out.push({ type: "redacted_thinking", data: block.thinkingSignature });
      } else if (same && block.thinkingSignature) {
        out.push({ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature });
      } else if (!block.redacted && block.thinking.trim()) {
        // Unsigned thinking cannot be replayed as thinking; keep it readable as text.
        out.push({ type: "text", text: block.thinking });
      }
    } else {
      out.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments ?? {} });
    }
  }
  return out;
}

/**
 * Converts the conversation. Consecutive same-role turns are merged (Anthropic rejects two user or two
 * assistant messages in a row), and tool results become `tool_result` blocks of a user turn.
 */
export function convertAnthropicMessages(
  model: Model<Api>,
  context: Context,
  cacheRetention: CacheRetention,
): AnthropicMessageParam[] {
  const out: AnthropicMessageParam[] = [];
  const push = (role: "user" | "assistant", content: AnthropicBlock[]): void => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) {
      // tool_result blocks must open a user turn: put results before other blocks when merging.
      if (role === "user" && content.some((b) => b.type === "tool_result")) {
        const results = content.filter((b) => b.type === "tool_result");
        const rest = content.filter((b) => b.type !== "tool_result");
        const lastResults = last.content.filter((b) => b.type === "tool_result");
        const lastRest = last.content.filter((b) => b.type !== "tool_result");
        last.content = [...lastResults, ...results, ...lastRest, ...rest];
      } else {
        last.content.push(...content);
      }
      return;
    }
    out.push({ role, content: [...content] });
  };
  for (const m of transformMessages(context.messages, model, (id) => normalizeAnthropicToolCallId(id))) {
    if (m.role === "user") {
      push(
        "user",
        typeof m.content === "string"
          ? m.content.trim()
            ? [{ type: "text", text: m.content }]
            : []
          : mediaBlocks(m.content),
      );
    } else if (m.role === "assistant") {
      push("assistant", assistantBlocks(m, model));
    } else {
      const content = mediaBlocks(m.content);
      push("user", [
        {
          type: "tool_result",
          tool_use_id: m.toolCallId,
          content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }],
          is_error: m.isError,
        },
      ]);
    }
  }
  // The API wants the conversation to start with a user turn.
  if (out[0]?.role === "assistant") out.unshift({ role: "user", content: [{ type: "text", text: "(continued)" }] });
  const control = cacheControl(cacheRetention);
  if (control) {
    const lastUser = [...out].reverse().find((m) => m.role === "user");
    const lastBlock = lastUser?.content[lastUser.content.length - 1];
    if (lastBlock) lastBlock.cache_control = control;
  }
  return out;
}

export function cacheControl(retention: CacheRetention): Record<string, string> | undefined {
  if (retention === "none") return undefined;
  return retention === "long" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

export function convertAnthropicTools(tools: Tool[]): Record<string, unknown>[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as unknown as Record<string, unknown>,
  }));
}

const ADAPTIVE_EFFORTS = new Set(["low", "medium", "high", "max"]);

/**
 * Sets `thinking` (and `max_tokens`, which must exceed the budget) for `level`. A model whose map gives an
 * effort name ("low" | "medium" | "high" | "max") uses adaptive thinking with that effort; otherwise a token
 * budget. `off` sends nothing.
 */
export function applyAnthropicThinking(
  params: Record<string, unknown>,
  model: Model<Api>,
  level: ModelThinkingLevel,
  budgets: ThinkingBudgets | undefined,
): void {
  if (!model.reasoning || level === "off") return;
  const mapped = mappedLevel(model, level);
  if (mapped && ADAPTIVE_EFFORTS.has(mapped)) {
    params.thinking = { type: "adaptive" };
    params.output_config = { effort: mapped };
    delete params.temperature;
    return;
  }
  let budget = thinkingBudget(model, level, budgets);
  let maxTokens = params.max_tokens as number;
  if (maxTokens <= budget) maxTokens = Math.min(model.maxTokens, maxTokens + budget);
  if (maxTokens <= budget) budget = Math.max(1024, maxTokens - 1024);
  params.max_tokens = maxTokens;
  params.thinking = { type: "enabled", budget_tokens: budget };
  // The API rejects temperature with thinking enabled.
  delete params.temperature;
}

/** pi-ai's effort levels for adaptive thinking (`output_config.effort`). */
export type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";
/** How thinking text comes back: summarized text, or omitted (only the signature travels). */
export type AnthropicThinkingDisplay = "summarized" | "omitted";

/** Claude models that think adaptively (Opus 4.6 / 4.7, Sonnet 4.6), by id with or without a date suffix. */
export function supportsAdaptiveThinking(modelId: string): boolean {
  return /(?:opus|sonnet)-4[.-]6|opus-4[.-]7/.test(modelId);
}

/** pi-ai's explicit thinking switches (used when no Tiller `thinking` level is given). */
export interface ExplicitAnthropicThinking {
  thinkingEnabled?: boolean;
  thinkingBudgetTokens?: number;
  effort?: AnthropicEffort;
  thinkingDisplay?: AnthropicThinkingDisplay;
}

/**
 * Applies pi-ai's `thinkingEnabled` form: adaptive thinking (with `effort`) on models that support it or when
 * an effort is given, a `budget_tokens` budget (default 1024, `max_tokens` raised above it) otherwise, and
 * `{type: "disabled"}` for `thinkingEnabled: false`. Display defaults to "summarized", so Opus 4.7 shows its
 * thinking like older models. Non-reasoning models get nothing.
 */
export function applyExplicitAnthropicThinking(
  params: Record<string, unknown>,
  model: Model<Api>,
  options: ExplicitAnthropicThinking,
): void {
  if (!model.reasoning || options.thinkingEnabled === undefined) return;
  if (!options.thinkingEnabled) {
    params.thinking = { type: "disabled" };
    return;
  }
  const display = options.thinkingDisplay ?? "summarized";
  delete params.temperature; // rejected with thinking enabled
  if (supportsAdaptiveThinking(model.id) || (options.effort && options.thinkingBudgetTokens === undefined)) {
    params.thinking = { type: "adaptive", display };
    if (options.effort) params.output_config = { effort: options.effort };
    return;
  }
  const budget = options.thinkingBudgetTokens || 1024;
  const maxTokens = params.max_tokens as number;
  if (maxTokens <= budget) params.max_tokens = Math.min(Math.max(model.maxTokens, budget + 1), maxTokens + budget);
  params.thinking = { type: "enabled", budget_tokens: budget, display };
}
