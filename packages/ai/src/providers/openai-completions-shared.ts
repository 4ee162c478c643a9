/**
 * Request side of the OpenAI chat-completions API and of the many servers that copy it (Ollama, llama.cpp,
 * vLLM, LM Studio, OpenRouter, Groq, DeepSeek, xAI, Mistral): compatibility flags with auto-detection by
 * provider and base URL, message conversion, tools.
 */
import { sanitizeId, shortHash, transformMessages } from "../transform-messages.js";
import type {
  Api,
  AssistantMessage,
  Context,
  Message,
  Model,
  ModelThinkingLevel,
  OpenAICompletionsCompat,
  Tool,
} from "../types.js";
import { textOf } from "./stream-shared.js";
import { mappedLevel } from "./thinking-shared.js";

/** Compat fields that stay optional once resolved (absent means "not used"). */
type OptionalCompat = "thinkingFormat" | "openRouterRouting" | "vercelGatewayRouting" | "cacheControlFormat";

export type ResolvedCompat = Required<Omit<OpenAICompletionsCompat, OptionalCompat>> &
  Pick<OpenAICompletionsCompat, Exclude<OptionalCompat, "thinkingFormat">> & {
    thinkingFormat: NonNullable<OpenAICompletionsCompat["thinkingFormat"]>;
    /** Mistral accepts only 9-character alphanumeric tool-call ids. */
    shortToolCallIds: boolean;
  };

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host.toLowerCase();
  } catch {
    return "";
  }
}

/** True for servers on this machine or a private network (Ollama, llama.cpp, vLLM, LM Studio), which need no key. */
export function isLocalServer(baseUrl: string): boolean {
  const host = hostOf(baseUrl).replace(/:\d+$/, "");
  return (
    host === "localhost" ||
    host === "[::1]" ||
    host.startsWith("127.") ||
    host.startsWith("10.") ||
    host.startsWith("192.168.") ||
    host.endsWith(".local") ||
    host === "host.docker.internal"
  );
}

/**
 * Flags for this model: explicit `model.compat` entries win; the rest are guessed from the provider and base
 * URL. OpenAI itself gets the full feature set; unknown servers get the conservative common subset.
 */
export function resolveCompat(model: Model<Api>): ResolvedCompat {
  const host = hostOf(model.baseUrl);
  const p = model.provider;
  const is = (name: string, hostPart: string): boolean => p === name || host.includes(hostPart);
  const openai = p === "openai" || host === "api.openai.com";
  const openrouter = is("openrouter", "openrouter.ai");
  const deepseek = is("deepseek", "deepseek.com");
  const groq = is("groq", "groq.com");
  const mistral = is("mistral", "mistral.ai");
  const zai = is("zai", "z.ai") || host.includes("bigmodel.cn");
  const qwen = host.includes("dashscope");
  const detected: ResolvedCompat = {
    supportsStore: openai,
    supportsDeveloperRole: openai,
    supportsReasoningEffort: openai || openrouter || groq,
    // Every major server sends a final usage chunk when asked; a server that rejects the field is rare.
    supportsUsageInStreaming: true,
    maxTokensField: openai ? "max_completion_tokens" : "max_tokens",
    requiresToolResultName: mistral,
    requiresAssistantAfterToolResult: false,
    requiresThinkingAsText: false,
    thinkingFormat: openrouter ? "openrouter" : deepseek ? "deepseek" : zai ? "zai" : qwen ? "qwen" : "openai",
    supportsStrictMode: openai,
    shortToolCallIds: mistral,
    requiresReasoningContentOnAssistantMessages: deepseek,
    zaiToolStream: false,
    sendSessionAffinityHeaders: false,
    supportsLongCacheRetention: false,
    // OpenRouter forwards cache_control to Anthropic models, which only cache what is marked.
    ...(openrouter && model.id.startsWith("anthropic/") ? { cacheControlFormat: "anthropic" as const } : {}),
  };
  const explicit = (model.compat ?? {}) as OpenAICompletionsCompat;
  const out = { ...detected };
  for (const [k, v] of Object.entries(explicit)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** OpenAI limits tool-call ids to 40 characters; Responses-style ids `call|item` keep their call part. */
export function normalizeOpenAIToolCallId(id: string): string {
  const callPart = id.includes("|") ? (id.split("|")[0] as string) : id;
  return sanitizeId(callPart, /[^a-zA-Z0-9_-]/g, 40);
}

/** Mistral: exactly 9 characters from [a-zA-Z0-9]; ids that already fit are kept. */
export function normalizeMistralToolCallId(id: string): string {
  if (/^[a-zA-Z0-9]{9}$/.test(id)) return id;
  return (shortHash(id) + shortHash(`${id}#`))
    .replace(/[^a-zA-Z0-9]/g, "0")
    .padEnd(9, "0")
    .slice(0, 9);
}

type ChatPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
export type ChatMessage = Record<string, unknown> & { role: string };

function userParts(content: Message["content"] & (string | unknown[]), acceptsImages: boolean): string | ChatPart[] {
  if (typeof content === "string") return content;
  const parts: ChatPart[] = [];
  for (const part of content as (
    | { type: "text"; text: string }
    | { type: "image"; data: string; mimeType: string }
  )[]) {
    if (part.type === "text") parts.push({ type: "text", text: part.text });
    else if (acceptsImages)
      parts.push({ type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } });
  }
  return parts;
}

function assistantMessage(message: AssistantMessage, model: Model<Api>, compat: ResolvedCompat): ChatMessage | null {
  let text = "";
  let reasoning = "";
  const toolCalls: unknown[] = [];
  for (const block of message.content) {
    if (block.type === "text") text = text && block.text ? `${text}\n\n${block.text}` : text + block.text;
    else if (block.type === "thinking") {
      if (compat.requiresThinkingAsText) text = text ? `${text}\n\n${block.thinking}` : block.thinking;
      else reasoning += block.thinking;
    } else {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.arguments) },
      });
    }
  }
  if (!text && toolCalls.length === 0) return null;
  const out: ChatMessage = { role: "assistant", content: text || null };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  // Reasoning goes back in the field it arrived in (the thinking block's signature names it), so servers
  // that want their reasoning replayed (DeepSeek, llama.cpp with gpt-oss) get it; others ignore the field.
  const field = replayField(message, model, compat);
  if (reasoning && field) out[field] = reasoning;
  else if (compat.requiresReasoningContentOnAssistantMessages && model.reasoning) out.reasoning_content = "";
  return out;
}

/** Field names servers use for reasoning text in chat-completions deltas, in the order they are read. */
export const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** The field to replay `message`'s reasoning in, or undefined when it should not be sent back. */
function replayField(message: AssistantMessage, model: Model<Api>, compat: ResolvedCompat): string | undefined {
  if (message.model !== model.id) return undefined;
  for (const block of message.content) {
    const signature = block.type === "thinking" ? block.thinkingSignature : undefined;
    if (signature && (REASONING_FIELDS as readonly string[]).includes(signature)) return signature;
  }
  return compat.thinkingFormat === "deepseek" ? "reasoning_content" : undefined;
}

/** Converts a Tiller context into chat-completions `messages`. */
export function convertMessages(model: Model<Api>, context: Context, compat: ResolvedCompat): ChatMessage[] {
  const acceptsImages = model.input.includes("image");
  const out: ChatMessage[] = [];
  if (context.systemPrompt) {
    out.push({
      role: model.reasoning && compat.supportsDeveloperRole ? "developer" : "system",
      content: context.systemPrompt,
    });
  }
  const normalize = compat.shortToolCallIds ? normalizeMistralToolCallId : normalizeOpenAIToolCallId;
  const messages = transformMessages(context.messages, model, (id) => normalize(id));
  let pendingImages: ChatPart[] = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    out.push({
      role: "user",
      content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages],
    });
    pendingImages = [];
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (m.role === "toolResult") {
      const msg: ChatMessage = {
        role: "tool",
        tool_call_id: m.toolCallId,
        content: textOf(m.content) || "(no output)",
      };
      if (compat.requiresToolResultName) msg.name = m.toolName;
      out.push(msg);
      if (acceptsImages) {
        for (const part of m.content) {
          if (part.type === "image")
            pendingImages.push({ type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } });
        }
      }
      const next = messages[i + 1];
      if (next?.role !== "toolResult") {
        flushImages();
        if (compat.requiresAssistantAfterToolResult && next?.role === "user") {
          out.push({ role: "assistant", content: "I have processed the tool results." });
        }
      }
      continue;
    }
    if (m.role === "user") {
      out.push({ role: "user", content: userParts(m.content, acceptsImages) });
      continue;
    }
    const a = assistantMessage(m, model, compat);
    if (a) out.push(a);
  }
  flushImages();
  return out;
}

export function convertTools(tools: Tool[], compat: ResolvedCompat): unknown[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      ...(compat.supportsStrictMode ? { strict: false } : {}),
    },
  }));
}

/** Adds the reasoning knob for `level` in the server's dialect. `off` sends what disables it, when known. */
export function applyReasoning(
  params: Record<string, unknown>,
  model: Model<Api>,
  compat: ResolvedCompat,
  level: ModelThinkingLevel,
): void {
  if (!model.reasoning) return;
  const wire = mappedLevel(model, level) ?? (level === "xhigh" ? "high" : level);
  switch (compat.thinkingFormat) {
    case "openrouter":
      params.reasoning = level === "off" ? { enabled: false } : { effort: wire };
      return;
    case "zai":
      params.thinking = { type: level === "off" ? "disabled" : "enabled" };
      return;
    case "qwen":
      params.enable_thinking = level !== "off";
      return;
    case "qwen-chat-template":
      params.chat_template_kwargs = { enable_thinking: level !== "off", preserve_thinking: true };
      return;
    case "deepseek":
      // deepseek-reasoner always reasons; there is no effort knob.
      return;
    default:
      if (!compat.supportsReasoningEffort) return;
      if (level === "off") {
        const off = mappedLevel(model, "off");
        if (off) params.reasoning_effort = off;
        return;
      }
      params.reasoning_effort = wire;
  }
}

/**
 * Request fields some servers need beyond the common body: OpenRouter / Vercel AI Gateway routing, z.ai's
 * tool-argument streaming, and Anthropic-style `cache_control` markers (system prompt and last user message)
 * for servers that pass them on to Claude.
 */
export function applyCompatExtras(
  params: Record<string, unknown>,
  model: Model<Api>,
  compat: ResolvedCompat,
  cacheRetention: "none" | "short" | "long" | undefined,
): void {
  if (compat.openRouterRouting && Object.keys(compat.openRouterRouting).length > 0) {
    params.provider = compat.openRouterRouting;
  }
  const gateway = compat.vercelGatewayRouting;
  if (gateway && (gateway.only || gateway.order)) {
    params.providerOptions = {
      gateway: { ...(gateway.only ? { only: gateway.only } : {}), ...(gateway.order ? { order: gateway.order } : {}) },
    };
  }
  if (compat.zaiToolStream && Array.isArray(params.tools)) params.tool_stream = true;
  if (compat.cacheControlFormat === "anthropic" && cacheRetention !== "none") {
    const ttl = cacheRetention === "long" && compat.supportsLongCacheRetention ? { ttl: "1h" } : {};
    markCacheControl(params.messages as ChatMessage[], { type: "ephemeral", ...ttl }, model);
  }
}

function markCacheControl(messages: ChatMessage[], control: Record<string, unknown>, _model: Model<Api>): void {
  const mark = (m: ChatMessage | undefined): void => {
    if (!m) return;
    if (typeof m.content === "string") m.content = [{ type: "text", text: m.content, cache_control: control }];
    else if (Array.isArray(m.content) && m.content.length > 0) {
      const last = m.content[m.content.length - 1] as Record<string, unknown>;
      m.content[m.content.length - 1] = { ...last, cache_control: control };
    }
  };
  mark(messages.find((m) => m.role === "system" || m.role === "developer"));
  mark(messages.findLast((m) => m.role === "user"));
}
