// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Reply shaping on the wire: a real gateway process with block streaming and reasoning streaming configured, a real
 * WebSocket client, and a loopback OpenAI-compatible mock that streams reasoning, a think tag, a fenced code block
 * and several paragraphs in small deltas.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { agentEvents, connectClient, type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";

const ANSWER = [
  "<think>private plan</think>First paragraph of the answer, long enough to be a block.",
  "",
  "```js",
  ...Array.from({ length: 12 }, (_, i) => `console.log("line ${i}");`),
  "```",
  "",
  "Last paragraph, after the code.",
].join("\n");

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startOpenAIMock(() => ({
    events: openaiChatEvents({
      thinking: ["native ", "reasoning"],
      text: ANSWER.match(/[\s\S]{1,7}/g) as string[],
      usage: { input: 10, output: 5 },
    }),
  }));
  const home = makeHome({
    mockBaseUrl: mock.baseUrl,
    config: {
      agents: {
        defaults: {
          reasoning: "stream",
          blockStreaming: { minChars: 40, maxChars: 160, break: "text_end" },
        },
      },
    },
  });
  gw = await spawnGateway(home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

describe("reply shaping in a real run", () => {
  it("blocks stream on the block stream (fences closed and reopened), reasoning on the thinking stream", async () => {
    const { client, events } = await connectClient(gw.url, { scopes: ["operator.write"] });
    const runId = randomUUID();
    const final: any = await client.request(
      "agent",
      { message: "explain", idempotencyKey: runId, sessionKey: "blocks" },
      { expectFinal: true, timeoutMs: 30_000 },
    );
    await client.close();
    expect(final.status).toBe("ok");
    const ev = agentEvents(events, runId);
    const blocks = ev.filter((e) => e.stream === "block").map((e) => e.data.text as string);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const b of blocks) {
      expect(b.length).toBeLessThanOrEqual(170);
      expect((b.match(/^```/gm) ?? []).length % 2).toBe(0); // every block's fences are balanced
      expect(b).not.toContain("private plan");
    }
    expect(blocks[0]).toBe("First paragraph of the answer, long enough to be a block.");
    expect(blocks.at(-1)).toBe("Last paragraph, after the code.");
    const code = blocks
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("console.log"));
    expect(code).toEqual(Array.from({ length: 12 }, (_, i) => `console.log("line ${i}");`));

    const thinking = ev.filter((e) => e.stream === "thinking");
    expect(thinking.map((e) => e.data.delta).join("")).toBe("native reasoningprivate plan");
    const assistant = ev
      .filter((e) => e.stream === "assistant")
      .map((e) => e.data.delta)
      .join("");
    expect(assistant).not.toContain("<think>");
    expect(assistant.startsWith("First paragraph")).toBe(true);
    // Blocks were the delivery: the final payload list does not repeat them.
    expect(final.result.payloads).toEqual([]);
  });
});
