/**
 * Test harness of the HTTP API: a real gateway process with `/v1/*` enabled, a token, and a scripted loopback
 * OpenAI-compatible provider behind it (its model accepts images). The provider reads directives from the last
 * user message:
 *   [slow:N:MS]  N text deltas, MS apart      [hang]  two deltas, then nothing until the client leaves
 *   [cut]        two deltas, then the connection is cut (the run fails mid-stream)
 *   [big:N:SIZE] N text deltas of SIZE characters each, as fast as the socket takes them (gateway-harness' bigDelta)
 *   [length]     "cut short", ended by the output limit (finish_reason "length")
 *   otherwise    "echo: <message>" in three deltas
 * Every reply reports usage 23 in / 7 out, so tests can tell the run's real usage from a made-up one.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { type MockReply, type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { bigDelta, type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";

export const TOKEN = "http-test-token";
export const USAGE = { input: 23, output: 7 };

/** The text of a provider message's content (string or parts). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? "").join("");
  return "";
}

type ProviderMessage = { role: string; content: unknown };

export function lastUserText(body: unknown): string {
  const messages = (body as { messages?: ProviderMessage[] })?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return textOf(messages[i]?.content);
  return "";
}

/** The reply the provider gives to `text`. */
export function scriptedReply(text: string): MockReply {
  const slow = /\[slow:(\d+):(\d+)\]/.exec(text);
  if (slow) {
    const n = Number(slow[1]);
    return {
      events: openaiChatEvents({ text: Array.from({ length: n }, (_, i) => `d${i} `), usage: USAGE }),
      delayMs: Number(slow[2]),
    };
  }
  const big = /\[big:(\d+):(\d+)\]/.exec(text);
  if (big) {
    const size = Number(big[2]);
    const text = Array.from({ length: Number(big[1]) }, (_, i) => bigDelta(i, size));
    return { events: openaiChatEvents({ text, usage: USAGE }) };
  }
  if (text.includes("[hang]"))
    return { events: openaiChatEvents({ text: ["hang", "ing", "x"], usage: USAGE }), hangAfter: 3 };
  if (text.includes("[length]")) {
    return { events: openaiChatEvents({ text: ["cut ", "short"], finish: "length", usage: USAGE }) };
  }
  if (text.includes("[cut]"))
    return { events: openaiChatEvents({ text: ["par", "tial", "x"], usage: USAGE }), cutAfter: 3 };
  const reply = `echo: ${text}`;
  const third = Math.ceil(reply.length / 3);
  return {
    events: openaiChatEvents({
      text: [reply.slice(0, third), reply.slice(third, 2 * third), reply.slice(2 * third)],
      usage: USAGE,
    }),
  };
}

export interface HttpGateway {
  gw: GatewayProc;
  mock: MockServer;
  /** `http://127.0.0.1:PORT/v1` */
  baseURL: string;
  /** The official SDK, pointed at the gateway with its token; no retries (a test sees each answer). */
  openai: OpenAI;
  /** Provider requests whose last user message contains `marker`. */
  requestsFor(marker: string): { body: { messages: ProviderMessage[] } }[];
  stop(): Promise<void>;
}

/** Starts the provider and a gateway with both endpoints on (unless `config` says otherwise). */
export async function startHttpGateway(config: Record<string, unknown> = {}, withToken = true): Promise<HttpGateway> {
  const mock = await startOpenAIMock((req) => scriptedReply(lastUserText(req.body)));
  const gateway = (config.gateway as Record<string, unknown> | undefined) ?? {};
  const home = makeHome({
    config: {
      ...config,
      gateway: {
        ...(withToken ? { auth: { token: TOKEN } } : {}),
        http: { endpoints: { chatCompletions: { enabled: true }, responses: { enabled: true } } },
        ...gateway,
      },
    },
  });
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({
      providers: {
        mock: {
          baseUrl: mock.baseUrl,
          api: "openai-completions",
          apiKey: "test-key",
          models: [{ id: "mock-1", input: ["text", "image"] }, { id: "mock-2" }],
        },
      },
    }),
  );
  const gw = await spawnGateway(home);
  const baseURL = `http://127.0.0.1:${gw.port}/v1`;
  return {
    gw,
    mock,
    baseURL,
    openai: new OpenAI({ baseURL, apiKey: TOKEN, maxRetries: 0, timeout: 60_000 }),
    requestsFor: (marker) =>
      mock.requests.filter((r) => lastUserText(r.body).includes(marker)) as { body: { messages: ProviderMessage[] } }[],
    stop: async () => {
      await gw.stop();
      await mock.close();
      removeHome(home);
    },
  };
}

/** A raw request (for what the SDK cannot send: bad bodies, missing auth). */
export async function rawFetch(
  baseURL: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  headers: Headers;
  json: { error?: { message: string; type: string; code: string | null; param?: string | null } } & Record<
    string,
    unknown
  >;
}> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? TOKEN}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${baseURL}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : {} };
}
