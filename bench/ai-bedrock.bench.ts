/**
 * Bedrock ConverseStream decoding cost as the stream grows, Tiller vs @mariozechner/pi-ai 0.73.1 in the same
 * run: one loopback answer of N text deltas in the binary eventstream framing (both go through the AWS SDK's
 * decoder), at three sizes. Prints µs per delta for each size and the growth ratio largest/smallest, which
 * stays near 1 when decoding is linear.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { bedrockProviderModule } from "@mariozechner/pi-ai/bedrock-provider";
import { streamBedrock } from "@tiller/ai";
import { encodeFrame, eventFrame } from "../packages/ai/test/helpers/aws-eventstream.js";
import { bedrockEvents } from "../packages/ai/test/helpers/bedrock-events.js";

const SIZES = (process.env.BENCH_SIZES ?? "10000,40000,160000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

// pi-ai reaches a plain-HTTP loopback server only over HTTP/1.1 and without signing.
process.env.AWS_BEDROCK_FORCE_HTTP1 = "1";
process.env.AWS_BEDROCK_SKIP_AUTH = "1";

function body(n: number): Buffer {
  const text: string[] = [];
  for (let i = 0; i < n; i++) text.push(`word${i % 97} next `);
  const events = bedrockEvents({ text, usage: { input: 10, output: n } });
  return Buffer.concat(events.map((e) => encodeFrame(eventFrame(e.event, e.data))));
}

async function serve(payload: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
      res.end(payload);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type StreamLike = AsyncIterable<unknown> & { result(): Promise<{ stopReason: string; errorMessage?: string }> };

async function timeOne(run: () => StreamLike): Promise<number> {
  const t0 = performance.now();
  const s = run();
  for await (const _ of s) {
    // drain
  }
  const r = await s.result();
  if (r.stopReason !== "stop") throw new Error(`stream failed: ${r.errorMessage}`);
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const context = { messages: [{ role: "user" as const, content: "Write a long answer.", timestamp: 0 }] };

const rows: { n: number; tiller: number; pi: number }[] = [];
for (const n of SIZES) {
  const server = await serve(body(n));
  const model = {
    id: "anthropic.claude-sonnet-4-6",
    name: "bench",
    api: "bedrock-converse-stream" as const,
    provider: "amazon-bedrock",
    baseUrl: server.url,
    reasoning: false,
    input: ["text" as const],
    cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1_000_000,
    maxTokens: 100_000,
  };
  const t: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    t.push(await timeOne(() => streamBedrock(model, context, { apiKey: "bench", region: "us-east-1" })));
    p.push(
      await timeOne(
        () => bedrockProviderModule.streamBedrock(model, context, { region: "us-east-1" }) as unknown as StreamLike,
      ),
    );
  }
  await server.close();
  rows.push({ n, tiller: (median(t) * 1000) / n, pi: (median(p) * 1000) / n });
}

console.log(`bedrock ConverseStream, text deltas in eventstream frames; median of ${RUNS} runs, µs per delta`);
console.log("deltas    tiller µs   pi-ai µs   pi/tiller");
for (const r of rows) {
  console.log(
    `${String(r.n).padEnd(9)} ${r.tiller.toFixed(2).padStart(9)}  ${r.pi.toFixed(2).padStart(9)}   ${(r.pi / r.tiller).toFixed(2)}x`,
  );
}
const first = rows[0] as (typeof rows)[number];
const last = rows.at(-1) as (typeof rows)[number];
console.log(
  `growth (µs/delta at ${last.n} / at ${first.n}): tiller ${(last.tiller / first.tiller).toFixed(2)}, pi-ai ${(last.pi / first.pi).toFixed(2)}`,
);
