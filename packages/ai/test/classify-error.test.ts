import { describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  classifyError,
  createEmptyUsage,
  parseRetryAfterHeaders,
  parseRetryAfterText,
} from "../src/index.js";

function failed(
  status: number | undefined,
  errorMessage: string,
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "openai",
    model: "gpt-5.5",
    usage: createEmptyUsage(),
    stopReason: "error",
    errorMessage,
    errorStatus: status,
    timestamp: 0,
    ...extra,
  };
}

// Bodies as the vendors send them (shortened where long).
const OPENAI_BAD_KEY = JSON.stringify({
  error: {
    message:
      "Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.",
    type: "invalid_request_error",
    param: null,
    code: "invalid_api_key",
  },
});
const OPENAI_TPM = JSON.stringify({
  error: {
    message:
      "Rate limit reached for gpt-4o in organization org-1 on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    type: "tokens",
    code: "rate_limit_exceeded",
  },
});
const OPENAI_QUOTA = JSON.stringify({
  error: {
    message: "You exceeded your current quota, please check your plan and billing details.",
    type: "insufficient_quota",
    code: "insufficient_quota",
  },
});
const OPENAI_OVERFLOW = JSON.stringify({
  error: {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
    type: "invalid_request_error",
    code: "context_length_exceeded",
  },
});
const ANTHROPIC_AUTH = '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';
const ANTHROPIC_OVERLOADED = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const ANTHROPIC_RATE =
  '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}}';
const ANTHROPIC_BILLING =
  '{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}';
const ANTHROPIC_OVERFLOW =
  '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}';
const GEMINI_BAD_KEY = JSON.stringify({
  error: {
    code: 400,
    message: "API key not valid. Please pass a valid API key.",
    status: "INVALID_ARGUMENT",
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
  },
});
const GEMINI_FREE_TIER = JSON.stringify({
  error: {
    code: 429,
    message:
      "You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\nPlease retry in 37.4s.",
    status: "RESOURCE_EXHAUSTED",
    details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }],
  },
});
const GEMINI_OVERFLOW = JSON.stringify({
  error: {
    code: 400,
    message: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).",
    status: "INVALID_ARGUMENT",
  },
});
const GEMINI_UNAVAILABLE = JSON.stringify({
  error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" },
});

describe("classifyError on vendor error bodies", () => {
  it.each([
    ["OpenAI 401 bad key", 401, OPENAI_BAD_KEY, "auth", false],
    ["OpenAI 429 tokens per minute", 429, OPENAI_TPM, "rate_limit", true],
    ["OpenAI 429 insufficient_quota", 429, OPENAI_QUOTA, "quota", false],
    ["OpenAI 400 context length", 400, OPENAI_OVERFLOW, "context_overflow", false],
    ["Anthropic 401", 401, ANTHROPIC_AUTH, "auth", false],
    ["Anthropic 529 overloaded", 529, ANTHROPIC_OVERLOADED, "overloaded", true],
    ["Anthropic 429 rate limit", 429, ANTHROPIC_RATE, "rate_limit", true],
    ["Anthropic 400 credit balance", 400, ANTHROPIC_BILLING, "billing", false],
    ["Anthropic 400 prompt too long", 400, ANTHROPIC_OVERFLOW, "context_overflow", false],
    ["Gemini 400 API key not valid", 400, GEMINI_BAD_KEY, "auth", false],
    ["Gemini 429 per-minute free tier", 429, GEMINI_FREE_TIER, "rate_limit", true],
    ["Gemini 400 input token count", 400, GEMINI_OVERFLOW, "context_overflow", false],
    ["Gemini 503 unavailable", 503, GEMINI_UNAVAILABLE, "overloaded", true],
    ["DeepSeek 402", 402, '{"error":{"message":"Insufficient Balance","type":"unknown_error"}}', "billing", false],
    [
      "OpenRouter 402",
      402,
      '{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}',
      "billing",
      false,
    ],
  ] as const)("%s → %s", (_name, status, body, expected, retryable) => {
    const byMessage = classifyError(failed(status, `${status} ${body}`));
    expect(byMessage.class).toBe(expected);
    expect(byMessage.retryable).toBe(retryable);
    expect(byMessage.status).toBe(status);
    // The same body given as plain text (status read from the leading code) classifies the same way.
    expect(classifyError(`${status} ${body}`).class).toBe(expected);
  });

  it("falls back on the HTTP status when the text says nothing specific", () => {
    expect(classifyError({ status: 401, message: "" }).class).toBe("auth");
    expect(classifyError({ status: 402 }).class).toBe("billing");
    expect(classifyError({ status: 429 }).class).toBe("rate_limit");
    expect(classifyError({ status: 529 }).class).toBe("overloaded");
    expect(classifyError({ status: 504 }).class).toBe("timeout");
    expect(classifyError({ status: 413 }).class).toBe("context_overflow");
    expect(classifyError({ status: 422, message: "nope" }).class).toBe("format");
    expect(classifyError("something odd happened")).toMatchObject({ class: "unknown", retryable: false });
  });

  it("classifies network and timeout errors thrown by fetch and SDKs", () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:11434"), { code: "ECONNREFUSED" }),
    });
    expect(classifyError(refused)).toMatchObject({ class: "network", retryable: true });
    expect(classifyError(new Error("socket hang up")).class).toBe("network");
    expect(
      classifyError(Object.assign(new Error("Request timed out."), { name: "APIConnectionTimeoutError" })).class,
    ).toBe("timeout");
    expect(classifyError(Object.assign(new Error("Connection error."), { name: "APIConnectionError" })).class).toBe(
      "network",
    );
  });

  it("reads status and headers from SDK-style errors", () => {
    const sdkError = Object.assign(new Error("429 Too Many Requests"), {
      status: 429,
      headers: new Headers({ "retry-after": "7" }),
    });
    expect(classifyError(sdkError)).toMatchObject({ class: "rate_limit", status: 429, retryAfterMs: 7000 });
    const plain = { status: 503, message: "upstream busy", headers: { "Retry-After-Ms": "250" } };
    expect(classifyError(plain)).toMatchObject({ class: "overloaded", retryAfterMs: 250 });
  });

  it("takes retryAfterMs from the message first, then headers, then text", () => {
    expect(classifyError(failed(429, "rate limited, retry after 12s", { retryAfterMs: 500 })).retryAfterMs).toBe(500);
    expect(classifyError(failed(429, "rate limited, retry after 12s")).retryAfterMs).toBe(12_000);
    expect(classifyError(failed(429, `429 ${OPENAI_TPM}`)).retryAfterMs).toBe(1400);
    expect(classifyError(failed(429, `429 ${GEMINI_FREE_TIER}`)).retryAfterMs).toBe(37_000);
    expect(classifyError(failed(401, OPENAI_BAD_KEY)).retryAfterMs).toBeUndefined();
  });

  it("an aborted message is not classified as a retryable failure", () => {
    const msg = failed(undefined, "Request was aborted.", { stopReason: "aborted" });
    expect(classifyError(msg)).toMatchObject({ class: "unknown", retryable: false });
  });
});

describe("retry-after parsing", () => {
  it("parses seconds, milliseconds, HTTP dates and vendor phrasings", () => {
    expect(parseRetryAfterHeaders({ "retry-after": "3" })).toBe(3000);
    expect(parseRetryAfterHeaders({ "retry-after-ms": "120", "retry-after": "3" })).toBe(120);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfterHeaders({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now)).toBe(30_000);
    expect(parseRetryAfterHeaders({ "retry-after": "soon" })).toBeUndefined();
    expect(parseRetryAfterText("Please try again in 1.5s.")).toBe(1500);
    expect(parseRetryAfterText("try again in 6m0s")).toBe(360_000);
    expect(parseRetryAfterText("Please try again in 20ms.")).toBe(20);
    expect(parseRetryAfterText("retry in 2 minutes")).toBe(120_000);
    expect(parseRetryAfterText("no hint here")).toBeUndefined();
  });
});
