/**
 * The HTTP API under load: N concurrent streaming `chat.completions` (default 50) through the official `openai`
 * SDK, each streaming D deltas (default 1000) from the in-process bench model, against the same N sessions
 * driven by `agent` over the WebSocket (delta-only clients) on the same gateway process, and a minimal SSE client
 * without the SDK. Each path gets one
 * unmeasured warm-up round first. Reports deltas/s and p50/p99 delivery latency (model emission → client
 * receipt, same clock). The clients share the bench process, so client-side parsing is part of the numbers.
 *   BENCH_SESSIONS=50 BENCH_DELTAS=1000 npm run bench -- gateway-http
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import OpenAI from "openai";
import { GatewayClient } from "../packages/gateway/src/cli/gateway-client.js";
import { makeHome, removeHome, spawnGateway } from "../packages/gateway/test/gateway-harness.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
const DELTAS = Number(process.env.BENCH_DELTAS ?? 1000);
const WARMUP_DELTAS = 100;
const now = (): number => performance.timeOrigin + performance.now();

/** The bench model stamps each delta "t<emission ms>|…". */
function latencyOf(delta: string, at: number): number | undefined {
  const bar = delta.indexOf("|");
  return delta.startsWith("t") && bar > 0 ? at - Number(delta.slice(1, bar)) : undefined;
}

function report(name: string, latencies: number[], seconds: number): void {
  const sorted = latencies.slice().sort((a, b) => a - b);
  const at = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  console.log(
    `${name.padEnd(30)} ${String(latencies.length).padStart(8)} deltas  ${(latencies.length / seconds).toFixed(0).padStart(7)}/s  p50 ${at(50).toFixed(1)} ms  p99 ${at(99).toFixed(1)} ms`,
  );
}

/** One round over HTTP: every session streams `deltas`; returns the latencies and the wall time. */
async function httpRound(openai: OpenAI, prefix: string, deltas: number): Promise<[number[], number]> {
  const out: number[] = [];
  const t0 = now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      const stream = await openai.chat.completions.create(
        { model: "tiller", stream: true, messages: [{ role: "user", content: `[deltas:${deltas}]` }] },
        { headers: { "x-tiller-session-key": `${prefix}-${s}` } },
      );
      for await (const c of stream) {
        const l = latencyOf(c.choices[0]?.delta.content ?? "", now());
        if (l !== undefined) out.push(l);
      }
    }),
  );
  return [out, (now() - t0) / 1000];
}

/**
 * The same round with a minimal client (fetch, events split on blank lines, the stamp read with a regex): it
 * separates the gateway's share of the latency from the SDK's parsing.
 */
async function rawRound(baseURL: string, prefix: string, deltas: number): Promise<[number[], number]> {
  const out: number[] = [];
  const stamp = /"content":"t([0-9.]+)\|/;
  const t0 = now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, s) => {
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tiller-session-key": `${prefix}-${s}` },
        body: JSON.stringify({
          model: "tiller",
          stream: true,
          messages: [{ role: "user", content: `[deltas:${deltas}]` }],
        }),
      });
      const decoder = new TextDecoder();
      let tail = "";
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        const at = now();
        // Only the unfinished last event is carried over, so the work stays linear in the stream's size.
        const events = (tail + decoder.decode(bytes, { stream: true })).split("\n\n");
        tail = events.pop() ?? "";
        for (const e of events) {
          const m = stamp.exec(e);
          if (m) out.push(at - Number(m[1]));
        }
      }
    }),
  );
  return [out, (now() - t0) / 1000];
}

/** The same round through `agent` over the WebSocket. */
async function wsRound(url: string, prefix: string, deltas: number): Promise<[number[], number]> {
  const out: number[] = [];
  const clients = await Promise.all(
    Array.from({ length: SESSIONS }, () =>
      GatewayClient.connect(url, {
        caps: ["tiller.delta-only"],
        onEvent: (f) => {
          const at = now();
          const p = f.payload as { stream?: string; data?: { delta?: string } };
          if (f.event !== "agent" || p.stream !== "assistant" || !p.data?.delta) return;
          const l = latencyOf(p.data.delta, at);
          if (l !== undefined) out.push(l);
        },
      }),
    ),
  );
  const t0 = now();
  await Promise.all(
    clients.map((client, s) =>
      client.request(
        "agent",
        { message: `[deltas:${deltas}]`, idempotencyKey: randomUUID(), sessionKey: `${prefix}-${s}` },
        { expectFinal: true, timeoutMs: 600_000 },
      ),
    ),
  );
  const seconds = (now() - t0) / 1000;
  for (const client of clients) client.close();
  return [out, seconds];
}

async function main(): Promise<void> {
  const home = makeHome({
    config: {
      agents: { defaults: { model: "bench/stream", maxConcurrent: SESSIONS } },
      gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } },
    },
  });
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({ providers: { bench: { baseUrl: "", api: "tiller-bench", models: [{ id: "stream" }] } } }),
  );
  // The spawned gateway inherits this: it registers the in-process bench model.
  process.env.TILLER_GATEWAY_BENCH_MODEL = "1";
  const gw = await spawnGateway(home);
  try {
    console.log(`${SESSIONS} sessions × ${DELTAS} deltas, one gateway process`);
    const openai = new OpenAI({
      baseURL: `http://127.0.0.1:${gw.port}/v1`,
      apiKey: "none",
      maxRetries: 0,
      timeout: 600_000,
    });
    await httpRound(openai, "http-warm", WARMUP_DELTAS);
    await wsRound(gw.url, "ws-warm", WARMUP_DELTAS);
    await rawRound(openai.baseURL, "raw-warm", WARMUP_DELTAS);
    report("HTTP SSE (openai SDK)", ...(await httpRound(openai, "http", DELTAS)));
    report("HTTP SSE (raw fetch client)", ...(await rawRound(openai.baseURL, "raw", DELTAS)));
    report("WebSocket agent (delta-only)", ...(await wsRound(gw.url, "ws", DELTAS)));
  } finally {
    await gw.stop();
    removeHome(home);
  }
}

await main();
