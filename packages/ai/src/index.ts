export { type Static, type TSchema, Type } from "typebox";
export * from "./api-registry.js";
export * from "./classify-error.js";
export * from "./diagnostics.js";
export * from "./env-api-keys.js";
export * from "./error-stream.js";
export * from "./event-stream.js";
export * from "./json-repair.js";
export * from "./models.js";
export * from "./overflow.js";
export * from "./piece-text.js";
export * from "./provider-functions.js";
export type {
  BedrockCredentials,
  BedrockOptions,
  BedrockThinkingDisplay,
} from "./providers/amazon-bedrock.js";
export type { AnthropicOptions } from "./providers/anthropic.js";
export type { AnthropicEffort, AnthropicThinkingDisplay } from "./providers/anthropic-shared.js";
export type { AzureOpenAIResponsesOptions } from "./providers/azure-openai-responses.js";
export * from "./providers/faux.js";
export type { GoogleOptions } from "./providers/google.js";
export type { GoogleThinkingLevel, GoogleThinkingSettings } from "./providers/google-shared.js";
export type { GoogleVertexOptions } from "./providers/google-vertex.js";
export type { MistralOptions } from "./providers/mistral.js";
export * from "./providers/offline.js";
export type {
  OpenAICodexResponsesOptions,
  OpenAICodexWebSocketDebugStats,
} from "./providers/openai-codex-responses.js";
export type { OpenAICompletionsOptions } from "./providers/openai-completions.js";
export type { OpenAIResponsesOptions } from "./providers/openai-responses.js";
export { SseDecoder, type SseMessage } from "./providers/sse-decoder.js";
export * from "./register-builtins.js";
export * from "./session-resources.js";
export * from "./stream.js";
export * from "./streamed-field.js";
export * from "./streaming-json.js";
export * from "./transform-messages.js";
export * from "./typebox-helpers.js";
export * from "./types.js";
export * from "./validation.js";
