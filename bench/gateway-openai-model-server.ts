/**
 * The mock model both gateways call in `bench/gateway-openclaw.bench.ts`: an OpenAI-compatible server on loopback
 * (`POST /v1/chat/completions` with `stream: true`, server-sent events as the vendor sends them, and
 * `GET /v1/models`), in its own process so neither gateway pays for it. For a last user message "[deltas:N]" it
 * streams N content deltas, each carrying its emission time ("t<epoch ms with µs>|"), yielding to the event loop
 * every 16 deltas the way a socket read would, then a usage chunk and `[DONE]`. Any other prompt gets "ok".
 * `GET /bench/requests` answers how many completions were asked for (a check that a command never reached the
 * model). Prints `listening http://127.0.0.1:PORT`.
 *   node --import tsx bench/gateway-openai-model-server.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";

const YIELD_EVERY = 16;
const now = (): number => performance.timeOrigin + performance.now();

interface ChatBody {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content: unknown }[];
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((c: { type?: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : "")).join("");
  return "";
}

/** The prompt: the last user message asking for deltas (OpenClaw appends a context message after the user's). */
function prompt(body: ChatBody): string {
  const users = (body.messages ?? []).filter((x) => x.role === "user").map((x) => text(x.content));
  return users.reverse().find((t) => t.includes("[deltas:")) ?? users[0] ?? "";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function streamChat(body: ChatBody, res: ServerResponse): Promise<void> {
  const m = /\[deltas:(\d+)\]/.exec(prompt(body));
  const n = m ? Number(m[1]) : 0;
  const model = body.model ?? "stream";
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: "assistant", content: "" }));
  if (n === 0) res.write(chunk({ content: "ok" }));
  for (let i = 0; i < n; i++) {
    if (res.destroyed) return;
    res.write(chunk({ content: `t${now().toFixed(3)}|` }));
    if ((i + 1) % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
  }
  res.write(chunk({}, "stop"));
  const usage = { prompt_tokens: 10, completion_tokens: Math.max(1, n), total_tokens: 10 + Math.max(1, n) };
  res.write(
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
}

let completions = 0;
const server = createServer((req, res) => {
  void (async () => {
    if (req.method === "GET" && req.url === "/bench/requests") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ completions }));
      return;
    }
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "stream", object: "model", owned_by: "bench" }] }));
      return;
    }
    if (req.method === "POST" && req.url?.endsWith("/chat/completions")) {
      const body = JSON.parse(await readBody(req)) as ChatBody;
      completions++;
      if (body.stream) return streamChat(body, res);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 0,
          model: body.model ?? "stream",
          choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
        }),
      );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
  })().catch((err: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(err));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const a = server.address();
  process.stdout.write(`listening http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}\n`);
});
