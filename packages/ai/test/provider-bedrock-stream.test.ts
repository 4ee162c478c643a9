/**
 * Bedrock ConverseStream responses beyond the shared conformance suite: every stop reason, exception frames
 * inside a 200 stream, frames with a broken CRC, a body that ends mid-frame, cache usage and cost, redacted
 * reasoning, and real recorded streams replayed as eventstream frames.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../src/classify-error.js";
import { isContextOverflow } from "../src/overflow.js";
import { streamBedrock } from "../src/providers/amazon-bedrock.js";
import type { Api, Model, StreamOptions } from "../src/types.js";
import { encodeFrame, eventFrame } from "./helpers/aws-eventstream.js";
import { bedrockEvents } from "./helpers/bedrock-events.js";
import {
  type BedrockEvent,
  type BedrockMockServer,
  type BedrockReply,
  startBedrockMock,
} from "./helpers/bedrock-mock.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { CONTEXT } from "./helpers/provider-conformance.js";

const FIXTURES = new URL("./fixtures/bedrock/", import.meta.url);
const auth = { mode: "bearer", token: "k" } as const;
const opts: StreamOptions = { apiKey: "k" };

let server: BedrockMockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(replies: BedrockReply[], overrides: Partial<Model<Api>> = {}): Promise<Model<Api>> {
  server = await startBedrockMock(replies, auth);
  return testModel("bedrock-converse-stream", { provider: "amazon-bedrock", baseUrl: server.baseUrl, ...overrides });
}

describe("bedrock stop reasons", () => {
  const done: [string, string][] = [
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
  ];
  for (const [wire, reason] of done) {
    it(`maps ${wire} to ${reason}`, async () => {
      const model = await start([{ events: bedrockEvents({ text: ["ok"] }, { stopReason: wire }) }]);
      const { result, terminal } = await collect(streamBedrock(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "done", reason });
      expect(textOfMessage(result)).toBe("ok");
    });
  }

  it("maps tool_use to toolUse", async () => {
    const model = await start([
      {
        events: bedrockEvents({
          toolCalls: [{ id: "tooluse_1", name: "read", args: ['{"path":"a"}'] }],
          finish: "tool",
        }),
      },
    ]);
    const { result } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(result.stopReason).toBe("toolUse");
    expect(result.content[0]).toMatchObject({ type: "toolCall", id: "tooluse_1", arguments: { path: "a" } });
  });

  const failed: [string, RegExp][] = [
    ["guardrail_intervened", /guardrail_intervened: a Bedrock guardrail blocked/],
    ["content_filtered", /content_filtered/],
    ["malformed_model_output", /malformed_model_output/],
    ["malformed_tool_use", /malformed_tool_use/],
    ["model_context_window_exceeded", /model_context_window_exceeded/],
    ["some_future_reason", /some_future_reason: unexpected Bedrock stop reason/],
  ];
  for (const [wire, message] of failed) {
    it(`ends ${wire} with an error event that names it, keeping the text`, async () => {
      const model = await start([{ events: bedrockEvents({ text: ["part"] }, { stopReason: wire }) }]);
      const { result, terminal } = await collect(streamBedrock(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "error", reason: "error" });
      expect(result.errorMessage).toMatch(message);
      expect(textOfMessage(result)).toBe("part");
    });
  }

  it("reports a context window filled while generating as context overflow (the agent compacts)", async () => {
    const model = await start([
      { events: bedrockEvents({ text: ["x"] }, { stopReason: "model_context_window_exceeded" }) },
    ]);
    const { result } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(isContextOverflow(result)).toBe(true);
  });

  it("ends with an error when the stream closes cleanly without messageStop", async () => {
    const events = bedrockEvents({ text: ["half"] }).filter((e) => e.event !== "messageStop");
    const model = await start([{ events }]);
    const { result } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(/no messageStop/);
  });
});

describe("bedrock exception frames and broken framing", () => {
  const exceptions: [string, string, RegExp, string][] = [
    [
      "throttlingException",
      "Too many tokens, please wait before trying again.",
      /^ThrottlingException: Too many tokens/,
      "rate_limit",
    ],
    [
      "validationException",
      "Input is too long for requested model.",
      /^ValidationException: Input is too long/,
      "context_overflow",
    ],
    [
      "serviceUnavailableException",
      "Bedrock is unable to process your request.",
      /^ServiceUnavailableException/,
      "overloaded",
    ],
    ["internalServerException", "The server encountered an internal error.", /^InternalServerException/, "overloaded"],
  ];
  for (const [type, text, message, cls] of exceptions) {
    it(`turns an in-stream ${type} into an error event (${cls}), keeping the text before it`, async () => {
      const events = bedrockEvents({ text: ["Hel", "lo"], usage: { input: 1, output: 1 } });
      events.splice(2, 0, { event: type, exception: true, data: { message: text } });
      const model = await start([{ events }]);
      const { result, terminal } = await collect(streamBedrock(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "error", reason: "error" });
      expect(result.errorMessage).toMatch(message);
      expect(result.errorStatus).toBeUndefined(); // the HTTP status was 200
      expect(textOfMessage(result)).toBe("Hel");
      expect(classifyError(result).class).toBe(cls);
    });
  }

  for (const part of ["prelude", "message"] as const) {
    it(`rejects a frame whose ${part} CRC is wrong, keeping what came before`, async () => {
      const events = bedrockEvents({ text: ["Good ", "bad"], usage: { input: 1, output: 1 } });
      (events[2] as BedrockEvent).corrupt = part;
      const model = await start([{ events }]);
      const { result, terminal } = await collect(streamBedrock(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "error", reason: "error" });
      expect(result.errorMessage).toMatch(/checksum/i);
      expect(textOfMessage(result)).toBe("Good ");
    });
  }

  it("ends with an error when the body ends in the middle of a frame", async () => {
    const frames = bedrockEvents({ text: ["Only ", "this"] }).map((e) => encodeFrame(eventFrame(e.event, e.data)));
    const body = Buffer.concat([frames[0]!, frames[1]!, frames[2]!.subarray(0, 20)]);
    const model = await start([{ body }]);
    const { result, terminal } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(terminal).toMatchObject({ type: "error", reason: "error" });
    expect(result.errorMessage).toMatch(/Connection closed before the stream finished: 20 bytes of an unfinished/);
    expect(textOfMessage(result)).toBe("Only ");
    expect(classifyError(result)).toMatchObject({ class: "network", retryable: true });
  });

  it("replays a recorded modelStreamErrorException frame (vercel/ai fixture) as an error event", async () => {
    const body = Buffer.from(
      readFileSync(new URL("model-stream-error-exception.eventstream.base64.txt", FIXTURES), "utf8").trim(),
      "base64",
    );
    const model = await start([{ body }]);
    const { result, types } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(types).toEqual(["error"]);
    expect(result.errorMessage).toBe(
      "ModelStreamErrorException: Model Stream Error (model said 500 The model stream failed.)",
    );
  });
});

describe("bedrock timeouts", () => {
  it("ends a stream that stalls past timeoutMs with a timeout error, keeping the text", async () => {
    const model = await start([{ events: bedrockEvents({ text: ["slow ", "never"] }), hangAfter: 2 }]);
    const { result, terminal } = await collect(streamBedrock(model, CONTEXT, { ...opts, timeoutMs: 300 }));
    expect(terminal).toMatchObject({ type: "error", reason: "error" });
    expect(textOfMessage(result)).toBe("slow ");
    expect(classifyError(result).class).toBe("timeout");
  });
});

describe("bedrock usage, reasoning and recorded streams", () => {
  it("reads cache read and write tokens from metadata and prices them", async () => {
    const model = await start([
      {
        events: bedrockEvents({ text: ["ok"], usage: { input: 1000, output: 200, cacheRead: 5000, cacheWrite: 3000 } }),
      },
    ]);
    const { result } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(result.usage).toMatchObject({
      input: 1000,
      output: 200,
      cacheRead: 5000,
      cacheWrite: 3000,
      totalTokens: 9200,
    });
    // testModel prices: $3 in, $15 out, $0.3 cache read, $3.75 cache write per million.
    expect(result.usage.cost.total).toBeCloseTo((1000 * 3 + 200 * 15 + 5000 * 0.3 + 3000 * 3.75) / 1e6, 12);
  });

  it("keeps redacted reasoning as a redacted thinking block whose signature is the encrypted bytes", async () => {
    const secret = Buffer.from("encrypted-reasoning-bytes");
    const events: BedrockEvent[] = [
      { event: "messageStart", data: { role: "assistant" } },
      {
        event: "contentBlockDelta",
        data: { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: secret.toString("base64") } } },
      },
      { event: "contentBlockStop", data: { contentBlockIndex: 0 } },
      { event: "contentBlockDelta", data: { contentBlockIndex: 1, delta: { text: "ok" } } },
      { event: "contentBlockStop", data: { contentBlockIndex: 1 } },
      { event: "messageStop", data: { stopReason: "end_turn" } },
    ];
    const model = await start([{ events }]);
    const { result } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(result.content[0]).toMatchObject({
      type: "thinking",
      redacted: true,
      thinkingSignature: secret.toString("base64"),
    });
    expect(textOfMessage(result)).toBe("ok");
  });

  it("replays a recorded Claude reasoning stream (vercel/ai fixture): thinking with its signature, then text", async () => {
    const lines = readFileSync(new URL("claude-reasoning.chunks.jsonl", FIXTURES), "utf8").trim().split("\n");
    const events: BedrockEvent[] = lines.map((line) => {
      const [[event, data]] = Object.entries(JSON.parse(line) as Record<string, unknown>) as [[string, unknown]];
      return { event, data };
    });
    const model = await start([{ events }], { id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" });
    const { result, types } = await collect(streamBedrock(model, CONTEXT, opts));
    expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));
    const thinking = result.content[0];
    expect(thinking).toMatchObject({ type: "thinking" });
    expect(thinking?.type === "thinking" && thinking.thinking).toContain("So there are 3 r's.");
    expect(thinking?.type === "thinking" && thinking.thinkingSignature).toMatch(/^Ep0CCkgICxAB.*GAE=$/);
    expect(textOfMessage(result)).toBe('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y');
    expect(result.stopReason).toBe("stop");
    expect(result.usage).toMatchObject({ input: 51, output: 94, totalTokens: 145 });
  });
});
