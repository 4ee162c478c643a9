// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * The assistant stream's two views. A reference-protocol client (no tiller.delta-only) gets the text coalesced
 * (the first piece at once, then when the unsent text has grown to what it already has, at most every 150 ms, with
 * no time-based floor that would make its bytes grow with the run's duration), each assistant event with the
 * concatenated delta and each chat delta beside it with the cumulative text: the text it receives adds up to a
 * small multiple of the reply, seq stays gap-free and the deltas rebuild the text exactly. A delta-only client
 * gets every burst as it comes, without the cumulative text.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEvents, connectClient, type GatewayProc, type MockGateway, startMockGateway } from "./gateway-harness.js";

let gw: GatewayProc;
let started: MockGateway | undefined;

beforeAll(async () => {
  started = await startMockGateway();
  ({ gw } = started);
});

afterAll(() => started?.stop());

async function runCounting(message: string, caps: string[] = []) {
  const { client, events } = await connectClient(gw.url, { caps });
  let assistantBytes = 0;
  let chatDeltaBytes = 0;
  const runId = randomUUID();
  client.ws.on("message", (d) => {
    const text = String(d);
    if (!text.includes(runId)) return;
    if (text.includes('"stream":"assistant"')) assistantBytes += Buffer.byteLength(text);
    if (text.includes('"event":"chat"') && text.includes('"state":"delta"')) chatDeltaBytes += Buffer.byteLength(text);
  });
  const final: any = await client.request(
    "agent",
    { message, idempotencyKey: runId, sessionKey: `burst-${runId}` },
    { expectFinal: true },
  );
  await client.close();
  const ev = agentEvents(events, runId);
  const chatDeltas = events
    .filter((e) => e.event === "chat")
    .map((e) => e.payload as any)
    .filter((p) => p.runId === runId && p.state === "delta");
  const snapshots = chatDeltas.map((p) => String(p.message?.content?.[0]?.text ?? ""));
  return {
    final,
    ev,
    assistant: ev.filter((e) => e.stream === "assistant"),
    assistantBytes,
    chatDeltaBytes,
    snapshots,
  };
}

describe("stream coalescing", () => {
  it("500 deltas in one burst: few assistant events, bytes linear in the reply, text rebuilt exactly", async () => {
    const r = await runCounting("[slow:500:0]");
    const reply = Array.from({ length: 500 }, (_, i) => `d${i} `).join("");
    expect(r.final.result.payloads[0].text).toBe(reply.trim());
    expect(r.assistant.map((e) => e.data.delta).join("")).toBe(reply);
    // The cumulative text rides the chat deltas only (the run's end leaves the rest to the final).
    expect(r.assistant.every((e) => e.data.text === undefined)).toBe(true);
    expect(reply.startsWith(r.snapshots.at(-1) ?? "-")).toBe(true);
    // Gap-free per-run seq.
    expect(r.ev.map((e) => e.seq)).toEqual(r.ev.map((_, i) => i + 1));
    expect(r.assistant.length).toBeLessThan(50);
    // The run's first text goes out at once, not after the rest of the provider read that carried it.
    expect(r.assistant[0]?.data.delta).toBe("d0 ");
    expect(r.snapshots[0]).toBe("d0 ");
    const lite = await runCounting("[slow:500:0]", ["tiller.delta-only"]);
    expect(lite.assistant[0]?.data.delta).toBe("d0 ");
    expect(lite.assistant.map((e) => e.data.delta).join("")).toBe(reply);
    // One frame per delta with the cumulative text would be ~500 × 1.2 KB; linear is a small multiple of the reply.
    expect(r.assistantBytes).toBeLessThan(reply.length + r.assistant.length * 400);
    expect(r.chatDeltaBytes).toBeLessThan(reply.length * 3 + r.snapshots.length * 400);
  });

  it("spaced deltas: a delta-only client gets each as it comes; a reference client at most one per 150 ms", async () => {
    const lite = await runCounting("[slow:8:60]", ["tiller.delta-only"]);
    expect(lite.assistant.map((e) => e.data.delta).join("")).toBe("d0 d1 d2 d3 d4 d5 d6 d7 ");
    expect(lite.assistant.every((e) => e.data.text === undefined)).toBe(true);
    // Only what arrives in one read is merged (a loaded machine may merge a neighbour or two, never all).
    expect(lite.assistant.length).toBeGreaterThanOrEqual(5);
    expect(lite.ev.map((e) => e.seq)).toEqual(lite.ev.map((_, i) => i + 1));
    const full = await runCounting("[slow:8:60]");
    expect(full.assistant.map((e) => e.data.delta).join("")).toBe("d0 d1 d2 d3 d4 d5 d6 d7 ");
    expect("d0 d1 d2 d3 d4 d5 d6 d7 ".startsWith(full.snapshots.at(-1) ?? "-")).toBe(true);
    // 8 deltas over ~420 ms: the first at once, then at most one per 150 ms.
    expect(full.assistant.length).toBeLessThanOrEqual(5);
    expect(full.assistant.length).toBeGreaterThanOrEqual(2);
    // A longer reply streamed over ~1.5 s: each event at least doubles what the client has, however long the
    // run lasts, so the cumulative text it receives adds up to about twice the reply, not once per delta or per
    // second; only the run's end sends what is left sooner.
    const long = await runCounting("[slow:60:25]");
    const longReply = Array.from({ length: 60 }, (_, i) => `d${i} `).join("");
    expect(long.assistant.map((e) => e.data.delta).join("")).toBe(longReply);
    const lengths = long.snapshots.map((t) => t.length);
    for (let i = 1; i < lengths.length - 1; i++)
      expect(lengths[i] as number).toBeGreaterThanOrEqual(2 * (lengths[i - 1] as number));
    const cumulative = lengths.reduce((n, l) => n + l, 0);
    expect(cumulative).toBeLessThanOrEqual(longReply.length * 3);
    // Between events the rate holds; only the last may come sooner (the run's end flushes what is left).
    const ts = full.assistant.map((e) => (e as any).ts as number);
    for (let i = 1; i < ts.length - 1; i++)
      expect((ts[i] as number) - (ts[i - 1] as number)).toBeGreaterThanOrEqual(140);
  });
});
