/**
 * A streaming HTTP client that stops reading is cut off instead of buffered for without limit, and everyone else
 * is still served. An event stream cannot skip deltas (the client rebuilds its text from them), so once what the
 * gateway holds unread for the client passes twice `gateway.maxBufferedBytes` the response is destroyed (see
 * src/http/sse.ts). Deterministic rather than load-sensitive: the reply is twice what the kernel's socket buffers
 * (read from the machine's own TCP limits) and the bound can hold, and the client pauses before the first byte.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { kernelBufferBytes, until } from "./gateway-harness.js";
import { type HttpGateway, startHttpGateway, TOKEN } from "./http-harness.js";

const MAX_BUFFERED = 1024 * 1024;
const DELTA_SIZE = 4096;
/** What the kernel and the gateway's bound hold for a client that reads nothing. */
const HELD_AT_MOST = kernelBufferBytes() + 2 * MAX_BUFFERED;
const DELTAS = Math.ceil((2 * HELD_AT_MOST) / DELTA_SIZE);

let h: HttpGateway;

beforeAll(async () => {
  h = await startHttpGateway({ gateway: { maxBufferedBytes: MAX_BUFFERED } });
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

/**
 * Sends a streaming chat completion on a bare socket that then reads nothing (an HTTP client's response object
 * resumes its socket on its own schedule, so only a bare socket stops reading for sure).
 */
async function sendWithoutReading(content: string): Promise<Socket> {
  const url = new URL(`${h.baseURL}/chat/completions`);
  const socket = connect(Number(url.port), url.hostname);
  socket.pause();
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const body = JSON.stringify({ model: "tiller", stream: true, messages: [{ role: "user", content }] });
  socket.write(
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  return socket;
}

it("a streaming client that stops reading is cut off, having been sent no more than the bound holds; others are served", async () => {
  const slow = await sendWithoutReading(`stop reading [big:${DELTAS}:${DELTA_SIZE}]`);
  // The gateway has taken the request: its run asked the model.
  await until(() => h.requestsFor("stop reading").length > 0, 30_000, "the slow client's run");

  // While it reads nothing, another client's stream (the official SDK) arrives whole.
  const stream = await h.openai.chat.completions.create({
    model: "tiller",
    stream: true,
    messages: [{ role: "user", content: "meanwhile" }],
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
  expect(text).toBe("echo: meanwhile");

  // The paused client reads what was kept for it: the kernel's buffers, then the gateway's, then the cut.
  let bytes = 0;
  let head = "";
  let tail = "";
  const ended = new Promise<void>((resolve) => {
    slow.on("data", (d: Buffer) => {
      bytes += d.length;
      if (head.length < 64) head += d.toString("latin1", 0, 64);
      tail = (tail + d.toString("latin1")).slice(-64);
    });
    slow.once("close", () => resolve());
    slow.on("error", () => {});
  });
  slow.resume();
  await ended;
  if (process.env.SLOW_DEBUG) console.log({ bytes, HELD_AT_MOST, full: DELTAS * DELTA_SIZE });
  expect(head).toMatch(/^HTTP\/1\.1 200 /);
  expect(tail).not.toContain("data: [DONE]");
  // Every delta's chunk carries at least its text, so the whole stream is more than DELTAS × DELTA_SIZE.
  expect(bytes).toBeLessThan(DELTAS * DELTA_SIZE);
  expect(bytes).toBeLessThanOrEqual(HELD_AT_MOST + 256 * 1024);

  // The gateway goes on serving: the next request is answered whole.
  const after = await h.openai.chat.completions.create({
    model: "tiller",
    messages: [{ role: "user", content: "still there" }],
  });
  expect(after.choices[0]?.message.content).toBe("echo: still there");
}, 120_000);
