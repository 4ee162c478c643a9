/**
 * The HTTP API under load: N concurrent streaming `chat.completions` (default 50) through the official `openai`
 * SDK, each streaming D deltas (default 1000) from the in-process bench model, against the same N sessions
 * driven by `agent` over the WebSocket (delta-only clients) on the same gateway process. Reports deltas/s and
 * p50/p99 delivery latency (model emission → client receipt, same clock) for each path.
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
    `${name.padEnd(28)} ${String(latencies.length).padStart(8)} deltas  ${(latencies.length / seconds).toFixed(0).padStart(7)}/s  p50 ${at(50).toFixed(1)} ms  p99 ${at(99).toFixed(1)} ms`,
  );
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

    const http: number[] = [];
    let t0 = now();
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        const stream = await openai.chat.completions.create(
          { model: "tiller", stream: true, messages: [{ role: "user", content: `[deltas:${DELTAS}]` }] },
          { headers: { "x-tiller-session-key": `http-bench-${s}` } },
        );
        for await (const c of stream) {
          const l = latencyOf(c.choices[0]?.delta.content ?? "", now());
          if (l !== undefined) http.push(l);
        }
      }),
    );
    report("HTTP SSE (openai SDK)", http, (now() - t0) / 1000);

    const ws: number[] = [];
    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, () =>
        GatewayClient.connect(gw.url, {
          caps: ["tiller.delta-only"],
          onEvent: (f) => {
            const at = now();
            const p = f.payload as { stream?: string; data?: { delta?: string } };
            if (f.event !== "agent" || p.stream !== "assistant" || !p.data?.delta) return;
            const l = latencyOf(p.data.delta, at);
            if (l !== undefined) ws.push(l);
          },
        }),
      ),
    );
    t0 = now();
    await Promise.all(
      clients.map((client, s) =>
        client.request(
          "agent",
          { message: `[deltas:${DELTAS}]`, idempotencyKey: randomUUID(), sessionKey: `ws-bench-${s}` },
          { expectFinal: true, timeoutMs: 600_000 },
        ),
      ),
    );
    const seconds = (now() - t0) / 1000;
    report("WebSocket agent (delta-only)", ws, seconds);
    for (const client of clients) client.close();
  } finally {
    await gw.stop();
    removeHome(home);
  }
}

await main();
