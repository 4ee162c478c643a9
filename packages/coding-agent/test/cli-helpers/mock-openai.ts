/**
 * A loopback OpenAI-compatible chat-completions server speaking the real SSE wire format, for driving the CLI
 * end to end. Each request is answered by `respond(body)`; replies can stream slowly and carry tool calls.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface MockToolCall {
  name: string;
  arguments: Record<string, unknown>;
  id?: string;
}

export interface MockReply {
  /** Assistant text, streamed in `chunks` pieces (default: split into ~8-char pieces). */
  text?: string;
  /** Reasoning text streamed first as `reasoning_content` deltas. */
  reasoning?: string;
  toolCalls?: MockToolCall[];
  /** Delay before each chunk, to make a reply stream slowly. */
  chunkDelayMs?: number;
  chunkSize?: number;
  /** Answer with this HTTP status and a JSON error body instead of a stream. */
  status?: number;
}

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  [key: string]: unknown;
}

export interface MockServer {
  url: string;
  /** `${url}/v1`, what models.json's baseUrl should be. */
  baseUrl: string;
  requests: ChatRequestBody[];
  /** Open SSE responses, for tests that check aborts closed them. */
  openStreams(): number;
  close(): Promise<void>;
}

export type Responder = (body: ChatRequestBody, index: number) => MockReply | Promise<MockReply>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startMockOpenAI(respond: Responder): Promise<MockServer> {
  const requests: ChatRequestBody[] = [];
  let open = 0;
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "mock-1" }] }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: ChatRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequestBody;
    } catch {
      res.writeHead(400).end("bad json");
      return;
    }
    const index = requests.length;
    requests.push(body);
    const reply = await respond(body, index);
    if (reply.status && reply.status >= 400) {
      res
        .writeHead(reply.status, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `mock error ${reply.status}`, type: "server_error" } }));
      return;
    }
    open++;
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const id = `chatcmpl-${index}`;
    const send = (
      delta: Record<string, unknown>,
      finish: string | null = null,
      extra: Record<string, unknown> = {},
    ) => {
      const chunk = {
        id,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    const size = reply.chunkSize ?? 8;
    const pieces = (s: string) => {
      const out: string[] = [];
      for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
      return out;
    };
    try {
      send({ role: "assistant", content: "" });
      for (const p of pieces(reply.reasoning ?? "")) {
        if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
        if (closed) return;
        send({ reasoning_content: p });
      }
      for (const p of pieces(reply.text ?? "")) {
        if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
        if (closed) return;
        send({ content: p });
      }
      (reply.toolCalls ?? []).forEach((tc, i) => {
        const args = JSON.stringify(tc.arguments);
        const callId = tc.id ?? `call_${index}_${i}`;
        send({ tool_calls: [{ index: i, id: callId, type: "function", function: { name: tc.name, arguments: "" } }] });
        for (const p of pieces(args)) send({ tool_calls: [{ index: i, function: { arguments: p } }] });
      });
      const finish = reply.toolCalls?.length ? "tool_calls" : "stop";
      send({}, finish);
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })}\n\n`,
      );
      res.write("data: [DONE]\n\n");
      res.end();
    } finally {
      open--;
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    openStreams: () => open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Text of the last user message of a request (string or text parts). */
export function lastUserText(body: ChatRequestBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i]!;
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("");
    }
  }
  return "";
}
