/**
 * Context-overflow detection. Vendors report "your prompt does not fit" in their own words (and a few do not
 * report it at all), so detection is a list of known phrasings plus usage checks for the silent cases. The
 * agent uses this to compact and retry instead of surfacing an error.
 */
import type { AssistantMessage } from "./types.js";

/** Known phrasings, each with an example of the vendor text it matches. */
const OVERFLOW_PATTERNS: RegExp[] = [
  // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
  /prompt is too long/i,
  // Anthropic, request body over the byte limit (HTTP 413): {"type":"request_too_large",...}
  /request_too_large/i,
  // OpenAI Responses: "Your input exceeds the context window of this model."
  /exceeds? the context window/i,
  // OpenAI Chat, DeepSeek, vLLM, OpenRouter: "This model's maximum context length is 128000 tokens. However, ..."
  /maximum context length is \d+/i,
  // OpenAI error code
  /context_length_exceeded/i,
  // Gemini: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."
  /input token count.*exceeds the maximum/i,
  // xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens."
  /maximum prompt length is \d+/i,
  // Groq: "Please reduce the length of the messages or completion."
  /reduce the length of the messages/i,
  // Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"
  /too large for model with \d+ maximum context length/i,
  // Bedrock: "Input is too long for requested model."
  /input is too long for (?:the )?requested model/i,
  // llama.cpp server: "the request exceeds the available context size, try increasing it"
  /exceeds the available context size/i,
  // LM Studio: "tokens to keep from the initial prompt is greater than the context length"
  /greater than the context length/i,
  // Ollama: "prompt too long; exceeded max context length by 1200 tokens"
  /exceeded (?:max )?context length/i,
  // GitHub Copilot: "prompt token count of 140000 exceeds the limit of 128000"
  /prompt token count of \d+ exceeds the limit/i,
  // MiniMax: "invalid params, context window exceeds limit"
  /context window exceeds limit/i,
  // Kimi: "Your request exceeded model token limit: 262144 (requested: 300000)"
  /exceeded model token limit/i,
  // z.ai finish reason surfaced as an error
  /model_context_window_exceeded/i,
  // Generic wordings used by gateways and local servers
  /context length exceeded/i,
  /context window (?:is )?(?:full|exceeded)/i,
  /token limit exceeded/i,
  /too many (?:input |prompt )?tokens/i,
];

/** Texts that mention tokens or limits but mean throttling, not a prompt that does not fit. */
const NOT_OVERFLOW_PATTERNS: RegExp[] = [
  /rate.?limit/i,
  /too many requests/i,
  /throttl/i,
  /tokens per (?:min|minute|day)/i,
  /\b(?:TPM|RPM|TPD)\b/,
  /please wait before/i,
];

/** The phrasings `isContextOverflow` recognises (for tests and for callers that classify raw text). */
export function getOverflowPatterns(): RegExp[] {
  return [...OVERFLOW_PATTERNS];
}

/** True when `text` is a vendor's way of saying the prompt does not fit the context window. */
export function isContextOverflowText(text: string): boolean {
  if (!OVERFLOW_PATTERNS.some((p) => p.test(text))) return false;
  return !NOT_OVERFLOW_PATTERNS.some((p) => p.test(text));
}

/**
 * True when `message` shows the context window was exceeded:
 * - an error whose text is a known overflow phrasing, or an HTTP 413 (request too large);
 * - with `contextWindow`: a successful reply whose input (plus cache reads) is larger than the window
 *   (providers that silently accept and truncate), or a `length` stop with no output and the window full.
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason === "error") {
    if (message.errorStatus === 413) return true;
    return isContextOverflowText(message.errorMessage ?? "");
  }
  if (!contextWindow || contextWindow <= 0) return false;
  const input = message.usage.input + message.usage.cacheRead;
  if (message.stopReason === "stop" || message.stopReason === "toolUse") return input > contextWindow;
  if (message.stopReason === "length") return message.usage.output === 0 && input >= contextWindow * 0.99;
  return false;
}
