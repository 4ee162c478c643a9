/**
 * The behaviour every wire provider must show against a loopback server speaking its vendor's protocol:
 * text, thinking, parallel tool calls, usage and cost, each stop reason, HTTP errors with status and
 * retry-after, a cut stream, a malformed chunk, an abort mid-stream, and a context-overflow body.
 */
import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../../src/classify-error.js";
import type {
  Api,
  AssistantMessageEventStreamLike,
  Context,
  ErrorClass,
  Model,
  SimpleStreamOptions,
  StreamOptions,
  ToolCall,
} from "../../src/types.js";
import { collect, testModel, textOfMessage } from "./collect.js";
import type { MockReply, MockScript, MockServer, SseEvent } from "./mock-server.js";
import { type Recording, recordedEvents } from "./recorded-streams.js";
import type { TurnScript } from "./vendor-events.js";

export interface ErrorCase {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
  /** Must appear in errorMessage. */
  message: RegExp;
  retryAfterMs?: number;
  /** What `classifyError` must make of the failed message (higher layers retry/rotate/compact on it). */
  class?: ErrorClass;
}

export interface ConformanceSpec {
  name: string;
  api: Api;
  provider: string;
  startMock: (script: MockScript) => Promise<MockServer>;
  events: (turn: TurnScript) => SseEvent[];
  stream: (model: Model<Api>, context: Context, options?: StreamOptions) => AssistantMessageEventStreamLike;
  streamSimple: (model: Model<Api>, context: Context, options?: SimpleStreamOptions) => AssistantMessageEventStreamLike;
  errors: {
    auth: ErrorCase;
    rateLimit: ErrorCase;
    server: ErrorCase;
    overloaded: ErrorCase;
    contextOverflow: ErrorCase;
  };
  /** A chunk whose JSON is broken, in the vendor's framing. */
  malformed: SseEvent;
  /** False when the vendor sends tool arguments whole (Gemini). */
  streamsToolArguments: boolean;
  /** Count of events before the first text delta in `events({text: [...]})`, to cut/hang after some text. */
  eventsBeforeText: (turn: TurnScript) => number;
  /** The credential to send, when the vendor needs a particular shape (a JWT for the ChatGPT Codex backend). */
  apiKey?: string;
  /** Streams recorded from the real API, replayed as they were sent (see `recorded-streams.ts`). */
  recordings?: Recording[];
}

export const CONTEXT: Context = {
  systemPrompt: "You are terse.",
  messages: [{ role: "user", content: "Read a.txt and b.txt", timestamp: 1 }],
  tools: [
    {
      name: "read",
      description: "Read a file",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, limit: { type: "number" } },
        required: ["path"],
      } as never,
    },
  ],
};

export function runConformanceSuite(spec: ConformanceSpec): void {
  describe(`${spec.name}: conformance against a loopback ${spec.name} server`, () => {
    let server: MockServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    async function start(script: MockScript): Promise<Model<Api>> {
      server = await spec.startMock(script);
      return testModel(spec.api, { provider: spec.provider, baseUrl: server.baseUrl });
    }
    const apiKey = spec.apiKey ?? "test-key";
    const opts: StreamOptions = { apiKey };

    it("streams text with start/delta/end events, usage and cost", async () => {
      const model = await start([
        { events: spec.events({ text: ["Hel", "lo", " world"], usage: { input: 100, output: 50, cacheRead: 20 } }) },
      ]);
      const { types, result } = await collect(spec.stream(model, CONTEXT, opts));
      expect(types[0]).toBe("start");
      expect(types).toContain("text_start");
      expect(types.filter((t) => t === "text_delta").length).toBeGreaterThanOrEqual(3);
      expect(types.at(-2)).toBe("text_end");
      expect(types.at(-1)).toBe("done");
      expect(textOfMessage(result)).toBe("Hello world");
      expect(result.stopReason).toBe("stop");
      expect(result.usage).toMatchObject({ input: 100, output: 50, cacheRead: 20, totalTokens: 170 });
      expect(result.usage.cost.total).toBeCloseTo((100 * 3 + 50 * 15 + 20 * 0.3) / 1e6, 12);
      expect(result.api).toBe(spec.api);
      expect(result.model).toBe("test-model");
    });

    it("streams thinking before text as a separate block", async () => {
      const model = await start([
        {
          events: spec.events({
            thinking: ["Let me ", "think."],
            signature: "sig-123",
            text: ["Answer."],
            usage: { input: 10, output: 20, reasoning: 5 },
          }),
        },
      ]);
      const { types, result } = await collect(spec.streamSimple(model, CONTEXT, { ...opts, reasoning: "medium" }));
      expect(types).toContain("thinking_delta");
      expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));
      const thinking = result.content.find((b) => b.type === "thinking");
      expect(thinking).toMatchObject({ type: "thinking", thinking: "Let me think." });
      expect(textOfMessage(result)).toBe("Answer.");
      expect(result.stopReason).toBe("stop");
    });

    it("streams several tool calls with partial arguments and stops with toolUse", async () => {
      const model = await start([
        {
          events: spec.events({
            text: ["Reading both."],
            toolCalls: [
              { id: "call_a", name: "read", args: ['{"pa', 'th": "a.t', 'xt", "limit": 1', "0}"] },
              { id: "call_b", name: "read", args: ['{"path": ', '"b.txt"}'] },
              { id: "call_c", name: "read", args: ['{"path": "c.txt"}'] },
            ],
            finish: "tool",
            usage: { input: 30, output: 40 },
          }),
          // Paced, so the consumer sees each partial before the next chunk arrives (partials are live objects).
          delayMs: 2,
        },
      ]);
      const stream = spec.stream(model, CONTEXT, opts);
      // Partial messages are live objects: snapshot the tool call at each delta.
      const snapshots: string[] = [];
      const { events, result } = await collect(stream, (e) => {
        if (e.type === "toolcall_delta") snapshots.push(JSON.stringify(e.partial.content[e.contentIndex]));
      });
      const calls = result.content.filter((b): b is ToolCall => b.type === "toolCall");
      expect(calls.map((c) => c.name)).toEqual(["read", "read", "read"]);
      expect(calls.map((c) => c.arguments)).toEqual([
        { path: "a.txt", limit: 10 },
        { path: "b.txt" },
        { path: "c.txt" },
      ]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(3);
      const ends = events.filter((e) => e.type === "toolcall_end");
      expect(ends).toHaveLength(3);
      expect(ends.map((e) => (e.type === "toolcall_end" ? e.toolCall.arguments : null))).toEqual(
        calls.map((c) => c.arguments),
      );
      if (spec.streamsToolArguments) {
        // Partial arguments are visible while the JSON streams (not only at the end).
        expect(snapshots.some((s) => s.includes('"path":"a.t"'))).toBe(true);
      }
      expect(result.stopReason).toBe("toolUse");
      expect(events.at(-1)).toMatchObject({ type: "done", reason: "toolUse" });
    });

    it("reports a max-tokens cut as stopReason length", async () => {
      const model = await start([
        { events: spec.events({ text: ["Trunc"], finish: "length", usage: { input: 5, output: 1 } }) },
      ]);
      const { result, terminal } = await collect(spec.stream(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "done", reason: "length" });
      expect(result.stopReason).toBe("length");
      expect(textOfMessage(result)).toBe("Trunc");
    });

    const errorCases: [string, keyof ConformanceSpec["errors"]][] = [
      ["401 unauthorized", "auth"],
      ["429 rate limit with retry-after", "rateLimit"],
      ["500 server error", "server"],
      ["529/503 overloaded", "overloaded"],
      ["context overflow", "contextOverflow"],
    ];
    for (const [label, key] of errorCases) {
      it(`ends with an error event on HTTP ${label}, keeping the vendor message and status`, async () => {
        const c = spec.errors[key];
        const model = await start([{ status: c.status, json: c.json, headers: c.headers } satisfies MockReply]);
        const { result, terminal, types } = await collect(spec.stream(model, CONTEXT, opts));
        expect(types).toEqual(["error"]);
        expect(terminal).toMatchObject({ type: "error", reason: "error" });
        expect(result.stopReason).toBe("error");
        expect(result.errorStatus).toBe(c.status);
        expect(result.errorMessage).toMatch(c.message);
        expect(result.errorMessage).toMatch(new RegExp(`^${c.status}\\b`));
        if (c.retryAfterMs !== undefined) expect(result.retryAfterMs).toBe(c.retryAfterMs);
        const expectedClass =
          c.class ??
          (
            {
              auth: "auth",
              rateLimit: "rate_limit",
              server: "unknown",
              overloaded: "overloaded",
              contextOverflow: "context_overflow",
            } as const
          )[key];
        if (key !== "server") expect(classifyError(result).class).toBe(expectedClass);
        expect(server?.requests).toHaveLength(1); // SDK retries are off by default
      });
    }

    it("ends with an error event, keeping the partial text, when the connection is cut mid-event", async () => {
      const turn: TurnScript = { text: ["Partial ", "answer", " never finished"], usage: { input: 1, output: 1 } };
      const model = await start([{ events: spec.events(turn), cutAfter: spec.eventsBeforeText(turn) + 2 }]);
      const { result, terminal } = await collect(spec.stream(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "error", reason: "error" });
      expect(textOfMessage(result)).toBe("Partial answer");
      expect(classifyError(result)).toMatchObject({ class: "network", retryable: true });
    });

    it("ends with an error event on a malformed JSON chunk, keeping what came before", async () => {
      const turn: TurnScript = { text: ["Good ", "start"], usage: { input: 1, output: 1 } };
      const events = spec.events(turn);
      const at = spec.eventsBeforeText(turn) + 1;
      const model = await start([{ events: [...events.slice(0, at), spec.malformed, ...events.slice(at)] }]);
      const { result, terminal } = await collect(spec.stream(model, CONTEXT, opts));
      expect(terminal).toMatchObject({ type: "error", reason: "error" });
      expect(textOfMessage(result)).toBe("Good ");
    });

    it("ends with reason aborted, keeping partial content, when the signal fires mid-stream", async () => {
      const turn: TurnScript = { text: ["Streaming ", "slowly", " forever"], usage: { input: 1, output: 1 } };
      const model = await start([{ events: spec.events(turn), hangAfter: spec.eventsBeforeText(turn) + 2 }]);
      const controller = new AbortController();
      const closed = server!.clientClosed();
      const stream = spec.stream(model, CONTEXT, { ...opts, signal: controller.signal });
      const seen: string[] = [];
      for await (const e of stream) {
        seen.push(e.type);
        if (
          e.type === "text_delta" &&
          e.partial.content.length > 0 &&
          textOfMessage(e.partial) === "Streaming slowly"
        ) {
          controller.abort();
        }
      }
      const result = await stream.result();
      expect(seen.at(-1)).toBe("error");
      expect(result.stopReason).toBe("aborted");
      expect(textOfMessage(result)).toBe("Streaming slowly");
      expect(result.usage.input).toBeGreaterThanOrEqual(0);
      await closed; // the HTTP request was really cancelled
    });

    it("ends with reason aborted without a request when the signal is already aborted", async () => {
      const model = await start([{ events: spec.events({ text: ["x"] }) }]);
      const { result, types } = await collect(spec.stream(model, CONTEXT, { ...opts, signal: AbortSignal.abort() }));
      expect(types).toEqual(["error"]);
      expect(result.stopReason).toBe("aborted");
      expect(server?.requests).toHaveLength(0);
    });

    it("sends the API key, model headers and option headers", async () => {
      const model = await start([{ events: spec.events({ text: ["ok"] }) }]);
      model.headers = { "x-model-header": "m" };
      await collect(spec.stream(model, CONTEXT, { ...opts, headers: { "x-option-header": "o" } }));
      const h = server!.requests[0]!.headers;
      expect(h["x-model-header"]).toBe("m");
      expect(h["x-option-header"]).toBe("o");
      expect(JSON.stringify(h)).toContain(apiKey);
    });

    for (const recording of spec.recordings ?? []) {
      it(`replays the stream recorded in ${recording.file} (${recording.source})`, async () => {
        server = await spec.startMock([{ events: recordedEvents(recording) }]);
        const model = testModel(spec.api, { id: recording.model, provider: spec.provider, baseUrl: server.baseUrl });
        const { result } = await collect(spec.stream(model, CONTEXT, opts));
        recording.check(result);
      });
    }

    it("calls onPayload (which may replace the body) and onResponse", async () => {
      const model = await start([{ events: spec.events({ text: ["ok"] }), headers: { "x-request-id": "req-1" } }]);
      let status = 0;
      let requestId = "";
      await collect(
        spec.stream(model, CONTEXT, {
          ...opts,
          onPayload: (p) => ({ ...(p as object), tiller_marker: 1 }),
          onResponse: (r) => {
            status = r.status;
            requestId = r.headers["x-request-id"] ?? "";
          },
        }),
      );
      expect(server!.requests[0]!.body.tiller_marker).toBe(1);
      expect(status).toBe(200);
      expect(requestId).toBe("req-1");
    });
  });
}
