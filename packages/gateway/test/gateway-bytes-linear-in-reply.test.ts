// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * The bytes a run sends each client grow linearly with its reply, in every text view: twice the reply costs at
 * most 2.2× the bytes (counted on the client's socket: every frame from the `agent` request to its final answer).
 * The reference CLI's identity (client id `cli`, the `answer` view) gets the text once as coalesced deltas and once
 * in the answer, at most 2.2× the reply; a v4 chat client still gets what the reference's TUI and control UI read
 * (chat deltas with the cumulative `message` and `deltaText`, the chat final's whole text); and every frame each
 * client receives is valid under the protocol schema.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientOptions } from "../src/cli/gateway-client.js";
import { connectClient, type GatewayProc, type MockGateway, startMockGateway } from "./gateway-harness.js";
import { FrameChecker } from "./protocol-frame-checker.js";

let gw: GatewayProc;
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ gw } = started);
});

afterAll(() => started?.stop());

interface Measured {
  reply: string;
  bytes: number;
  frames: any[];
  problems: string[];
}

/** One run of `deltas` deltas (1 ms apart, so the run streams over many coalescing windows) by a fresh client. */
async function measure(deltas: number, opts: ClientOptions): Promise<Measured> {
  const { client } = await connectClient(gw.url, opts);
  const checker = new FrameChecker();
  const frames: any[] = [];
  let bytes = 0;
  client.ws.on("message", (d: Buffer) => {
    bytes += d.length;
    const f = JSON.parse(String(d));
    frames.push(f);
    checker.check(f, "in");
  });
  // The run's bytes: from the `agent` request on (the handshake is not the run's).
  bytes = 0;
  frames.length = 0;
  const runId = randomUUID();
  const final: any = await client.request(
    "agent",
    { message: `[slow:${deltas}:1]`, idempotencyKey: runId, sessionKey: `bytes-${runId}` },
    { expectFinal: true, timeoutMs: 60_000 },
  );
  await client.close();
  expect(final.status).toBe("ok");
  if (process.env.BYTES_DEBUG)
    for (const f of frames)
      console.log(f.type, f.event ?? "", f.payload?.stream ?? f.payload?.state ?? "", JSON.stringify(f).length);
  return {
    reply: final.result.payloads[0].text as string,
    bytes,
    frames: frames.filter((f) => f.type === "res" || f.payload?.runId === runId),
    problems: checker.problems,
  };
}

const expectedReply = (n: number) =>
  Array.from({ length: n }, (_, i) => `d${i} `)
    .join("")
    .trim();

/** Bytes per reply byte at R and at 2R (the reply of 2N deltas is a little over twice that of N). */
async function perReplyByte(
  opts: ClientOptions,
  n = 3000,
): Promise<{ short: Measured; long: Measured; growth: number }> {
  const short = await measure(n, opts);
  const long = await measure(2 * n, opts);
  expect(short.reply).toBe(expectedReply(n));
  expect(long.reply).toBe(expectedReply(2 * n));
  expect(short.problems).toEqual([]);
  expect(long.problems).toEqual([]);
  // Twice the reply, at most 2.2× the bytes: the cost per reply byte grows by no more than 10%.
  const growth = long.bytes / long.reply.length / (short.bytes / short.reply.length);
  return { short, long, growth };
}

const chatOf = (m: Measured) => m.frames.filter((f) => f.event === "chat").map((f) => f.payload);
const assistantOf = (m: Measured) =>
  m.frames.filter((f) => f.event === "agent" && f.payload.stream === "assistant").map((f) => f.payload.data);

describe("bytes a run sends, per text view", () => {
  it("the reference CLI's identity gets the reply once as deltas and once in the answer: ≤ 2.2× the reply", async () => {
    const { short, long, growth } = await perReplyByte({ clientId: "cli", mode: "cli" });
    expect(growth).toBeLessThanOrEqual(1.1);
    // A run's fixed frames (lifecycle, usage, the answer's meta, event envelopes: about 4 KB) weigh less as the reply grows; at
    // the long reply (about 35 KB, the benchmark's length) the run costs at most 2.2× its reply.
    expect(long.bytes / long.reply.length).toBeLessThanOrEqual(2.2);
    expect(short.bytes).toBeLessThanOrEqual(2 * short.reply.length + 6_000);
    for (const m of [short, long]) {
      // The text is all there: the deltas rebuild it, the answer carries it; the chat final leaves it out.
      expect(
        assistantOf(m)
          .map((d) => d.delta)
          .join("")
          .trim(),
      ).toBe(m.reply);
      expect(assistantOf(m).every((d) => d.text === undefined)).toBe(true);
      const chat = chatOf(m);
      expect(chat.map((c) => c.state)).toEqual(["final"]);
      expect(chat[0].message).toBeUndefined();
      expect(chat[0].usage).toBeDefined();
    }
  });

  it("as the reference CLI, a chat.send run's final keeps its text (that answer carries none)", async () => {
    const { client, events } = await connectClient(gw.url, { clientId: "cli", mode: "cli" });
    const runId = randomUUID();
    await client.request(
      "chat.send",
      { sessionKey: `bytes-${runId}`, message: "hi", idempotencyKey: runId },
      { expectFinal: true },
    );
    await client.close();
    const chat = events.filter((e) => e.event === "chat").map((e) => e.payload as any);
    expect(chat.map((c) => c.state)).toEqual(["final"]);
    expect(chat[0].message.content).toEqual([{ type: "text", text: "echo: hi" }]);
  });

  it("a v4 chat client keeps the cumulative message, deltaText and the whole final, linearly", async () => {
    const { short, long, growth } = await perReplyByte({ clientId: "openclaw-tui", mode: "ui" });
    // Each snapshot at least doubles the previous one, so they add up to between one and two replies, depending
    // on where the reply ends between two doublings: linear, within that band.
    expect(growth).toBeLessThanOrEqual(1.25);
    for (const m of [short, long]) {
      const chat = chatOf(m);
      const deltas = chat.filter((c) => c.state === "delta");
      expect(deltas.length).toBeGreaterThan(1);
      // What the reference TUI renders (the snapshot) and what its control UI appends (deltaText) agree.
      let rebuilt = "";
      for (const d of deltas) {
        rebuilt += d.deltaText;
        expect(d.message.content[0].text).toBe(rebuilt);
      }
      expect(chat.at(-1)?.state).toBe("final");
      expect(chat.at(-1)?.message.content[0].text.trim()).toBe(m.reply);
      expect(assistantOf(m).every((d) => d.text === undefined)).toBe(true);
      // Snapshots (at most twice the reply, and a last whole one before the final, as the reference sends),
      // deltaText, the assistant deltas, the final and the answer.
      expect(m.bytes).toBeLessThanOrEqual(7.5 * m.reply.length + 8_000);
    }
  });

  it("a delta-only client's bytes are linear too", async () => {
    const { short, long, growth } = await perReplyByte({ caps: ["tiller.delta-only"] });
    expect(growth).toBeLessThanOrEqual(1.1);
    for (const m of [short, long]) {
      expect(chatOf(m).map((c) => c.state)).toEqual(["final"]);
      expect(chatOf(m)[0].message.content[0].text.trim()).toBe(m.reply);
    }
  });
});
