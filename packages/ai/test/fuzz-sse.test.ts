/**
 * Fuzzing each provider's SSE parsing through a real loopback HTTP server: a valid vendor stream is split
 * into random chunks (cutting lines, events and multi-byte characters anywhere), and sometimes corrupted
 * (truncated, bytes overwritten, garbage lines inserted, socket destroyed). Whatever arrives, the provider's
 * stream must end with exactly one terminal event, within a bounded time, with no unhandled rejection; an
 * uncorrupted stream must give the same text however it is chunked.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamSimpleAnthropic } from "../src/providers/anthropic.js";
import { streamSimpleGoogle } from "../src/providers/google.js";
import { streamSimpleOpenAICompletions } from "../src/providers/openai-completions.js";
import { streamSimpleOpenAIResponses } from "../src/providers/openai-responses.js";
import type {
  Api,
  AssistantMessageEvent,
  AssistantMessageEventStreamLike,
  Context,
  Model,
  SimpleStreamOptions,
} from "../src/types.js";
import { assertWellFormed, testModel } from "./helpers/collect.js";
import { encodeSse, type SseEvent } from "./helpers/mock-server.js";
import {
  anthropicEvents,
  geminiEvents,
  openaiChatEvents,
  openaiResponsesEvents,
  type TurnScript,
} from "./helpers/vendor-events.js";

interface Plan {
  body: Buffer;
  /** Byte lengths of the writes; the rest of the body goes in one last write. */
  chunks: number[];
  /** Destroy the socket after writing instead of ending the response. */
  destroy: boolean;
}

let server: http.Server;
let url = "";
let next: Plan | undefined;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const plan = next;
      if (!plan) {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      void (async () => {
        let at = 0;
        for (const n of plan.chunks) {
          if (at >= plan.body.length) break;
          res.write(plan.body.subarray(at, at + n));
          at += n;
          await new Promise((r) => setImmediate(r));
        }
        if (at < plan.body.length) res.write(plan.body.subarray(at));
        if (plan.destroy) res.socket?.destroy();
        else res.end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const CONTEXT: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
const TURN: TurnScript = {
  thinking: ["let me ", "think"],
  signature: "sig-123",
  text: ["Héllo ", "wörld ", "— ✓ ", "done"],
  usage: { input: 12, output: 7 },
};
const TEXT = (TURN.text ?? []).join("");

interface ProviderCase {
  name: string;
  model: () => Model<Api>;
  events: SseEvent[];
  stream: (m: Model<Api>, c: Context, o?: SimpleStreamOptions) => AssistantMessageEventStreamLike;
}

const providers: ProviderCase[] = [
  {
    name: "openai-completions",
    model: () => testModel("openai-completions", { provider: "openai", baseUrl: `${url}/v1` }) as Model<Api>,
    events: openaiChatEvents(TURN),
    stream: streamSimpleOpenAICompletions as ProviderCase["stream"],
  },
  {
    name: "openai-responses",
    model: () => testModel("openai-responses", { provider: "openai", baseUrl: `${url}/v1` }) as Model<Api>,
    events: openaiResponsesEvents(TURN),
    stream: streamSimpleOpenAIResponses as ProviderCase["stream"],
  },
  {
    name: "anthropic-messages",
    model: () => testModel("anthropic-messages", { provider: "anthropic", baseUrl: url }) as Model<Api>,
    events: anthropicEvents(TURN),
    stream: streamSimpleAnthropic as ProviderCase["stream"],
  },
  {
    name: "google-generative-ai",
    model: () => testModel("google-generative-ai", { provider: "google", baseUrl: url }) as Model<Api>,
    events: geminiEvents(TURN),
    stream: streamSimpleGoogle as ProviderCase["stream"],
  },
];

type Corruption =
  | { kind: "none" }
  | { kind: "truncate"; at: number; destroy: boolean }
  | { kind: "overwrite"; at: number; bytes: number[] }
  | { kind: "insert"; line: number; text: string };

const corruptionArb: fc.Arbitrary<Corruption> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Corruption>({ kind: "none" }) },
  fc.record({
    kind: fc.constant("truncate" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    destroy: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("overwrite" as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant("insert" as const),
    line: fc.nat(40),
    text: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom("data: {", "data: [DONE]", "event: error", 'data: {"type":"nope"}', ": ping", "data: null"),
    ),
  }),
);

function applyCorruption(body: string, c: Corruption): { body: Buffer; destroy: boolean } {
  const buf = Buffer.from(body, "utf8");
  switch (c.kind) {
    case "none":
      return { body: buf, destroy: false };
    case "truncate":
      return { body: buf.subarray(0, Math.floor(c.at * buf.length)), destroy: c.destroy };
    case "overwrite": {
      const out = Buffer.from(buf);
      const at = Math.floor(c.at * Math.max(out.length - c.bytes.length, 0));
      c.bytes.forEach((b, i) => {
        if (at + i < out.length) out[at + i] = b;
      });
      return { body: out, destroy: false };
    }
    case "insert": {
      const lines = body.split("\n");
      lines.splice(Math.min(c.line, lines.length), 0, c.text);
      return { body: Buffer.from(lines.join("\n"), "utf8"), destroy: false };
    }
  }
}

const DEADLINE_MS = 5000;

describe.each(providers)("$name SSE under random chunking and corruption", (p) => {
  it("always ends with exactly one terminal event; uncorrupted streams give the same text", async () => {
    const body = p.events.map(encodeSse).join("");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 40 }),
        corruptionArb,
        async (chunks, corruption) => {
          const { body: bytes, destroy } = applyCorruption(body, corruption);
          next = { body: bytes, chunks, destroy };
          const stream = p.stream(p.model(), CONTEXT, { apiKey: "k", timeoutMs: DEADLINE_MS });
          const events: AssistantMessageEvent[] = [];
          const drained = (async () => {
            for await (const e of stream) events.push(e);
            return stream.result();
          })();
          let timer: NodeJS.Timeout | undefined;
          const deadline = new Promise<"hang">((r) => {
            timer = setTimeout(() => r("hang"), DEADLINE_MS + 1000);
          });
          const result = await Promise.race([drained, deadline]);
          clearTimeout(timer);
          expect(result, `stream hung (${corruption.kind})`).not.toBe("hang");
          assertWellFormed(events);
          const terminal = events.at(-1);
          if (terminal?.type === "error") {
            const msg = terminal.error.errorMessage;
            expect(typeof msg === "string" && msg.length > 0, "an error names what went wrong").toBe(true);
          }
          if (corruption.kind === "none") {
            expect(terminal?.type).toBe("done");
            const message = await stream.result();
            const text = message.content
              .filter((c) => c.type === "text")
              .map((c) => (c as { text: string }).text)
              .join("");
            expect(text).toBe(TEXT);
          }
        },
      ),
      { numRuns: 40, seed: 4242 },
    );
    expect(unhandled).toEqual([]);
  }, 60_000);
});
