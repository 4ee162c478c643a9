/**
 * The recorded vendor streams replayed through Tiller's providers and pi-ai's, side by side against the same
 * loopback server: both must end the same way and build the same content (texts, thinking, tool calls).
 * Usage and error wording are left out: those are where Tiller deliberately differs (see the README).
 */
import * as pi from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { streamAnthropic } from "../src/providers/anthropic.js";
import { streamGoogle } from "../src/providers/google.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import type { Api, AssistantMessage, AssistantMessageEventStreamLike, Context, Model } from "../src/types.js";
import { collect, testModel } from "./helpers/collect.js";
import { type MockServer, startAnthropicMock, startGeminiMock, startOpenAIMock } from "./helpers/mock-server.js";
import { CONTEXT } from "./helpers/provider-conformance.js";
import { type Recording, recordedEvents } from "./helpers/recorded-streams.js";
import {
  anthropicRecordings,
  googleRecordings,
  openaiCompletionsRecordings,
  openaiResponsesRecordings,
} from "./helpers/recordings.js";

type Stream = (model: Model<Api>, context: Context, options: { apiKey: string }) => AssistantMessageEventStreamLike;

const suites: { api: Api; start: typeof startOpenAIMock; tiller: Stream; pi: Stream; recordings: Recording[] }[] = [
  {
    api: "anthropic-messages",
    start: startAnthropicMock,
    tiller: streamAnthropic,
    pi: pi.streamAnthropic as unknown as Stream,
    recordings: anthropicRecordings,
  },
  {
    api: "openai-responses",
    start: startOpenAIMock,
    tiller: streamOpenAIResponses,
    pi: pi.streamOpenAIResponses as unknown as Stream,
    recordings: openaiResponsesRecordings,
  },
  {
    api: "openai-completions",
    start: startOpenAIMock,
    tiller: streamOpenAICompletions,
    pi: pi.streamOpenAICompletions as unknown as Stream,
    recordings: openaiCompletionsRecordings,
  },
  {
    api: "google-generative-ai",
    start: startGeminiMock,
    tiller: streamGoogle,
    pi: pi.streamGoogle as unknown as Stream,
    recordings: googleRecordings,
  },
];

/** What a user of either library reads from the reply. Tool-call ids are compared only when the vendor sent one. */
function visible(m: AssistantMessage) {
  return {
    stopReason: m.stopReason,
    // pi keeps the empty text block Gemini's last chunk (`{"text": ""}`) opens; Tiller drops empty deltas.
    content: m.content
      .filter((b) => b.type !== "text" || b.text !== "")
      .map((b) =>
        b.type === "text"
          ? { type: "text", text: b.text }
          : b.type === "thinking"
            ? { type: "thinking", thinking: b.thinking }
            : { type: "toolCall", name: b.name, arguments: b.arguments },
      ),
  };
}

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("recorded streams: Tiller and pi-ai agree", () => {
  for (const suite of suites) {
    for (const recording of suite.recordings) {
      it(`${recording.file}`, async () => {
        server = await suite.start(() => ({ events: recordedEvents(recording) }));
        const model = testModel(suite.api, { id: recording.model, provider: "test", baseUrl: server.baseUrl });
        const ours = await collect(suite.tiller(model, CONTEXT, { apiKey: "k" }));
        const theirs = await suite.pi(model, CONTEXT, { apiKey: "k" }).result();
        expect(visible(ours.result)).toEqual(visible(theirs));
      });
    }
  }
});
