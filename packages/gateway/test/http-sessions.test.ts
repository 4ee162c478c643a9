/**
 * HTTP requests are ordinary gateway runs: an HTTP request and an `agent` RPC on one session are serialized by
 * that session's lane and share its history; `user` selects a persistent session; stateless requests never
 * touch each other's sessions, even when they run at the same time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "./gateway-harness.js";
import { type HttpGateway, startHttpGateway, TOKEN, textOf } from "./http-harness.js";

let h: HttpGateway;

beforeAll(async () => {
  // followup: a message reaching a busy session waits for its own turn (the lane serializes them).
  h = await startHttpGateway({ messages: { queue: { mode: "followup" } } });
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

function userTurns(marker: string): string[] {
  const [sent] = h.requestsFor(marker);
  return (sent?.body.messages ?? [])
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => textOf(m.content));
}

describe("HTTP runs are gateway runs", () => {
  it("an HTTP request and an agent RPC on one session run one after the other and share its history", async () => {
    const { client, events } = await connectClient(h.gw.url, { token: TOKEN, caps: ["tiller.all-events"] });
    try {
      // The HTTP run streams slowly; the agent RPC arrives while it runs.
      const stream = await h.openai.chat.completions.create(
        { model: "tiller", stream: true, messages: [{ role: "user", content: "[slow:8:150] http first SHARED-1" }] },
        { headers: { "x-tiller-session-key": "shared-demo" } },
      );
      let httpText = "";
      let rpc: Promise<Record<string, unknown>> | undefined;
      let acceptedWhileBusy: boolean | undefined;
      const httpEnded = (): boolean =>
        events.some((e) => {
          const p = e.payload as { stream?: string; runId?: string; data?: { phase?: string } };
          return p.stream === "lifecycle" && p.runId?.startsWith("http-") === true && p.data?.phase === "end";
        });
      for await (const c of stream) {
        httpText += c.choices[0]?.delta.content ?? "";
        if (!rpc && httpText.length > 0) {
          rpc = client.request(
            "agent",
            { message: "rpc second SHARED-2", sessionKey: "shared-demo", idempotencyKey: "rpc-shared-2" },
            {
              expectFinal: true,
              timeoutMs: 60_000,
              onAccepted: () => {
                acceptedWhileBusy = !httpEnded();
              },
            },
          ) as Promise<Record<string, unknown>>;
        }
      }
      expect(httpText).toBe("d0 d1 d2 d3 d4 d5 d6 d7 ");
      const final = (await rpc) as { status: string; result: { payloads: { text: string }[] } };
      expect(final.status).toBe("ok");
      expect(final.result.payloads[0]?.text).toBe("echo: rpc second SHARED-2");

      // The RPC reached the session while the HTTP run held it, and its run started only after that one ended.
      expect(acceptedWhileBusy).toBe(true);
      const lifecycle = events
        .filter((e) => e.event === "agent" && (e.payload as { stream: string }).stream === "lifecycle")
        .map((e) => e.payload as { runId: string; sessionKey: string; data: { phase: string } });
      const onSession = lifecycle.filter(
        (p) => p.sessionKey === "agent:main:shared-demo" && (p.data.phase === "start" || p.data.phase === "end"),
      );
      const order = onSession.map((p) => `${p.runId.startsWith("http-") ? "http" : p.runId}:${p.data.phase}`);
      expect(order).toEqual(["http:start", "http:end", "rpc-shared-2:start", "rpc-shared-2:end"]);

      // Shared history: the RPC's model call saw the HTTP turn, and a later HTTP call sees both.
      expect(userTurns("SHARED-2")).toEqual([
        "[slow:8:150] http first SHARED-1",
        "d0 d1 d2 d3 d4 d5 d6 d7 ",
        "rpc second SHARED-2",
      ]);
      const third = await h.openai.chat.completions.create(
        // Earlier turns in the body are ignored for a persistent session: its own history is used.
        {
          model: "tiller",
          messages: [
            { role: "user", content: "ignored" },
            { role: "user", content: "third SHARED-3" },
          ],
        },
        { headers: { "x-tiller-session-key": "shared-demo" } },
      );
      expect(third.choices[0]?.message.content).toBe("echo: third SHARED-3");
      expect(userTurns("SHARED-3")).toEqual([
        "[slow:8:150] http first SHARED-1",
        "d0 d1 d2 d3 d4 d5 d6 d7 ",
        "rpc second SHARED-2",
        "echo: rpc second SHARED-2",
        "third SHARED-3",
      ]);
      const history = (await client.request("chat.history", { sessionKey: "shared-demo" })) as {
        messages: { role: string }[];
      };
      expect(history.messages.length).toBe(6);
    } finally {
      client.close();
    }
  }, 90_000);

  it("the user field selects a persistent session of its own", async () => {
    await h.openai.chat.completions.create({
      model: "tiller",
      user: "conv-a",
      messages: [{ role: "user", content: "USER-A1" }],
    });
    await h.openai.chat.completions.create({
      model: "tiller",
      user: "conv-b",
      messages: [{ role: "user", content: "USER-B1" }],
    });
    await h.openai.chat.completions.create({
      model: "tiller",
      user: "conv-a",
      messages: [{ role: "user", content: "USER-A2" }],
    });
    expect(userTurns("USER-A2")).toEqual(["USER-A1", "echo: USER-A1", "USER-A2"]);
  });

  it("concurrent stateless requests get fresh sessions and never see each other's turns", async () => {
    const ask = (tag: string) =>
      h.openai.chat.completions.create({
        model: "tiller",
        messages: [
          { role: "user", content: `earlier ${tag}` },
          { role: "assistant", content: `answer ${tag}` },
          { role: "user", content: `[slow:3:30] now ${tag}` },
        ],
      });
    const tags = ["ISO-1", "ISO-2", "ISO-3", "ISO-4"];
    const replies = await Promise.all(tags.map(ask));
    // The non-streamed reply is the shaped payload (trimmed).
    expect(replies.map((r) => r.choices[0]?.message.content)).toEqual(tags.map(() => "d0 d1 d2"));
    for (const tag of tags) {
      const turns = userTurns(`now ${tag}`);
      expect(turns).toEqual([`earlier ${tag}`, `answer ${tag}`, `[slow:3:30] now ${tag}`]);
    }
    const { client } = await connectClient(h.gw.url, { token: TOKEN });
    try {
      const list = (await client.request("sessions.list", { limit: 200 })) as { sessions: { key: string }[] };
      const fresh = list.sessions.filter((s) => s.key.startsWith("agent:main:http:"));
      expect(new Set(fresh.map((s) => s.key)).size).toBe(fresh.length);
      expect(fresh.length).toBeGreaterThanOrEqual(4);
    } finally {
      client.close();
    }
  }, 60_000);
});
