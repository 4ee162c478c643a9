/**
 * `POST /v1/responses` through the official `openai` SDK against a real gateway process: a reply with real
 * usage, the streamed event sequence, `previous_response_id` continuing the earlier response's session, and
 * `instructions`, unknown previous ids and mid-stream failures.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpGateway, rawFetch, startHttpGateway, textOf } from "./http-harness.js";

let h: HttpGateway;

beforeAll(async () => {
  h = await startHttpGateway();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

describe("responses", () => {
  it("answers with a completed response, its output text and the run's usage", async () => {
    const r = await h.openai.responses.create({ model: "tiller", input: "hello responses" });
    expect(r.object).toBe("response");
    expect(r.status).toBe("completed");
    expect(r.id).toMatch(/^resp_/);
    expect(r.output_text).toBe("echo: hello responses");
    expect(r.output[0]?.type).toBe("message");
    expect(r.usage?.input_tokens).toBe(23);
    expect(r.usage?.output_tokens).toBe(7);
    expect(r.usage?.total_tokens).toBe(30);
  });

  it("streams created → in_progress → item/part added → text deltas → done events → completed", async () => {
    const stream = await h.openai.responses.create({ model: "tiller", input: "[slow:4:20] stream it", stream: true });
    const events = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    const firstDelta = types.indexOf("response.output_text.delta");
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(firstDelta).toBe(4);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas.join("")).toBe("d0 d1 d2 d3 ");
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    const seqs = events.map((e) => e.sequence_number);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const done = events.at(-1);
    const item = done?.type === "response.completed" ? done.response.output[0] : undefined;
    const part = item?.type === "message" ? item.content[0] : undefined;
    expect(part?.type === "output_text" && part.text).toBe("d0 d1 d2 d3 ");
    expect(done?.type === "response.completed" && done.response.usage?.output_tokens).toBe(7);
  });

  it("previous_response_id continues the earlier response's session: its turns are the history", async () => {
    const first = await h.openai.responses.create({
      model: "tiller",
      instructions: "INSTR-MARK answer briefly",
      input: [{ role: "user", content: "remember PREV-ONE" }],
    });
    expect(first.output_text).toBe("echo: remember PREV-ONE");
    const second = await h.openai.responses.create({
      model: "tiller",
      previous_response_id: first.id,
      input: "what did I say PREV-TWO",
    });
    expect(second.output_text).toBe("echo: what did I say PREV-TWO");
    expect(second.previous_response_id).toBe(first.id);
    const [sent1] = h.requestsFor("PREV-ONE");
    const system = sent1?.body.messages.find((m) => m.role === "system" || m.role === "developer");
    expect(textOf(system?.content)).toContain("INSTR-MARK answer briefly");
    const [sent2] = h.requestsFor("PREV-TWO");
    const turns = (sent2?.body.messages ?? [])
      .filter((m) => m.role === "user" || m.role === "assistant")
      .map((m) => textOf(m.content));
    expect(turns).toEqual(["remember PREV-ONE", "echo: remember PREV-ONE", "what did I say PREV-TWO"]);

    // A third response chained on the second sees both earlier turns.
    const third = await h.openai.responses.create({
      model: "tiller",
      previous_response_id: second.id,
      input: "PREV-THREE",
    });
    expect(third.output_text).toBe("echo: PREV-THREE");
    const [sent3] = h.requestsFor("PREV-THREE");
    expect(sent3?.body.messages.filter((m) => m.role === "user").length).toBe(3);
  });

  it("a stateless request never sees another's turns", async () => {
    await h.openai.responses.create({ model: "tiller", input: "lonely ALONE-ONE" });
    await h.openai.responses.create({ model: "tiller", input: "lonely ALONE-TWO" });
    const [sent] = h.requestsFor("ALONE-TWO");
    const users = (sent?.body.messages ?? []).filter((m) => m.role === "user").map((m) => textOf(m.content));
    expect(users).toEqual(["lonely ALONE-TWO"]);
  });

  it("an input_image data URL reaches a model that accepts images", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const r = await h.openai.responses.create({
      model: "tiller",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "describe RESP-IMG" },
            { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" },
          ],
        },
      ],
    });
    expect(r.output_text).toBe("echo: describe RESP-IMG");
    const [sent] = h.requestsFor("RESP-IMG");
    const user = sent?.body.messages.filter((m) => m.role === "user").at(-1);
    const parts = (user?.content ?? []) as { type: string; image_url?: { url: string } }[];
    expect(parts.find((p) => p.type === "image_url")?.image_url?.url).toBe(`data:image/png;base64,${png}`);
  });

  it("a reply cut at the output limit is an incomplete response, streamed as response.incomplete", async () => {
    const r = await h.openai.responses.create({ model: "tiller", input: "[length] long story" });
    expect(r.status).toBe("incomplete");
    expect(r.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(r.output_text).toBe("cut short");
    const stream = await h.openai.responses.create({ model: "tiller", input: "[length] again", stream: true });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    expect(types.at(-1)).toBe("response.incomplete");
    expect(types).not.toContain("response.completed");
  });

  it("temperature and max_output_tokens reach the model call", async () => {
    await h.openai.responses.create({ model: "tiller", temperature: 1.5, max_output_tokens: 77, input: "RESP-SAMPLE" });
    const body = h.requestsFor("RESP-SAMPLE")[0]?.body as unknown as {
      temperature?: number;
      max_completion_tokens?: number;
      max_tokens?: number;
    };
    expect(body.temperature).toBe(1.5);
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(77);
  });

  it("an unknown previous_response_id is a 400 naming it", async () => {
    const r = await rawFetch(h.baseURL, "/responses", {
      body: { model: "tiller", input: "x", previous_response_id: "resp_bm9wZQ_0123456789abcdef0123456789abcdef" },
    });
    expect(r.status).toBe(400);
    expect(r.json.error?.param).toBe("previous_response_id");
    const bad = await rawFetch(h.baseURL, "/responses", { body: { model: "tiller", input: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error?.param).toBe("input");
  });

  it("a run failing mid-stream ends the stream with response.failed, then [DONE]", async () => {
    const res = await fetch(`${h.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: "Bearer http-test-token", "content-type": "application/json" },
      body: JSON.stringify({ model: "tiller", stream: true, input: "[cut] break" }),
    });
    const body = await res.text();
    const blocks = body.split("\n\n").filter(Boolean);
    expect(blocks.at(-1)).toBe("data: [DONE]");
    const failed = blocks.at(-2) ?? "";
    expect(failed.split("\n")[0]).toBe("event: response.failed");
    const data = JSON.parse(failed.split("\n")[1]?.replace(/^data: /, "") ?? "{}");
    expect(data.response.status).toBe("failed");
    expect(data.response.error.message).toBeTruthy();
  }, 60_000);
});
