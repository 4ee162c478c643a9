/**
 * The HTTP API over the minimal engine (`TILLER_GATEWAY_ENGINE=basic`): a stateless request's history and its
 * image reach the model through BasicSession as they do through the default AgentSession engine.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HttpGateway, startHttpGateway, textOf } from "./http-harness.js";

let h: HttpGateway;

beforeAll(async () => {
  // The spawned gateway inherits the environment: select its engine for this file's gateway only.
  const before = process.env.TILLER_GATEWAY_ENGINE;
  process.env.TILLER_GATEWAY_ENGINE = "basic";
  try {
    h = await startHttpGateway();
  } finally {
    if (before === undefined) delete process.env.TILLER_GATEWAY_ENGINE;
    else process.env.TILLER_GATEWAY_ENGINE = before;
  }
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

it("history and an image reach the model through the minimal engine", async () => {
  const r = await h.openai.chat.completions.create({
    model: "tiller",
    messages: [
      { role: "user", content: "before BASIC-0" },
      { role: "assistant", content: "reply BASIC-0" },
      {
        role: "user",
        content: [
          { type: "text", text: "look BASIC-1" },
          { type: "image_url", image_url: { url: `data:image/jpeg;base64,${PNG}` } },
        ],
      },
    ],
  });
  expect(r.choices[0]?.message.content).toBe("echo: look BASIC-1");
  const [sent] = h.requestsFor("BASIC-1");
  const msgs = sent?.body.messages ?? [];
  const turns = msgs.filter((m) => m.role === "user" || m.role === "assistant").map((m) => textOf(m.content));
  expect(turns).toEqual(["before BASIC-0", "reply BASIC-0", "look BASIC-1"]);
  const parts = (msgs.at(-1)?.content ?? []) as { type: string; image_url?: { url: string } }[];
  expect(parts.find((p) => p.type === "image_url")?.image_url?.url).toBe(`data:image/jpeg;base64,${PNG}`);
});
