/**
 * Loopback HTTP server that answers each request with a scripted reply: a JSON error body, or a
 * Server-Sent-Events stream written with the vendor's exact framing (`event:` / `data:` lines, blank line).
 * Replies can cut the socket mid-event or hang until the client goes away, to test broken streams and aborts.
 * Shared by the provider tests, the benchmarks and other packages' tests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SseEvent {
  /** `event:` line; omitted for OpenAI chat and Gemini, which send `data:` lines only. */
  event?: string;
  /** Serialised with JSON.stringify unless it is already a string (e.g. "[DONE]" or a malformed chunk). */
  data: unknown;
}

export interface MockReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body (error replies). */
  json?: unknown;
  /** A raw body. */
  text?: string;
  /** An SSE stream. */
  events?: SseEvent[];
  /** A pre-encoded SSE body (see `encodeSse`), for benchmarks that replay one large stream many times. */
  sse?: string;
  /** After this many events, write half of the next one and destroy the socket. */
  cutAfter?: number;
  /** After this many events, stop writing and keep the connection open until the client closes it. */
  hangAfter?: number;
  /** Wait between events (ms); default none (events are written in large batches). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are inspected structurally in tests.
  body: any;
}

export type MockScript = MockReply[] | ((request: RecordedRequest, index: number) => MockReply);

export interface MockServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The base URL to give the vendor's client (`/v1` for OpenAI, the bare URL for Anthropic and Gemini). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves when a hanging reply's client disconnected. */
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

export function encodeSse(event: SseEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`;
}

export async function startMockServer(script: MockScript, basePath = ""): Promise<MockServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let closedWaiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // keep raw text
      }
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      const index = requests.length - 1;
      const reply = typeof script === "function" ? script(recorded, index) : script[index];
      if (!reply) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `mock: no reply scripted for request ${index}` } }));
        return;
      }
      void respond(reply, req, res).catch(() => res.destroy());
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function respond(reply: MockReply, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const status = reply.status ?? 200;
    if (reply.sse !== undefined) {
      res.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
      for (let i = 0; i < reply.sse.length; i += 65536) {
        if (!res.write(reply.sse.slice(i, i + 65536))) await new Promise((r) => res.once("drain", r));
      }
      res.end();
      return;
    }
    if (!reply.events) {
      const isJson = reply.json !== undefined;
      res.writeHead(status, { "content-type": isJson ? "application/json" : "text/plain", ...reply.headers });
      res.end(isJson ? JSON.stringify(reply.json) : (reply.text ?? ""));
      return;
    }
    res.writeHead(status, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...reply.headers,
    });
    const events = reply.events;
    const stopAt = Math.min(events.length, reply.cutAfter ?? Number.POSITIVE_INFINITY, reply.hangAfter ?? Infinity);
    let batch = "";
    for (let i = 0; i < stopAt; i++) {
      batch += encodeSse(events[i] as SseEvent);
      if (reply.delayMs) {
        res.write(batch);
        batch = "";
        await new Promise((r) => setTimeout(r, reply.delayMs));
      } else if (batch.length >= 65536) {
        if (!res.write(batch)) await new Promise((r) => res.once("drain", r));
        batch = "";
      }
    }
    if (batch) res.write(batch);
    if (reply.cutAfter !== undefined && reply.cutAfter < events.length) {
      const next = encodeSse(events[reply.cutAfter] as SseEvent);
      res.write(next.slice(0, Math.ceil(next.length / 2)));
      await new Promise((r) => setTimeout(r, 10));
      res.socket?.destroy();
      return;
    }
    if (reply.hangAfter !== undefined && reply.hangAfter < events.length) {
      await new Promise<void>((resolve) => {
        req.socket.once("close", () => resolve());
      });
      const waiters = closedWaiters;
      closedWaiters = [];
      for (const w of waiters) w();
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: url + basePath,
    requests,
    clientClosed: () => new Promise<void>((resolve) => closedWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export const startOpenAIMock = (script: MockScript): Promise<MockServer> => startMockServer(script, "/v1");
export const startAnthropicMock = (script: MockScript): Promise<MockServer> => startMockServer(script);
export const startGeminiMock = (script: MockScript): Promise<MockServer> => startMockServer(script);
