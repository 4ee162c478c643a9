/**
 * Type-level drop-in check: every type @mariozechner/pi-ai 0.73.1 exports is assignable to @tiller/ai's type
 * of the same name, so a value typed against pi-ai passes where Tiller's type is expected. `tsc` checks this
 * file (`npm run check`, and `pi-exports.test.ts` runs it on its own); `pi-exports.test.ts` also fails when a
 * pi type is missing here. Generic types are checked at their defaults and at a concrete instantiation.
 */
import type * as Pi from "@mariozechner/pi-ai";
import type * as T from "../src/index.js";

/** Compiles only when `From` is assignable to `To`. */
type Assignable<From extends To, To> = From;

/**
 * pi-ai's wire APIs and providers whose Tiller providers are being built on other branches. The lead sets
 * both to `never` when that work merges (see PENDING_PROVIDER_EXPORTS in pi-exports.test.ts).
 */
type PendingProviderApis =
  | "azure-openai-responses"
  | "google-vertex"
  | "mistral-conversations"
  | "openai-codex-responses"
  | "bedrock-converse-stream";
type PendingProviders = "amazon-bedrock" | "google-vertex" | "azure-openai-responses" | "openai-codex";

type Params = Pi.TSchema;
type Chat = "openai-completions";

export type Checks = [
  Assignable<Pi.AnthropicEffort, T.AnthropicEffort>,
  Assignable<Pi.AnthropicMessagesCompat, T.AnthropicMessagesCompat>,
  Assignable<Pi.AnthropicOptions, T.AnthropicOptions>,
  Assignable<Pi.AnthropicThinkingDisplay, T.AnthropicThinkingDisplay>,
  Assignable<Pi.Api, T.Api>,
  Assignable<Pi.ApiProvider, T.ApiProvider>,
  Assignable<Pi.ApiProvider<Chat, Pi.OpenAICompletionsOptions>, T.ApiProvider<Chat, T.OpenAICompletionsOptions>>,
  Assignable<Pi.ApiStreamFunction, T.ApiStreamFunction>,
  Assignable<Pi.ApiStreamSimpleFunction, T.ApiStreamSimpleFunction>,
  Assignable<Pi.AssistantMessage, T.AssistantMessage>,
  Assignable<Pi.AssistantMessageDiagnostic, T.AssistantMessageDiagnostic>,
  Assignable<Pi.AssistantMessageEvent, T.AssistantMessageEvent>,
  Assignable<Pi.AssistantMessageEventStream, T.AssistantMessageEventStream>,
  Assignable<Pi.CacheRetention, T.CacheRetention>,
  Assignable<Pi.Context, T.Context>,
  Assignable<Pi.DiagnosticErrorInfo, T.DiagnosticErrorInfo>,
  Assignable<Pi.EventStream<number, string>, T.EventStream<number, string>>,
  Assignable<Pi.FauxContentBlock, T.FauxContentBlock>,
  Assignable<Pi.FauxModelDefinition, T.FauxModelDefinition>,
  Assignable<Pi.FauxProviderRegistration, T.FauxProviderRegistration>,
  Assignable<Pi.FauxResponseFactory, T.FauxResponseFactory>,
  Assignable<Pi.FauxResponseStep, T.FauxResponseStep>,
  Assignable<Pi.GoogleOptions, T.GoogleOptions>,
  Assignable<Pi.GoogleThinkingLevel, T.GoogleThinkingLevel>,
  Assignable<Pi.ImageContent, T.ImageContent>,
  Assignable<Exclude<Pi.KnownApi, PendingProviderApis>, T.KnownApi>,
  Assignable<Exclude<Pi.KnownProvider, PendingProviders>, T.KnownProvider>,
  Assignable<Pi.Message, T.Message>,
  Assignable<Pi.Model<Pi.Api>, T.Model<T.Api>>,
  Assignable<Pi.Model<Chat>, T.Model<Chat>>,
  Assignable<Pi.ModelThinkingLevel, T.ModelThinkingLevel>,
  Assignable<Pi.OAuthAuthInfo, T.OAuthAuthInfo>,
  Assignable<Pi.OAuthCredentials, T.OAuthCredentials>,
  Assignable<Pi.OAuthLoginCallbacks, T.OAuthLoginCallbacks>,
  Assignable<Pi.OAuthPrompt, T.OAuthPrompt>,
  Assignable<Pi.OAuthProvider, T.OAuthProvider>,
  Assignable<Pi.OAuthProviderId, T.OAuthProviderId>,
  Assignable<Pi.OAuthProviderInfo, T.OAuthProviderInfo>,
  Assignable<Pi.OAuthProviderInterface, T.OAuthProviderInterface>,
  Assignable<Pi.OAuthSelectOption, T.OAuthSelectOption>,
  Assignable<Pi.OAuthSelectPrompt, T.OAuthSelectPrompt>,
  Assignable<Pi.OpenAICompletionsCompat, T.OpenAICompletionsCompat>,
  Assignable<Pi.OpenAICompletionsOptions, T.OpenAICompletionsOptions>,
  Assignable<Pi.OpenAIResponsesCompat, T.OpenAIResponsesCompat>,
  Assignable<Pi.OpenAIResponsesOptions, T.OpenAIResponsesOptions>,
  Assignable<Pi.OpenRouterRouting, T.OpenRouterRouting>,
  Assignable<Pi.Provider, T.Provider>,
  Assignable<Pi.ProviderResponse, T.ProviderResponse>,
  Assignable<Pi.ProviderStreamOptions, T.ProviderStreamOptions>,
  Assignable<Pi.RegisterFauxProviderOptions, T.RegisterFauxProviderOptions>,
  Assignable<Pi.SessionResourceCleanup, T.SessionResourceCleanup>,
  Assignable<Pi.SimpleStreamOptions, T.SimpleStreamOptions>,
  Assignable<Pi.Static<Params>, T.Static<T.TSchema>>,
  Assignable<Pi.StopReason, T.StopReason>,
  Assignable<Pi.StreamFunction, T.StreamFunction>,
  Assignable<Pi.StreamFunction<Chat, Pi.OpenAICompletionsOptions>, T.StreamFunction<Chat, T.OpenAICompletionsOptions>>,
  Assignable<Pi.StreamOptions, T.StreamOptions>,
  Assignable<Pi.TSchema, T.TSchema>,
  Assignable<Pi.TextContent, T.TextContent>,
  Assignable<Pi.TextSignatureV1, T.TextSignatureV1>,
  Assignable<Pi.ThinkingBudgets, T.ThinkingBudgets>,
  Assignable<Pi.ThinkingContent, T.ThinkingContent>,
  Assignable<Pi.ThinkingLevel, T.ThinkingLevel>,
  Assignable<Pi.ThinkingLevelMap, T.ThinkingLevelMap>,
  Assignable<Pi.Tool, T.Tool>,
  Assignable<Pi.Tool<Params>, T.Tool<T.TSchema>>,
  Assignable<Pi.ToolCall, T.ToolCall>,
  Assignable<Pi.ToolResultMessage, T.ToolResultMessage>,
  Assignable<Pi.ToolResultMessage<{ path: string }>, T.ToolResultMessage<{ path: string }>>,
  Assignable<Pi.Transport, T.Transport>,
  Assignable<Pi.Usage, T.Usage>,
  Assignable<Pi.UserMessage, T.UserMessage>,
  Assignable<Pi.VercelGatewayRouting, T.VercelGatewayRouting>,
];
