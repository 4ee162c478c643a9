/**
 * While a provider streams, its text and thinking blocks keep the deltas as pieces (StreamedField) instead of a
 * rope node per delta; what a reader of the partial message sees must not change. From a loopback vendor server, at
 * every delta: the block's `text` / `thinking` is an own enumerable string holding every delta so far; the finished
 * message equals pi-ai's from the same server and its blocks are plain data properties; and a reader who looks
 * only at the end gets the same text as one who read at every event.
 */
import * as pi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropic } from "../src/providers/anthropic.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import type {
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStreamLike,
  Context,
  Model,
} from "../src/types.js";
import { testModel } from "./helpers/collect.js";
import { type MockServer, type SseEvent, startAnthropicMock, startOpenAIMock } from "./helpers/mock-server.js";
import { anthropicEvents, openaiChatEvents, type TurnScript } from "./helpers/vendor-events.js";

type Stream = (model: Model<Api>, context: Context, options: { apiKey: string }) => AssistantMessageEventStreamLike;

const CONTEXT: Context = { messages: [{ role: "user", content: "hi", timestamp: 0 }] };

// 700 text deltas cross the pieces' fixed blocks (256 each); a few are whitespace or multi-byte.
const TURN: TurnScript = {
  thinking: Array.from({ length: 300 }, (_, i) => `think ${i}; `),
  text: Array.from({ length: 700 }, (_, i) => (i % 50 === 0 ? "\n\n" : i % 7 === 0 ? `é${i} ` : `w${i} `)),
  toolCalls: [{ id: "call_1", name: "read", args: ['{"pa', 'th":"a.txt"}'] }],
  finish: "tool",
  usage: { input: 10, output: 20 },
};

const suites: { api: Api; start: typeof startOpenAIMock; events: SseEvent[]; tiller: Stream; pi: Stream }[] = [
  {
    api: "openai-completions",
    start: startOpenAIMock,
    events: openaiChatEvents(TURN),
    tiller: streamOpenAICompletions as Stream,
    pi: pi.streamOpenAICompletions as unknown as Stream,
  },
  {
    api: "anthropic-messages",
    start: startAnthropicMock,
    events: anthropicEvents(TURN),
    tiller: streamAnthropic as Stream,
    pi: pi.streamAnthropic as unknown as Stream,
  },
];

/**
 * Reads the stream as a consumer does, at every event, taking the events already queued with each one
 * (`drainQueued`), so every event the provider pushed so far is known when the block is read: then its streamed
 * field must be an own enumerable string equal to all its deltas so far, as `+=` would have made it.
 */
async function readEveryEvent(
  stream: AssistantMessageEventStreamLike,
): Promise<{ reads: number; final: AssistantMessage }> {
  const sofar = new Map<string, string>();
  let reads = 0;
  const drain = (stream as { drainQueued?: () => AssistantMessageEvent[] }).drainQueued;
  for await (const first of stream) {
    const batch = [first, ...(drain?.call(stream) ?? [])];
    for (const e of batch) {
      if (e.type !== "text_delta" && e.type !== "thinking_delta") continue;
      const id = `${e.contentIndex}:${e.type}`;
      sofar.set(id, (sofar.get(id) ?? "") + e.delta);
    }
    for (const e of batch) {
      if (e.type !== "text_delta" && e.type !== "thinking_delta") continue;
      const key = e.type === "text_delta" ? "text" : "thinking";
      const block = e.partial.content[e.contentIndex] as unknown as Record<string, unknown>;
      const desc = Object.getOwnPropertyDescriptor(block, key);
      expect(desc?.enumerable).toBe(true);
      expect(Object.keys(block)).toContain(key);
      expect(typeof block[key]).toBe("string");
      expect(block[key]).toBe(sofar.get(`${e.contentIndex}:${e.type}`));
      reads++;
    }
  }
  return { reads, final: await stream.result() };
}

function streamedBlocks(m: AssistantMessage): { type: string; value: string }[] {
  return m.content.flatMap((b) =>
    b.type === "text"
      ? [{ type: "text", value: b.text }]
      : b.type === "thinking"
        ? [{ type: "thinking", value: b.thinking }]
        : [],
  );
}

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a streamed block's text reads as with += at every event", () => {
  for (const suite of suites) {
    it(suite.api, async () => {
      server = await suite.start(() => ({ events: suite.events }));
      const model = testModel(suite.api, { baseUrl: server.baseUrl });
      const ours = await readEveryEvent(suite.tiller(model, CONTEXT, { apiKey: "k" }));
      const theirs = { final: await suite.pi(model, CONTEXT, { apiKey: "k" }).result() };

      expect(ours.reads).toBe(1000);
      expect(streamedBlocks(ours.final)).toEqual(streamedBlocks(theirs.final));
      expect(streamedBlocks(ours.final).find((b) => b.type === "text")?.value).toBe(TURN.text?.join(""));
      // The finished message holds plain data properties, as pi's does.
      for (const b of ours.final.content) {
        const key = b.type === "text" ? "text" : b.type === "thinking" ? "thinking" : undefined;
        if (!key) continue;
        const desc = Object.getOwnPropertyDescriptor(b, key);
        expect(desc && "value" in desc && desc.writable && desc.enumerable).toBe(true);
      }
      expect(JSON.parse(JSON.stringify(ours.final.content))).toEqual(JSON.parse(JSON.stringify(theirs.final.content)));

      // Read only at the end: the same text, whole.
      const atEnd = await suite.tiller(model, CONTEXT, { apiKey: "k" }).result();
      expect(streamedBlocks(atEnd)).toEqual(streamedBlocks(ours.final));
    });
  }

  it("an aborted stream keeps what arrived, as plain properties", async () => {
    server = await startOpenAIMock(() => ({
      events: openaiChatEvents({ text: ["one ", "two ", "three"] }),
      hangAfter: 3,
    }));
    const model = testModel("openai-completions", { baseUrl: server.baseUrl });
    const controller = new AbortController();
    const stream = streamOpenAICompletions(model as Model<"openai-completions">, CONTEXT, {
      apiKey: "k",
      signal: controller.signal,
    });
    for await (const e of stream) {
      if (e.type === "text_delta" && e.delta === "two ") controller.abort();
    }
    const final = await stream.result();
    expect(final.stopReason).toBe("aborted");
    const block = final.content[0] as { text: string };
    expect(block.text).toBe("one two ");
    const desc = Object.getOwnPropertyDescriptor(block, "text");
    expect(desc && "value" in desc).toBe(true);
  });
});
