/**
 * The same Bedrock streams through Tiller's provider and pi-ai 0.73.1's (`@mariozechner/pi-ai/bedrock-provider`)
 * side by side: both must produce the same content, stop reason and usage. pi-ai is pointed at the loopback
 * server with its own switches (HTTP/1.1, and its placeholder keys, which it signs with): the server checks that
 * SigV4 signature too, so the request signing of a second client passes the same check.
 */
import { readFileSync } from "node:fs";
import { bedrockProviderModule } from "@mariozechner/pi-ai/bedrock-provider";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { streamBedrock } from "../src/providers/amazon-bedrock.js";
import type { Api, AssistantMessage, Context, Model } from "../src/types.js";
import { bedrockEvents } from "./helpers/bedrock-events.js";
import { type BedrockEvent, type BedrockMockServer, startBedrockMock } from "./helpers/bedrock-mock.js";
import { collect, testModel } from "./helpers/collect.js";
import { CONTEXT } from "./helpers/provider-conformance.js";

// pi-ai's placeholder credentials under AWS_BEDROCK_SKIP_AUTH.
const PI_KEYS = { accessKeyId: "dummy-access-key", secretAccessKey: "dummy-secret-key" };
const SWITCHES = [
  "AWS_BEDROCK_FORCE_HTTP1",
  "AWS_BEDROCK_SKIP_AUTH",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
];
let saved: Record<string, string | undefined> = {};
beforeAll(() => {
  saved = Object.fromEntries(SWITCHES.map((k) => [k, process.env[k]]));
  for (const k of SWITCHES) delete process.env[k];
  process.env.AWS_BEDROCK_FORCE_HTTP1 = "1";
  process.env.AWS_BEDROCK_SKIP_AUTH = "1";
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

let server: BedrockMockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function fixture(name: string): BedrockEvent[] {
  const lines = readFileSync(new URL(`./fixtures/bedrock/${name}`, import.meta.url), "utf8")
    .trim()
    .split("\n");
  return lines.map((line) => {
    const [[event, data]] = Object.entries(JSON.parse(line) as Record<string, unknown>) as [[string, unknown]];
    return { event, data };
  });
}

/** What a user of either library sees in the final message. */
function visible(m: AssistantMessage) {
  return {
    content: m.content.map((b) =>
      b.type === "text"
        ? { text: b.text }
        : b.type === "thinking"
          ? { thinking: b.thinking, signature: b.thinkingSignature }
          : { call: b.name, id: b.id, args: b.arguments },
    ),
    stopReason: m.stopReason,
    usage: {
      input: m.usage.input,
      output: m.usage.output,
      cacheRead: m.usage.cacheRead,
      cacheWrite: m.usage.cacheWrite,
    },
  };
}

async function both(events: BedrockEvent[], overrides: Partial<Model<Api>> = {}, context: Context = CONTEXT) {
  server = await startBedrockMock(() => ({ events }), { mode: "sigv4", ...PI_KEYS, region: "us-east-1" });
  const model = testModel("bedrock-converse-stream", {
    provider: "amazon-bedrock",
    baseUrl: server.baseUrl,
    ...overrides,
  });
  const tiller = await collect(streamBedrock(model, context, { credentials: PI_KEYS, region: "us-east-1" }));
  const pi = await collect(bedrockProviderModule.streamBedrock(model as never, context as never, {}) as never);
  expect(server.authFailures).toEqual([]);
  return { tiller: tiller.result, pi: pi.result };
}

describe("bedrock: Tiller and pi-ai agree on the same streams", () => {
  it("a recorded Claude reasoning stream (vercel/ai fixture)", async () => {
    const { tiller, pi } = await both(fixture("claude-reasoning.chunks.jsonl"), {
      id: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    });
    expect(tiller.stopReason).toBe("stop");
    expect(visible(tiller)).toEqual(visible(pi));
  });

  it("a tool call whose usage arrives before messageStop (vercel/ai fixture)", async () => {
    const { tiller, pi } = await both(fixture("tool-call.chunks.jsonl"));
    expect(tiller.stopReason).toBe("toolUse");
    expect(tiller.content[0]).toMatchObject({ type: "toolCall", arguments: { value: "Sparkle Day" } });
    expect(visible(tiller)).toEqual(visible(pi));
  });

  it("text, then three parallel tool calls, with cache usage", async () => {
    const events = bedrockEvents({
      text: ["Reading ", "three."],
      toolCalls: [
        { id: "tooluse_a", name: "read", args: ['{"path":', '"a.txt"}'] },
        { id: "tooluse_b", name: "read", args: ['{"path":"b.txt","limit":', "5}"] },
        { id: "tooluse_c", name: "read", args: ['{"path":"c.txt"}'] },
      ],
      finish: "tool",
      usage: { input: 40, output: 60, cacheRead: 1000, cacheWrite: 200 },
    });
    const { tiller, pi } = await both(events);
    expect(tiller.content).toHaveLength(4);
    expect(visible(tiller)).toEqual(visible(pi));
  });
});
