/**
 * Public types of @tiller/ai. Names and shapes follow @mariozechner/pi-ai 0.73 so code written against pi-ai
 * compiles against Tiller by changing the import; Tiller only adds.
 */
import type { TSchema } from "typebox";

/** Wire protocols Tiller ships. Open-ended: `registerApiProvider` adds more. */
export type KnownApi =
  | "openai-completions"
  | "openai-responses"
  | "anthropic-messages"
  | "google-generative-ai"
  | "bedrock-converse-stream"
  | "faux"
  | "offline"
  | "azure-openai-responses"
  | "openai-codex-responses"
  | "google-vertex"
  | "mistral-conversations";
export type Api = KnownApi | (string & {});

export type KnownProvider =
  | "openai"
  | "anthropic"
  | "google"
  | "openrouter"
  | "groq"
  | "deepseek"
  | "xai"
  | "mistral"
  | "ollama"
  | "amazon-bedrock"
  | "offline"
  | "azure-openai-responses"
  | "openai-codex"
  | "google-vertex"
  // pi-ai's other providers (their models use the wire APIs above or are described in models.json).
  | "github-copilot"
  | "cerebras"
  | "vercel-ai-gateway"
  | "zai"
  | "minimax"
  | "minimax-cn"
  | "moonshotai"
  | "moonshotai-cn"
  | "huggingface"
  | "fireworks"
  | "opencode"
  | "opencode-go"
  | "kimi-coding"
  | "cloudflare-workers-ai"
  | "cloudflare-ai-gateway"
  | "xiaomi"
  | "xiaomi-token-plan-cn"
  | "xiaomi-token-plan-ams"
  | "xiaomi-token-plan-sgp";
export type Provider = KnownProvider | (string & {});

/** Reasoning effort, provider-neutral. `off` is Tiller's addition to pi's list (pi passes `undefined`). */
export type ThinkingLevel = "minimal" | "low" | "medium" | "high" | "xhigh";
export type ModelThinkingLevel = "off" | ThinkingLevel;
/** Per model: what each level maps to on the wire; `null` means the level is not supported. */
export type ThinkingLevelMap = Partial<Record<ModelThinkingLevel, string | null>>;

export interface ThinkingBudgets {
  minimal?: number;
  low?: number;
  medium?: number;
  high?: number;
}

export type CacheRetention = "none" | "short" | "long";
export type Transport = "sse" | "websocket" | "websocket-cached" | "auto";

export interface ProviderResponse {
  status: number;
  headers: Record<string, string>;
}

export interface StreamOptions {
  temperature?: number;
  maxTokens?: number;
  /** Aborting ends the stream with an `error` event whose reason is `aborted`; partial content is kept. */
  signal?: AbortSignal;
  /** Wins over the environment variable of the model's provider. */
  apiKey?: string;
  transport?: Transport;
  cacheRetention?: CacheRetention;
  sessionId?: string;
  /** Inspect or replace the request body before it is sent. */
  onPayload?: (payload: unknown, model: Model<Api>) => unknown | undefined | Promise<unknown | undefined>;
  onResponse?: (response: ProviderResponse, model: Model<Api>) => void | Promise<void>;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryDelayMs?: number;
  metadata?: Record<string, unknown>;
}

export type ProviderStreamOptions = StreamOptions & Record<string, unknown>;

export interface SimpleStreamOptions extends StreamOptions {
  /** One reasoning level for every provider, mapped per model and clamped to what the model supports. */
  reasoning?: ModelThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
}

/**
 * A provider's stream function. Contract: it returns a stream synchronously and never throws after that;
 * every failure (HTTP error, broken stream, abort) is encoded as a final `error` event.
 */
export type StreamFunction<TApi extends Api = Api, TOptions extends StreamOptions = StreamOptions> = {
  // Declared as a method so the options parameter is checked bivariantly: a function written against
  // pi-ai's narrower options (`reasoning` without Tiller's "off") still fits where Tiller's is expected.
  fn(model: Model<TApi>, context: Context, options?: TOptions): AssistantMessageEventStreamLike;
}["fn"];

/** pi-ai's v1 text signature (OpenAI Responses): the output item's id and phase, JSON-encoded in `textSignature`. */
export interface TextSignatureV1 {
  v: 1;
  id: string;
  phase?: "commentary" | "final_answer";
}

export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Opaque provider signature needed to replay the block (Anthropic, OpenAI encrypted reasoning). */
  thinkingSignature?: string;
  /** True when the provider returned only encrypted reasoning. */
  redacted?: boolean;
}

export interface ImageContent {
  type: "image";
  /** Base64, without a data: prefix. */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: pi-compatible shape; arguments are validated per tool schema.
  arguments: Record<string, any>;
  thoughtSignature?: string;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** Dollars. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api;
  provider: Provider;
  model: string;
  responseModel?: string;
  responseId?: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  /** Tiller addition: HTTP status of a failed request, when there was one. */
  errorStatus?: number;
  /** Tiller addition: how long the provider asked us to wait (Retry-After), for rate limits and overload. */
  retryAfterMs?: number;
  /** Structured records of failures met while producing this message (see `diagnostics.ts`). */
  diagnostics?: AssistantMessageDiagnostic[];
  timestamp: number;
}

/** The serialisable parts of a thrown value, as kept in a diagnostic. */
export interface DiagnosticErrorInfo {
  name?: string;
  message: string;
  stack?: string;
  code?: string | number;
}

/** One diagnostic on an assistant message: what kind of failure, when, the error and free-form details. */
export interface AssistantMessageDiagnostic {
  type: string;
  timestamp: number;
  error?: DiagnosticErrorInfo;
  details?: Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: pi-compatible default for tool-specific details.
export interface ToolResultMessage<TDetails = any> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export interface Tool<TParameters extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: TParameters;
}

export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
}

/** Streaming protocol. Every non-terminal event carries the message built so far (`partial`). */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  /** `delta` is the raw JSON fragment of the arguments. */
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse">; message: AssistantMessage }
  | { type: "error"; reason: Extract<StopReason, "aborted" | "error">; error: AssistantMessage };

/**
 * What every stream function returns: an async iterable of events ending in `done` or `error`, plus
 * `result()` resolving to the final message (never rejecting). Any object of this shape is accepted
 * wherever Tiller takes a stream.
 */
export interface AssistantMessageEventStreamLike extends AsyncIterable<AssistantMessageEvent> {
  result(): Promise<AssistantMessage>;
}

export interface OpenAICompletionsCompat {
  supportsStore?: boolean;
  supportsDeveloperRole?: boolean;
  supportsReasoningEffort?: boolean;
  supportsUsageInStreaming?: boolean;
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  requiresToolResultName?: boolean;
  requiresAssistantAfterToolResult?: boolean;
  requiresThinkingAsText?: boolean;
  /** DeepSeek-style servers that want `reasoning_content` on every replayed assistant message. */
  requiresReasoningContentOnAssistantMessages?: boolean;
  thinkingFormat?: "openai" | "openrouter" | "deepseek" | "zai" | "qwen" | "qwen-chat-template";
  /** OpenRouter provider routing, sent as the request's `provider` object. */
  openRouterRouting?: OpenRouterRouting;
  /** Vercel AI Gateway routing, sent as `providerOptions.gateway`. */
  vercelGatewayRouting?: VercelGatewayRouting;
  /** z.ai: stream tool-call arguments (`tool_stream: true`). */
  zaiToolStream?: boolean;
  supportsStrictMode?: boolean;
  /** Put Anthropic-style `cache_control` markers on the system prompt and last user message. */
  cacheControlFormat?: "anthropic";
  /** Send the session id as affinity headers so the server routes a conversation to one cache. */
  sendSessionAffinityHeaders?: boolean;
  supportsLongCacheRetention?: boolean;
}

/** OpenRouter's provider-routing preferences (https://openrouter.ai/docs/features/provider-routing). */
export interface OpenRouterRouting {
  allow_fallbacks?: boolean;
  require_parameters?: boolean;
  data_collection?: "deny" | "allow";
  zdr?: boolean;
  enforce_distillable_text?: boolean;
  order?: string[];
  only?: string[];
  ignore?: string[];
  quantizations?: string[];
  sort?: string | { by?: string; partition?: string | null };
  max_price?: {
    prompt?: number | string;
    completion?: number | string;
    image?: number | string;
    audio?: number | string;
    request?: number | string;
  };
  preferred_min_throughput?: number | { p50?: number; p75?: number; p90?: number; p99?: number };
  preferred_max_latency?: number | { p50?: number; p75?: number; p90?: number; p99?: number };
}

/** Vercel AI Gateway's provider routing. */
export interface VercelGatewayRouting {
  only?: string[];
  order?: string[];
}

export interface OpenAIResponsesCompat {
  sendSessionIdHeader?: boolean;
  supportsLongCacheRetention?: boolean;
}

export interface AnthropicMessagesCompat {
  supportsEagerToolInputStreaming?: boolean;
  supportsLongCacheRetention?: boolean;
}

export interface Model<TApi extends Api = Api> {
  id: string;
  name: string;
  api: TApi;
  provider: Provider;
  baseUrl: string;
  reasoning: boolean;
  thinkingLevelMap?: ThinkingLevelMap;
  input: ("text" | "image")[];
  /** Dollars per million tokens. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow: number;
  maxTokens: number;
  headers?: Record<string, string>;
  compat?: TApi extends "openai-completions"
    ? OpenAICompletionsCompat
    : TApi extends "openai-responses"
      ? OpenAIResponsesCompat
      : TApi extends "anthropic-messages"
        ? AnthropicMessagesCompat
        : never;
}

/** Error classes shared by every layer (retry, auth rotation, failover). */
export type ErrorClass =
  | "auth"
  | "rate_limit"
  | "quota"
  | "billing"
  | "timeout"
  | "overloaded"
  | "context_overflow"
  | "network"
  | "format"
  | "unknown";

export interface ErrorClassification {
  class: ErrorClass;
  /** True for classes a caller may retry on the same credentials after a wait. */
  retryable: boolean;
  /** When the provider said how long to wait (Retry-After, retry-after-ms, "retry in 12s"). */
  retryAfterMs?: number;
  /** HTTP status when one is known. */
  status?: number;
  message: string;
}

// ---------------------------------------------------------------- OAuth (pi-ai's provider login contract)

/** Stored OAuth credentials: refresh and access tokens, expiry (ms since epoch), provider-specific extras. */
export type OAuthCredentials = {
  refresh: string;
  access: string;
  expires: number;
  [key: string]: unknown;
};
export type OAuthProviderId = string;
/** @deprecated pi-ai's old name; use `OAuthProviderId`. */
export type OAuthProvider = OAuthProviderId;
export type OAuthPrompt = { message: string; placeholder?: string; allowEmpty?: boolean };
export type OAuthAuthInfo = { url: string; instructions?: string };
export type OAuthSelectOption = { id: string; label: string };
export type OAuthSelectPrompt = { message: string; options: OAuthSelectOption[] };

/** What a login flow may ask of the user interface. */
export interface OAuthLoginCallbacks {
  onAuth: (info: OAuthAuthInfo) => void;
  onPrompt: (prompt: OAuthPrompt) => Promise<string>;
  onProgress?: (message: string) => void;
  onManualCodeInput?: () => Promise<string>;
  /** An interactive choice; resolves to the chosen option id, or undefined when cancelled. */
  onSelect?: (prompt: OAuthSelectPrompt) => Promise<string | undefined>;
  signal?: AbortSignal;
}

/** A provider that logs in with OAuth: login, refresh, and turning credentials into an API key. */
export interface OAuthProviderInterface {
  readonly id: OAuthProviderId;
  readonly name: string;
  login(callbacks: OAuthLoginCallbacks): Promise<OAuthCredentials>;
  /** True when login runs a local callback server (and so also accepts a pasted code). */
  usesCallbackServer?: boolean;
  refreshToken(credentials: OAuthCredentials): Promise<OAuthCredentials>;
  getApiKey(credentials: OAuthCredentials): string;
  /** Adjusts this provider's models for the logged-in account (e.g. its base URL). */
  modifyModels?(models: Model<Api>[], credentials: OAuthCredentials): Model<Api>[];
}

/** @deprecated pi-ai's old descriptor; use `OAuthProviderInterface`. */
export interface OAuthProviderInfo {
  id: OAuthProviderId;
  name: string;
  available: boolean;
}
