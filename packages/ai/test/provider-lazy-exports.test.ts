/**
 * The wire APIs added for pi parity are registered as built-ins, exported under pi-ai's function names as
 * lazy wrappers (the provider module loads on first call), and their models are in the catalog.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as tiller from "../src/index.js";
import type { Api, AssistantMessageEventStreamLike, Context, Model, StreamOptions } from "../src/types.js";
import { collect, testModel, textOfMessage } from "./helpers/collect.js";
import { mistralEvents } from "./helpers/mistral-events.js";
import { type MockServer, type SseEvent, startMockServer } from "./helpers/mock-server.js";
import { geminiEvents, openaiResponsesEvents } from "./helpers/vendor-events.js";

type Fn = (model: Model<Api>, context: Context, options?: StreamOptions) => AssistantMessageEventStreamLike;

interface Case {
  api: string;
  provider: string;
  catalogId: string;
  stream: string;
  streamSimple: string;
  basePath: string;
  events: SseEvent[];
  options?: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    api: "azure-openai-responses",
    provider: "azure-openai-responses",
    catalogId: "gpt-5.4",
    stream: "streamAzureOpenAIResponses",
    streamSimple: "streamSimpleAzureOpenAIResponses",
    basePath: "/openai/v1",
    events: openaiResponsesEvents({ text: ["lazy ok"] }),
  },
  {
    api: "openai-codex-responses",
    provider: "openai-codex",
    catalogId: "gpt-5.3-codex",
    stream: "streamOpenAICodexResponses",
    streamSimple: "streamSimpleOpenAICodexResponses",
    basePath: "/backend-api",
    events: openaiResponsesEvents({ text: ["lazy ok"] }),
    options: { apiKey: jwt("acct-lazy") },
  },
  {
    api: "google-vertex",
    provider: "google-vertex",
    catalogId: "gemini-2.5-pro",
    stream: "streamGoogleVertex",
    streamSimple: "streamSimpleGoogleVertex",
    basePath: "",
    events: geminiEvents({ text: ["lazy ok"] }),
  },
  {
    api: "mistral-conversations",
    provider: "mistral",
    catalogId: "mistral-medium-3.5",
    stream: "streamMistral",
    streamSimple: "streamSimpleMistral",
    basePath: "",
    events: mistralEvents({ text: ["lazy ok"] }),
  },
];

function jwt(accountId: string): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ "https://api.openai.com/auth": { chatgpt_account_id: accountId } })}.x`;
}

const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };

describe("pi-named provider exports and built-in registration", () => {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const c of CASES) {
    it(`${c.api}: registered as a built-in, exported as ${c.stream}/${c.streamSimple}, catalogued`, async () => {
      expect(tiller.getBuiltInApis()).toContain(c.api);
      const exports = tiller as unknown as Record<string, Fn>;
      expect(typeof exports[c.stream]).toBe("function");
      expect(typeof exports[c.streamSimple]).toBe("function");
      const listed = tiller.getModel(c.provider as never, c.catalogId as never) as Model<Api> | undefined;
      expect(listed?.api).toBe(c.api);

      server = await startMockServer([{ events: c.events }, { events: c.events }, { events: c.events }], c.basePath);
      const model = testModel(c.api, { provider: c.provider, baseUrl: server.baseUrl });
      const options = { apiKey: "k", ...c.options } as StreamOptions;
      const direct = await collect(exports[c.stream]!(model, context, options));
      const simple = await collect(exports[c.streamSimple]!(model, context, options));
      const viaRegistry = await collect(tiller.stream(model, context, options as never));
      for (const run of [direct, simple, viaRegistry]) {
        expect(run.result.stopReason).toBe("stop");
        expect(run.result.api).toBe(c.api);
        expect(textOfMessage(run.result)).toMatch(/ok/);
      }
      expect(server.requests).toHaveLength(3);
    });
  }
});
