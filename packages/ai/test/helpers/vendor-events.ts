/**
 * Builders for each vendor's real streaming protocol, from one neutral description of a turn. Event names,
 * JSON shapes and ordering follow the vendors' documented wire formats (OpenAI chat.completion.chunk and
 * Responses events, Anthropic Messages events, Gemini streamGenerateContent?alt=sse chunks).
 */
import type { SseEvent } from "./mock-server.js";

export interface TurnScript {
  model?: string;
  /** Reasoning deltas (OpenAI reasoning_content / Responses summary / Anthropic thinking / Gemini thought parts). */
  thinking?: string[];
  /** Anthropic thinking signature, Responses encrypted_content, Gemini thoughtSignature. */
  signature?: string;
  text?: string[];
  /** Tool calls in order; `args` are the raw JSON fragments as streamed. */
  toolCalls?: { id: string; name: string; args: string[] }[];
  finish?: "stop" | "length" | "tool";
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
}

// ---------------------------------------------------------------- OpenAI chat completions

/** `data: {chat.completion.chunk}` lines, a usage chunk with empty choices, then `data: [DONE]`. */
export function openaiChatEvents(t: TurnScript, opts: { reasoningField?: string; done?: boolean } = {}): SseEvent[] {
  const model = t.model ?? "gpt-test";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({
    data: {
      id: "chatcmpl-abc123",
      object: "chat.completion.chunk",
      created: 1764489600,
      model,
      system_fingerprint: "fp_test",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    },
  });
  const events: SseEvent[] = [chunk({ role: "assistant", content: "", refusal: null })];
  const field = opts.reasoningField ?? "reasoning_content";
  for (const d of t.thinking ?? []) events.push(chunk({ [field]: d }));
  for (const d of t.text ?? []) events.push(chunk({ content: d }));
  (t.toolCalls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const a of call.args) events.push(chunk({ tool_calls: [{ index, function: { arguments: a } }] }));
  });
  const finish = t.finish === "length" ? "length" : t.finish === "tool" ? "tool_calls" : "stop";
  events.push(chunk({}, finish));
  if (t.usage) {
    events.push({
      data: {
        id: "chatcmpl-abc123",
        object: "chat.completion.chunk",
        created: 1764489600,
        model,
        choices: [],
        usage: {
          prompt_tokens: t.usage.input + (t.usage.cacheRead ?? 0),
          completion_tokens: t.usage.output,
          total_tokens: t.usage.input + (t.usage.cacheRead ?? 0) + t.usage.output,
          prompt_tokens_details: { cached_tokens: t.usage.cacheRead ?? 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: t.usage.reasoning ?? 0, audio_tokens: 0 },
        },
      },
    });
  }
  if (opts.done !== false) events.push({ data: "[DONE]" });
  return events;
}

// ---------------------------------------------------------------- OpenAI Responses

export function openaiResponsesEvents(t: TurnScript): SseEvent[] {
  const model = t.model ?? "gpt-test";
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>): SseEvent => ({
    event: type,
    data: { type, sequence_number: seq++, ...body },
  });
  const base = { id: "resp_abc123", object: "response", created_at: 1764489600, model };
  const events: SseEvent[] = [
    ev("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } }),
    ev("response.in_progress", { response: { ...base, status: "in_progress", output: [], usage: null } }),
  ];
  const output: unknown[] = [];
  let oi = 0;
  if (t.thinking) {
    const id = "rs_abc123";
    const text = t.thinking.join("");
    events.push(ev("response.output_item.added", { output_index: oi, item: { id, type: "reasoning", summary: [] } }));
    events.push(
      ev("response.reasoning_summary_part.added", {
        item_id: id,
        output_index: oi,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      }),
    );
    for (const d of t.thinking) {
      events.push(
        ev("response.reasoning_summary_text.delta", { item_id: id, output_index: oi, summary_index: 0, delta: d }),
      );
    }
    events.push(ev("response.reasoning_summary_text.done", { item_id: id, output_index: oi, summary_index: 0, text }));
    events.push(
      ev("response.reasoning_summary_part.done", {
        item_id: id,
        output_index: oi,
        summary_index: 0,
        part: { type: "summary_text", text },
      }),
    );
    const item = {
      id,
      type: "reasoning",
      summary: [{ type: "summary_text", text }],
      encrypted_content: t.signature ?? "gAAAAencrypted",
    };
    events.push(ev("response.output_item.done", { output_index: oi, item }));
    output.push(item);
    oi++;
  }
  if (t.text) {
    const id = "msg_abc123";
    const text = t.text.join("");
    events.push(
      ev("response.output_item.added", {
        output_index: oi,
        item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      }),
    );
    events.push(
      ev("response.content_part.added", {
        item_id: id,
        output_index: oi,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      }),
    );
    for (const d of t.text) {
      events.push(
        ev("response.output_text.delta", { item_id: id, output_index: oi, content_index: 0, delta: d, logprobs: [] }),
      );
    }
    events.push(
      ev("response.output_text.done", { item_id: id, output_index: oi, content_index: 0, text, logprobs: [] }),
    );
    const part = { type: "output_text", text, annotations: [] };
    events.push(ev("response.content_part.done", { item_id: id, output_index: oi, content_index: 0, part }));
    const item = { id, type: "message", status: "completed", role: "assistant", content: [part] };
    events.push(ev("response.output_item.done", { output_index: oi, item }));
    output.push(item);
    oi++;
  }
  for (const call of t.toolCalls ?? []) {
    const id = `fc_${call.id}`;
    const args = call.args.join("");
    events.push(
      ev("response.output_item.added", {
        output_index: oi,
        item: { id, type: "function_call", status: "in_progress", arguments: "", call_id: call.id, name: call.name },
      }),
    );
    for (const d of call.args) {
      events.push(ev("response.function_call_arguments.delta", { item_id: id, output_index: oi, delta: d }));
    }
    events.push(ev("response.function_call_arguments.done", { item_id: id, output_index: oi, arguments: args }));
    const item = { id, type: "function_call", status: "completed", arguments: args, call_id: call.id, name: call.name };
    events.push(ev("response.output_item.done", { output_index: oi, item }));
    output.push(item);
    oi++;
  }
  const u = t.usage ?? { input: 0, output: 0 };
  const usage = {
    input_tokens: u.input + (u.cacheRead ?? 0),
    input_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + (u.cacheRead ?? 0) + u.output,
  };
  if (t.finish === "length") {
    events.push(
      ev("response.incomplete", {
        response: {
          ...base,
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          output,
          usage,
        },
      }),
    );
  } else {
    events.push(ev("response.completed", { response: { ...base, status: "completed", output, usage } }));
  }
  return events;
}

// ---------------------------------------------------------------- Anthropic Messages

export function anthropicEvents(t: TurnScript, opts: { ping?: boolean } = {}): SseEvent[] {
  const model = t.model ?? "claude-test";
  const u = t.usage ?? { input: 0, output: 0 };
  const ev = (type: string, body: Record<string, unknown>): SseEvent => ({ event: type, data: { type, ...body } });
  const events: SseEvent[] = [
    ev("message_start", {
      message: {
        id: "msg_01abc",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: u.input,
          cache_creation_input_tokens: u.cacheWrite ?? 0,
          cache_read_input_tokens: u.cacheRead ?? 0,
          output_tokens: 1,
        },
      },
    }),
  ];
  if (opts.ping !== false) events.push(ev("ping", {}));
  let index = 0;
  if (t.thinking) {
    events.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const d of t.thinking) {
      events.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: d } }));
    }
    events.push(
      ev("content_block_delta", { index, delta: { type: "signature_delta", signature: t.signature ?? "EqQBsig==" } }),
    );
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  if (t.text) {
    events.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const d of t.text) events.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: d } }));
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const call of t.toolCalls ?? []) {
    events.push(
      ev("content_block_start", {
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      }),
    );
    for (const d of call.args) {
      events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: d } }));
    }
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  const stop = t.finish === "length" ? "max_tokens" : t.finish === "tool" ? "tool_use" : "end_turn";
  events.push(
    ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output } }),
  );
  events.push(ev("message_stop", {}));
  return events;
}

// ---------------------------------------------------------------- Gemini

/** `data: {GenerateContentResponse}` chunks as `streamGenerateContent?alt=sse` sends them. */
export function geminiEvents(t: TurnScript): SseEvent[] {
  const model = t.model ?? "gemini-test";
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}): SseEvent => ({
    data: {
      candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
      modelVersion: model,
      responseId: "resp-gem-1",
    },
  });
  const events: SseEvent[] = [];
  for (const d of t.thinking ?? []) events.push(chunk([{ text: d, thought: true }]));
  const text = t.text ?? [];
  text.forEach((d, i) => {
    const part: Record<string, unknown> = { text: d };
    if (i === 0 && t.signature && !t.toolCalls) part.thoughtSignature = t.signature;
    events.push(chunk([part]));
  });
  const calls = (t.toolCalls ?? []).map((c, i) => {
    const part: Record<string, unknown> = { functionCall: { name: c.name, args: JSON.parse(c.args.join("")) } };
    if (i === 0 && t.signature) part.thoughtSignature = t.signature;
    return part;
  });
  const u = t.usage ?? { input: 0, output: 0 };
  const usageMetadata: Record<string, unknown> = {
    promptTokenCount: u.input + (u.cacheRead ?? 0),
    candidatesTokenCount: u.output - (u.reasoning ?? 0),
    totalTokenCount: u.input + (u.cacheRead ?? 0) + u.output,
  };
  if (u.reasoning) usageMetadata.thoughtsTokenCount = u.reasoning;
  if (u.cacheRead) usageMetadata.cachedContentTokenCount = u.cacheRead;
  const finishReason = t.finish === "length" ? "MAX_TOKENS" : "STOP";
  const last = chunk(calls.length > 0 ? calls : [{ text: "" }], { finishReason });
  (last.data as Record<string, unknown>).usageMetadata = usageMetadata;
  events.push(last);
  return events;
}

// ---------------------------------------------------------------- Error bodies (vendors' real wording)

export const errorBodies = {
  openaiAuth: {
    error: {
      message:
        "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    },
  },
  openaiRateLimit: {
    error: {
      message: "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 30000.",
      type: "tokens",
      param: null,
      code: "rate_limit_exceeded",
    },
  },
  openaiServer: {
    error: {
      message: "The server had an error while processing your request.",
      type: "server_error",
      param: null,
      code: null,
    },
  },
  openaiContextOverflow: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  },
  openaiResponsesContextOverflow: {
    error: {
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
    },
  },
  openaiReasoningRejected: {
    error: {
      message: "Unsupported value: 'reasoning_effort' does not support 'high' with this model.",
      type: "invalid_request_error",
      param: "reasoning_effort",
      code: "unsupported_value",
    },
  },
  anthropicAuth: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
  anthropicRateLimit: {
    type: "error",
    error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" },
  },
  anthropicServer: { type: "error", error: { type: "api_error", message: "Internal server error" } },
  anthropicOverloaded: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  anthropicContextOverflow: {
    type: "error",
    error: { type: "invalid_request_error", message: "prompt is too long: 213462 tokens > 200000 maximum" },
  },
  geminiAuth: {
    error: {
      code: 400,
      message: "API key not valid. Please pass a valid API key.",
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
    },
  },
  geminiUnauthenticated: {
    error: {
      code: 401,
      message: "Request had invalid authentication credentials.",
      status: "UNAUTHENTICATED",
    },
  },
  geminiRateLimit: {
    error: {
      code: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "17s" }],
    },
  },
  geminiServer: { error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } },
  geminiOverloaded: {
    error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" },
  },
  geminiContextOverflow: {
    error: {
      code: 400,
      message: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
      status: "INVALID_ARGUMENT",
    },
  },
};
