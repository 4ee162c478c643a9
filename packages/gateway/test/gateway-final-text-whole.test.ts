// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * A run's final carries the whole reply text, and its answer the shaped payload, whether the shaped text is the
 * model's unchanged (then the bridge and the shaper reuse the finished message's string instead of joining copies)
 * or not (think tags stripped, trailing whitespace trimmed from the payload only): a real gateway process, a real
 * delta-only WebSocket client, and a loopback OpenAI-compatible server streaming the reply in small deltas.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { CAP_DELTA_ONLY } from "../src/server/text-view.js";
import { agentEvents, connectClient, type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";

/** What the model streams for each prompt. */
const REPLIES: Record<string, string[]> = {
  // 1,500 deltas (several blocks of pieces), nothing for the shaper to change.
  plain: Array.from({ length: 1500 }, (_, i) => `w${i}|`),
  // A think tag the shaper strips: the visible text is not the model's.
  tagged: ["<think>a private", " plan</think>", ...Array.from({ length: 600 }, (_, i) => `t${i}|`)],
  // Trailing blank lines: streamed (and in the final) as sent, trimmed from the payload.
  trailing: [...Array.from({ length: 600 }, (_, i) => `r${i}|`), "\n", "\n"],
};

const visible = (name: string): string => (REPLIES[name] as string[]).join("").replace(/<think>[\s\S]*<\/think>/, "");

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startOpenAIMock((req) => {
    const users = (req.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user");
    const last = JSON.stringify(users.at(-1)?.content ?? "");
    const name = Object.keys(REPLIES).find((k) => last.includes(`reply:${k}`)) ?? "plain";
    return { events: openaiChatEvents({ text: REPLIES[name], usage: { input: 10, output: 5 } }) };
  });
  gw = await spawnGateway(makeHome({ mockBaseUrl: mock.baseUrl }));
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

describe("the final's text and the answer's payload", () => {
  for (const name of Object.keys(REPLIES)) {
    it(`${name}: the final holds the streamed text whole, the answer the shaped payload`, async () => {
      const deltas = await connectClient(gw.url, { scopes: ["operator.write"], caps: [CAP_DELTA_ONLY] });
      const runId = randomUUID();
      const sessionKey = `final-${name}`;
      const answer: any = await deltas.client.request(
        "agent",
        { message: `reply:${name}`, idempotencyKey: runId, sessionKey },
        { expectFinal: true, timeoutMs: 60_000 },
      );
      expect(answer.status).toBe("ok");
      const text = visible(name);
      expect(answer.result.payloads.map((p: { text: string }) => p.text)).toEqual([text.trim()]);

      // The delta-only client rebuilds the text from the deltas, and its final carries it whole.
      const streamed = agentEvents(deltas.events, runId)
        .filter((e) => e.stream === "assistant")
        .map((e) => e.data.delta)
        .join("");
      expect(streamed).toBe(text);
      const finalOf = (events: typeof deltas.events): any =>
        events.find(
          (e) => e.event === "chat" && (e.payload as any).runId === runId && (e.payload as any).state === "final",
        )?.payload;
      expect(finalOf(deltas.events)?.message.content[0].text).toBe(text);
      await deltas.client.close();
    }, 90_000);
  }
});
