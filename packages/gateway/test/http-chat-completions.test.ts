/**
 * `POST /v1/chat/completions` and `/v1/models` through the official `openai` SDK against a real gateway process
 * with a scripted provider: replies, streaming chunks and usage, history of a stateless request, images reaching
 * the model, 400s naming the field, a client abort ending the run, and a run failing mid-stream.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, until } from "./gateway-harness.js";
import { type HttpGateway, rawFetch, startHttpGateway, textOf, USAGE } from "./http-harness.js";

let h: HttpGateway;

beforeAll(async () => {
  h = await startHttpGateway();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("chat completions", () => {
  it("answers with the run's reply and its real usage", async () => {
    const r = await h.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "hello plain" }],
    });
    expect(r.object).toBe("chat.completion");
    expect(r.choices[0]?.message.role).toBe("assistant");
    expect(r.choices[0]?.message.content).toBe("echo: hello plain");
    expect(r.choices[0]?.finish_reason).toBe("stop");
    expect(r.usage).toEqual({ prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: 30 });
    expect(r.model).toBe("tiller");
  });

  it("streams chat.completion.chunk deltas, a finish chunk, the usage chunk and [DONE]", async () => {
    const stream = await h.openai.chat.completions.create({
      model: "tiller/main",
      messages: [{ role: "user", content: "[slow:5:20] stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("d0 d1 d2 d3 d4 ");
    // Deltas arrive one by one, not as one block at the end.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThanOrEqual(5);
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish?.choices[0]?.finish_reason).toBe("stop");
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual({ prompt_tokens: 23, completion_tokens: 7, total_tokens: 30 });
  });

  it("ends the raw stream with data: [DONE], and sends no usage chunk unless asked", async () => {
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer http-test-token", "content-type": "application/json" },
      body: JSON.stringify({ model: "tiller", stream: true, messages: [{ role: "user", content: "raw sse" }] }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const body = await res.text();
    const events = body.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, "")));
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("echo: raw sse");
  });

  it("a reply cut at the output limit finishes with finish_reason length", async () => {
    const r = await h.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "[length] go" }],
    });
    expect(r.choices[0]?.finish_reason).toBe("length");
    expect(r.choices[0]?.message.content).toBe("cut short");
  });

  it("temperature and the token cap reach the model call", async () => {
    await h.openai.chat.completions.create({
      model: "tiller",
      temperature: 0.3,
      max_completion_tokens: 123,
      messages: [{ role: "user", content: "sampled SAMPLE-1" }],
    });
    const [sent] = h.requestsFor("SAMPLE-1");
    const body = sent?.body as unknown as { temperature?: number; max_completion_tokens?: number; max_tokens?: number };
    expect(body.temperature).toBe(0.3);
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(123);
    await h.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "plain SAMPLE-2" }],
    });
    const plain = h.requestsFor("SAMPLE-2")[0]?.body as unknown as { temperature?: number };
    expect(plain.temperature).toBeUndefined();
  });

  it("in steer mode a request reaching a busy session joins its run and gets that run's answer", async () => {
    const headers = { "x-tiller-session-key": "steer-demo" };
    const { client, events } = await connectClient(h.gw.url, { token: "http-test-token", caps: ["tiller.all-events"] });
    const stream = await h.openai.chat.completions.create(
      { model: "tiller", stream: true, messages: [{ role: "user", content: "[slow:6:250] first STEER-1" }] },
      { headers },
    );
    let joined: Promise<OpenAI.ChatCompletion> | undefined;
    let streamed = "";
    for await (const c of stream) {
      streamed += c.choices[0]?.delta.content ?? "";
      joined ??= h.openai.chat.completions.create(
        { model: "tiller", messages: [{ role: "user", content: "second STEER-2" }] },
        { headers },
      );
    }
    const second = await joined;
    // The steered message got its own model turn inside the first run, and its answer carries that turn.
    expect(second?.choices[0]?.message.content).toContain("echo: second STEER-2");
    expect(streamed).toContain("d0 d1");
    const [sent] = h.requestsFor("STEER-2");
    const users = (sent?.body.messages ?? []).filter((m) => m.role === "user").map((m) => textOf(m.content));
    expect(users).toEqual(["[slow:6:250] first STEER-1", "second STEER-2"]);
    // One run served both requests: the session saw a single lifecycle start.
    const starts = events.filter((e) => {
      const p = e.payload as { stream?: string; sessionKey?: string; data?: { phase?: string } };
      return p.stream === "lifecycle" && p.sessionKey === "agent:main:steer-demo" && p.data?.phase === "start";
    });
    expect(starts.length).toBe(1);
    client.close();
  }, 60_000);

  it("x-tiller-agent-id picks the agent whatever model the client hard-codes", async () => {
    const r = await h.openai.chat.completions.create(
      { model: "gpt-4o", messages: [{ role: "user", content: "any model name" }] },
      { headers: { "x-tiller-agent-id": "main" } },
    );
    expect(r.choices[0]?.message.content).toBe("echo: any model name");
    expect(r.model).toBe("gpt-4o");
  });

  it("a stateless request's system and earlier turns reach the model as system prompt and history", async () => {
    const r = await h.openai.chat.completions.create({
      model: "tiller",
      messages: [
        { role: "system", content: "SYSTEM-MARK be terse" },
        { role: "user", content: "first question HISTQ" },
        { role: "assistant", content: "first answer HISTA" },
        { role: "user", content: "second question HIST2" },
      ],
    });
    expect(r.choices[0]?.message.content).toBe("echo: second question HIST2");
    const [sent] = h.requestsFor("HIST2");
    expect(sent).toBeDefined();
    const msgs = sent?.body.messages ?? [];
    const system = msgs.find((m) => m.role === "system" || m.role === "developer");
    expect(textOf(system?.content)).toContain("SYSTEM-MARK be terse");
    const turns = msgs.filter((m) => m.role === "user" || m.role === "assistant").map((m) => textOf(m.content));
    expect(turns).toEqual(["first question HISTQ", "first answer HISTA", "second question HIST2"]);
  });

  it("an image_url data URL reaches a model that accepts images", async () => {
    await h.openai.chat.completions.create({
      model: "tiller",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is in IMG-MARK" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1PX}` } },
          ],
        },
      ],
    });
    const [sent] = h.requestsFor("IMG-MARK");
    const user = sent?.body.messages.filter((m) => m.role === "user").at(-1);
    const parts = user?.content as { type: string; image_url?: { url: string } }[];
    expect(Array.isArray(parts)).toBe(true);
    const image = parts.find((p) => p.type === "image_url");
    expect(image?.image_url?.url).toBe(`data:image/png;base64,${PNG_1PX}`);
  });

  it("answers 400 naming the field, for bad bodies, and keeps serving", async () => {
    const noMessages = await rawFetch(h.baseURL, "/chat/completions", { body: { model: "tiller" } });
    expect(noMessages.status).toBe(400);
    expect(noMessages.json.error?.type).toBe("invalid_request_error");
    expect(noMessages.json.error?.param).toBe("messages");
    expect(noMessages.json.error?.message).toMatch(/messages/);

    const badRole = await rawFetch(h.baseURL, "/chat/completions", {
      body: { model: "tiller", messages: [{ role: "robot", content: "x" }] },
    });
    expect(badRole.status).toBe(400);
    expect(badRole.json.error?.param).toBe("messages[0].role");
    expect(badRole.json.error?.message).toMatch(/messages\[0\]\.role: expected one of/);

    const badTemp = await rawFetch(h.baseURL, "/chat/completions", {
      body: { model: "tiller", temperature: 7, messages: [{ role: "user", content: "x" }] },
    });
    expect(badTemp.status).toBe(400);
    expect(badTemp.json.error?.param).toBe("temperature");

    const notJson = await rawFetch(h.baseURL, "/chat/completions", { body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error?.code).toBe("invalid_json");

    const noUser = await rawFetch(h.baseURL, "/chat/completions", {
      body: { model: "tiller", messages: [{ role: "system", content: "only system" }] },
    });
    expect(noUser.status).toBe(400);
    expect(noUser.json.error?.param).toBe("messages");

    const badImage = await rawFetch(h.baseURL, "/chat/completions", {
      body: {
        model: "tiller",
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/x.png" } }] }],
      },
    });
    expect(badImage.status).toBe(400);
    expect(badImage.json.error?.param).toBe("messages[0].content[0].image_url");

    const unknownAgent = await rawFetch(h.baseURL, "/chat/completions", {
      body: { model: "tiller/nobody", messages: [{ role: "user", content: "x" }] },
    });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.json.error?.code).toBe("model_not_found");

    const badAgent = await rawFetch(h.baseURL, "/chat/completions", {
      headers: { "x-tiller-agent-id": "ghost" },
      body: { model: "gpt-4o", messages: [{ role: "user", content: "x" }] },
    });
    expect(badAgent.status).toBe(400);
    expect(badAgent.json.error?.param).toBe("x-tiller-agent-id");

    const big = await rawFetch(h.baseURL, "/chat/completions", {
      body: { model: "tiller", messages: [{ role: "user", content: "x".repeat(21 * 1024 * 1024) }] },
    });
    expect(big.status).toBe(413);

    const ok = await h.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "still up" }],
    });
    expect(ok.choices[0]?.message.content).toBe("echo: still up");
  });

  it("the SDK's stream ends with an error, never a hang, when the run fails mid-stream", async () => {
    const stream = await h.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "[cut] fail midway" }],
      stream: true,
    });
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const c of stream) seen.push(c.choices[0]?.delta.content ?? "");
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).not.toBe("");
    expect(seen[0]).toBe("");
  }, 60_000);

  it("a client that disconnects mid-stream aborts its run (its run ends aborted)", async () => {
    const { client, events } = await connectClient(h.gw.url, { token: "http-test-token", caps: ["tiller.all-events"] });
    try {
      const ac = new AbortController();
      const stream = await h.openai.chat.completions.create(
        { model: "tiller", messages: [{ role: "user", content: "[hang] abort me" }], stream: true },
        { signal: ac.signal },
      );
      let got = "";
      try {
        for await (const c of stream) {
          got += c.choices[0]?.delta.content ?? "";
          if (got.includes("hang")) ac.abort();
        }
      } catch {
        // The SDK reports the abort; the gateway's side is what this test checks.
      }
      expect(got).toContain("hang");
      // The run's lifecycle ends as aborted, on the gateway's own event stream.
      await until(
        () =>
          events.some((e) => {
            const p = e.payload as { stream?: string; runId?: string; data?: { phase?: string; aborted?: boolean } };
            return (
              e.event === "agent" &&
              p.stream === "lifecycle" &&
              p.runId?.startsWith("http-") === true &&
              p.data?.aborted === true
            );
          }),
        30_000,
        "the aborted run's lifecycle end",
      );
    } finally {
      client.close();
    }
  }, 60_000);
});

describe("non-streaming abort", () => {
  it("a client that gives up on a non-streaming request aborts its run", async () => {
    const { client, events } = await connectClient(h.gw.url, { token: "http-test-token", caps: ["tiller.all-events"] });
    try {
      const ac = new AbortController();
      const started = until(
        () =>
          events.some(
            (e) =>
              e.event === "agent" &&
              (e.payload as { stream?: string; data?: { delta?: string } }).data?.delta?.startsWith("hang") === true,
          ),
        30_000,
        "the first delta",
      );
      const pending = h.openai.chat.completions
        .create({ model: "tiller", messages: [{ role: "user", content: "[hang] give up" }] }, { signal: ac.signal })
        .catch((e: unknown) => e);
      await started;
      ac.abort();
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      await until(
        () =>
          events.some((e) => {
            const p = e.payload as { stream?: string; runId?: string; data?: { aborted?: boolean } };
            return p.stream === "lifecycle" && p.runId?.startsWith("http-") === true && p.data?.aborted === true;
          }),
        30_000,
        "the aborted run's end",
      );
    } finally {
      client.close();
    }
  }, 60_000);
});

describe("models", () => {
  it("lists the agents as models and fetches one by id", async () => {
    const list = [];
    for await (const m of h.openai.models.list()) list.push(m);
    expect(list.map((m) => m.id)).toEqual(["tiller", "tiller/main"]);
    expect(list.every((m) => m.object === "model" && m.owned_by === "tiller")).toBe(true);
    const one = await h.openai.models.retrieve("tiller/main");
    expect(one.id).toBe("tiller/main");
    const alias = await rawFetch(h.baseURL, "/models/openclaw%2Fmain");
    expect(alias.status).toBe(200);
    expect(alias.json.id).toBe("tiller/main");
    const missing = await rawFetch(h.baseURL, "/models/tiller%2Fghost");
    expect(missing.status).toBe(404);
    expect(missing.json.error?.code).toBe("model_not_found");
  });
});
