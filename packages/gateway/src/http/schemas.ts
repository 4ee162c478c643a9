/**
 * Request schemas of the HTTP API, defined once in TypeBox: the types below and the validation (body.ts) come
 * from them. Fields OpenAI clients commonly send but that Tiller does not act on are accepted (objects stay
 * open), so an ordinary client is never refused for an extra key.
 */
import { type Static, Type } from "typebox";

const TextPart = Type.Object({ type: Type.Literal("text"), text: Type.String() });
const ImageUrlPart = Type.Object({
  type: Type.Literal("image_url"),
  image_url: Type.Union([
    Type.String({ minLength: 1 }),
    Type.Object({ url: Type.String({ minLength: 1 }), detail: Type.Optional(Type.String()) }),
  ]),
});
/** Parts Tiller does not use (audio, files, refusals) are accepted and dropped. */
const OtherPart = Type.Object({ type: Type.String({ minLength: 1 }) });

export const ChatContentPart = Type.Union([TextPart, ImageUrlPart, OtherPart]);

export const ChatMessage = Type.Object({
  role: Type.Union([
    Type.Literal("system"),
    Type.Literal("developer"),
    Type.Literal("user"),
    Type.Literal("assistant"),
    Type.Literal("tool"),
    Type.Literal("function"),
  ]),
  content: Type.Optional(Type.Union([Type.String(), Type.Null(), Type.Array(ChatContentPart)])),
  name: Type.Optional(Type.String()),
});

export const ChatCompletionRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(ChatMessage, { minItems: 1 }),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  stream_options: Type.Optional(
    Type.Union([Type.Null(), Type.Object({ include_usage: Type.Optional(Type.Boolean()) })]),
  ),
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  temperature: Type.Optional(Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 2 })])),
  top_p: Type.Optional(Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })])),
  max_tokens: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
  max_completion_tokens: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
  n: Type.Optional(Type.Union([Type.Null(), Type.Literal(1)])),
});
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;
export type ChatMessage = Static<typeof ChatMessage>;
export type ChatContentPart = Static<typeof ChatContentPart>;

const InputText = Type.Object({
  type: Type.Union([Type.Literal("input_text"), Type.Literal("output_text")]),
  text: Type.String(),
});
const InputImage = Type.Object({
  type: Type.Literal("input_image"),
  image_url: Type.Optional(Type.String({ minLength: 1 })),
  source: Type.Optional(
    Type.Object({
      type: Type.Union([Type.Literal("base64"), Type.Literal("url")]),
      media_type: Type.Optional(Type.String()),
      data: Type.Optional(Type.String()),
      url: Type.Optional(Type.String()),
    }),
  ),
});
export const ResponsesContentPart = Type.Union([InputText, InputImage, OtherPart]);

/** An input item: a message (with or without `type: "message"`), or another item kind (ignored). */
export const ResponsesInputItem = Type.Union([
  Type.Object({
    type: Type.Optional(Type.Literal("message")),
    role: Type.Union([
      Type.Literal("system"),
      Type.Literal("developer"),
      Type.Literal("user"),
      Type.Literal("assistant"),
    ]),
    content: Type.Union([Type.String(), Type.Array(ResponsesContentPart)]),
  }),
  Type.Object({
    type: Type.Union([
      Type.Literal("function_call_output"),
      Type.Literal("reasoning"),
      Type.Literal("item_reference"),
      Type.Literal("function_call"),
    ]),
  }),
]);

export const ResponsesRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Union([Type.String({ minLength: 1 }), Type.Array(ResponsesInputItem, { minItems: 1 })]),
  instructions: Type.Optional(Type.Union([Type.Null(), Type.String()])),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  previous_response_id: Type.Optional(Type.Union([Type.Null(), Type.String({ minLength: 1 })])),
  user: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  max_output_tokens: Type.Optional(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
  temperature: Type.Optional(Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 2 })])),
  top_p: Type.Optional(Type.Union([Type.Null(), Type.Number({ minimum: 0, maximum: 1 })])),
});
export type ResponsesRequest = Static<typeof ResponsesRequest>;
export type ResponsesInputItem = Static<typeof ResponsesInputItem>;
export type ResponsesContentPart = Static<typeof ResponsesContentPart>;
