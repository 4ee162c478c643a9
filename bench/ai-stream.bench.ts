/**
 * Text-stream throughput of each wire provider, Tiller vs @mariozechner/pi-ai 0.73.1, on the same loopback
 * SSE stream in the same process: a long answer (about 1 MB of text in ~40-byte deltas) in each vendor's real
 * wire format, parsed by the official SDK and turned into events. Reports MB of text per second and the ratio.
 */
import { stream as piStream } from "@mariozechner/pi-ai";
import { stream as tillerStream } from "@tiller/ai";
import { encodeSse } from "../packages/ai/test/helpers/mock-server.js";
import { type SseFileServer, startSseFileServer } from "../packages/ai/test/helpers/sse-file-server.js";
import {
  anthropicEvents,
  geminiEvents,
  openaiChatEvents,
  openaiResponsesEvents,
  type TurnScript,
} from "../packages/ai/test/helpers/vendor-events.js";

const DELTAS = Number(process.env.BENCH_DELTAS ?? 25_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WORDS = "the quick brown fox jumps over a lazy dog while streaming tokens ".split(" ");

function deltas(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} word${i % 97} `);
  return out;
}

interface Case {
  api: string;
  provider: string;
  basePath: string;
  events: (t: TurnScript) => ReturnType<typeof openaiChatEvents>;
}

const CASES: Case[] = [
  { api: "openai-completions", provider: "openai", basePath: "/v1", events: (t) => openaiChatEvents(t) },
  { api: "openai-responses", provider: "openai", basePath: "/v1", events: (t) => openaiResponsesEvents(t) },
  { api: "anthropic-messages", provider: "anthropic", basePath: "", events: (t) => anthropicEvents(t) },
  { api: "google-generative-ai", provider: "google", basePath: "/v1beta", events: (t) => geminiEvents(t) },
];

function model(c: Case, server: SseFileServer) {
  return {
    id: "bench-model",
    name: "bench",
    api: c.api,
    provider: c.provider,
    baseUrl: server.url + c.basePath,
    reasoning: false,
    input: ["text" as const],
    cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1_000_000,
    maxTokens: 100_000,
  };
}

type StreamLike = AsyncIterable<{ type: string }> & { result(): Promise<{ stopReason: string; content: unknown[] }> };

async function timeOne(run: () => StreamLike): Promise<{ ms: number; cpuMs: number; events: number; stop: string }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const s = run();
  let events = 0;
  for await (const _ of s) events++;
  const result = await s.result();
  const cpu = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, events, stop: result.stopReason };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const context = { messages: [{ role: "user" as const, content: "Write a long answer.", timestamp: 0 }] };
const text = deltas(DELTAS);
const textBytes = Buffer.byteLength(text.join(""));
console.log(
  `text stream: ${DELTAS} deltas, ${(textBytes / 1e6).toFixed(2)} MB of text; median of ${RUNS} runs each (alternating)`,
);
console.log(
  "| api | SSE size | Tiller MB/s (wall) | pi-ai MB/s (wall) | Tiller/pi | Tiller MB/s (client CPU) | pi-ai MB/s (client CPU) | Tiller/pi (CPU) |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const c of CASES) {
  const sse = c
    .events({ text, usage: { input: 10, output: DELTAS } })
    .map(encodeSse)
    .join("");
  const server = await startSseFileServer(sse);
  try {
    const m = model(c, server);
    const tiller = () => tillerStream(m as never, context, { apiKey: "k" }) as unknown as StreamLike;
    const pi = () => piStream(m as never, context, { apiKey: "k" }) as unknown as StreamLike;
    await timeOne(tiller);
    await timeOne(pi);
    const tt: number[] = [];
    const pt: number[] = [];
    const tc: number[] = [];
    const pc: number[] = [];
    let events = 0;
    for (let i = 0; i < RUNS; i++) {
      const a = await timeOne(tiller);
      if (a.stop !== "stop") throw new Error(`tiller ${c.api} ended with ${a.stop}`);
      tt.push(a.ms);
      tc.push(a.cpuMs);
      events = a.events;
      const b = await timeOne(pi);
      if (b.stop !== "stop") throw new Error(`pi ${c.api} ended with ${b.stop}`);
      pt.push(b.ms);
      pc.push(b.cpuMs);
    }
    const tMBs = textBytes / 1e6 / (median(tt) / 1000);
    const pMBs = textBytes / 1e6 / (median(pt) / 1000);
    const tC = textBytes / 1e6 / (median(tc) / 1000);
    const pC = textBytes / 1e6 / (median(pc) / 1000);
    console.log(
      `| ${c.api} | ${(sse.length / 1e6).toFixed(1)} MB | ${tMBs.toFixed(2)} | ${pMBs.toFixed(2)} | ${(tMBs / pMBs).toFixed(2)}x | ${tC.toFixed(2)} | ${pC.toFixed(2)} | ${(tC / pC).toFixed(2)}x |`,
    );
    if (events < DELTAS) throw new Error(`${c.api}: only ${events} events for ${DELTAS} deltas`);
  } finally {
    await server.close();
  }
}
