// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * A burst of model deltas (many text deltas in one provider read) reaches a reference-protocol client (no
 * tiller.delta-only) as a few `assistant` events carrying the concatenated delta and the cumulative text once
 * per burst: the bytes it gets grow with the reply, not with its square; seq stays gap-free and the deltas still
 * rebuild the text exactly. Spaced deltas are not held back.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
} from "./gateway-harness.js";

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await spawnGateway(makeHome({ mockBaseUrl: mock.baseUrl }));
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

async function runCounting(message: string) {
  const { client, events } = await connectClient(gw.url);
  let assistantBytes = 0;
  const runId = randomUUID();
  client.ws.on("message", (d) => {
    const text = String(d);
    if (text.includes('"stream":"assistant"') && text.includes(runId)) assistantBytes += Buffer.byteLength(text);
  });
  const final: any = await client.request(
    "agent",
    { message, idempotencyKey: runId, sessionKey: `burst-${runId}` },
    { expectFinal: true },
  );
  await client.close();
  const ev = agentEvents(events, runId);
  return { final, ev, assistant: ev.filter((e) => e.stream === "assistant"), assistantBytes };
}

describe("stream coalescing", () => {
  it("500 deltas in one burst: few assistant events, bytes linear in the reply, text rebuilt exactly", async () => {
    const r = await runCounting("[slow:500:0]");
    const reply = Array.from({ length: 500 }, (_, i) => `d${i} `).join("");
    expect(r.final.result.payloads[0].text).toBe(reply.trim());
    expect(r.assistant.map((e) => e.data.delta).join("")).toBe(reply);
    expect(r.assistant.at(-1)?.data.text).toBe(reply);
    // Gap-free per-run seq.
    expect(r.ev.map((e) => e.seq)).toEqual(r.ev.map((_, i) => i + 1));
    expect(r.assistant.length).toBeLessThan(50);
    // One frame per delta with the cumulative text would be ~500 × 1.2 KB; linear is a small multiple of the reply.
    expect(r.assistantBytes).toBeLessThan(reply.length * 2 + r.assistant.length * 400);
  });

  it("deltas spaced in time are not held back: they stream as separate events", async () => {
    const r = await runCounting("[slow:5:80]");
    expect(r.assistant.map((e) => e.data.delta).join("")).toBe("d0 d1 d2 d3 d4 ");
    // Only what arrives together is merged (a loaded machine may merge a neighbour or two, never all).
    expect(r.assistant.length).toBeGreaterThanOrEqual(3);
  });
});
