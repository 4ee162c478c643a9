/**
 * Bedrock ConverseStream event sequences from the neutral turn description, in the order and JSON shapes the
 * service sends (AWS API reference, ConverseStream response): messageStart, per block contentBlockDelta
 * (text / reasoningContent / toolUse, tool blocks opened by contentBlockStart) and contentBlockStop, then
 * messageStop and a trailing metadata event with usage. Real payloads carry a random `p` padding field.
 */
import type { BedrockEvent } from "./bedrock-mock.js";
import type { TurnScript } from "./vendor-events.js";

const pad = (n: number) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".slice(0, 4 + (n % 30));

export function bedrockEvents(t: TurnScript, opts: { stopReason?: string } = {}): BedrockEvent[] {
  let n = 0;
  const ev = (event: string, data: Record<string, unknown>): BedrockEvent => ({
    event,
    data: { ...data, p: pad(n++) },
  });
  const events: BedrockEvent[] = [ev("messageStart", { role: "assistant" })];
  let index = 0;
  if (t.thinking) {
    for (const d of t.thinking) {
      events.push(ev("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: { text: d } } }));
    }
    if (t.signature) {
      events.push(
        ev("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: { signature: t.signature } } }),
      );
    }
    events.push(ev("contentBlockStop", { contentBlockIndex: index++ }));
  }
  if (t.text) {
    for (const d of t.text) events.push(ev("contentBlockDelta", { contentBlockIndex: index, delta: { text: d } }));
    events.push(ev("contentBlockStop", { contentBlockIndex: index++ }));
  }
  for (const call of t.toolCalls ?? []) {
    events.push(
      ev("contentBlockStart", {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: call.id, name: call.name } },
      }),
    );
    for (const a of call.args) {
      events.push(ev("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: a } } }));
    }
    events.push(ev("contentBlockStop", { contentBlockIndex: index++ }));
  }
  const stopReason =
    opts.stopReason ?? (t.finish === "length" ? "max_tokens" : t.finish === "tool" ? "tool_use" : "end_turn");
  events.push(ev("messageStop", { stopReason }));
  if (t.usage) {
    const cacheRead = t.usage.cacheRead ?? 0;
    const cacheWrite = t.usage.cacheWrite ?? 0;
    events.push(
      ev("metadata", {
        usage: {
          inputTokens: t.usage.input,
          outputTokens: t.usage.output,
          totalTokens: t.usage.input + t.usage.output + cacheRead + cacheWrite,
          ...(cacheRead ? { cacheReadInputTokens: cacheRead } : {}),
          ...(cacheWrite ? { cacheWriteInputTokens: cacheWrite } : {}),
        },
        metrics: { latencyMs: 412 },
      }),
    );
  }
  return events;
}

/** Bedrock's HTTP error bodies (`x-amzn-errortype` names the exception; the body has the message). */
export const bedrockErrors = {
  auth: {
    status: 403,
    headers: {
      "x-amzn-errortype": "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/",
    },
    json: { message: "The security token included in the request is invalid." },
  },
  accessDenied: {
    status: 403,
    headers: { "x-amzn-errortype": "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/" },
    json: { message: "You don't have access to the model with the specified model ID." },
  },
  throttling: {
    status: 429,
    headers: { "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
    json: { message: "Too many requests, please wait before trying again." },
  },
  server: {
    status: 500,
    headers: { "x-amzn-errortype": "InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
    json: { message: "The server encountered an error processing your request." },
  },
  unavailable: {
    status: 503,
    headers: { "x-amzn-errortype": "ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
    json: { message: "Bedrock is unable to process your request." },
  },
  tooLong: {
    status: 400,
    headers: { "x-amzn-errortype": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
    json: { message: "Input is too long for requested model." },
  },
};
