// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Three real gateway processes (tiller-gateway, each its own home) on one PostgreSQL, driven by real WebSocket
 * clients: runs sent round-robin to every node execute once each, in order per session, never overlapping,
 * with the session's history carried from node to node; a client on one node streams a run executing on
 * another with the same gap-free seqs; abort, steering and agent.wait reach the executing node from any node;
 * one idempotency key sent to every node makes one run; a key one node saw rate-limited is skipped by another.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { makeFaultHome, readProfiles, startFaultProvider } from "./fault-harness.js";
import { agentEvents, until } from "./gateway-harness.js";
import { until as untilValue } from "./helpers/cluster.js";
import {
  type ClusterGatewayNode,
  type ClusterSuite,
  dbClient,
  ledger,
  startClusterSuite,
  startNode,
  stopNodes,
  userTexts,
} from "./helpers/cluster-gateways.js";
import { PG_MISSING, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster: three gateway processes", () => {
  let pgs: TestPostgres;
  let mock: MockServer;
  let nodes: ClusterGatewayNode[] = [];
  let db: ClusterSuite["db"];
  let suite: ClusterSuite | undefined;

  beforeAll(async () => {
    suite = await startClusterSuite(["gw-a", "gw-b", "gw-c"], {
      http: { endpoints: { chatCompletions: { enabled: true } } },
    });
    ({ pgs, mock, nodes, db } = suite);
  }, 180_000);

  afterAll(() => suite?.stop());

  const node = (i: number): ClusterGatewayNode => nodes[i % nodes.length] as ClusterGatewayNode;

  it("100 sessions, runs sent round-robin: each once, in order, never overlapping, history carried across nodes", async () => {
    const SESSIONS = 100;
    const RUNS = 3;
    const finals: Promise<any>[] = [];
    // Each session sends its messages one after another, each to the next node, without waiting for the run:
    // the next is sent once the previous one is accepted (committed), so order is the cluster's to keep.
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        for (let i = 0; i < RUNS; i++) {
          let accepted!: () => void;
          const ack = new Promise<void>((r) => {
            accepted = r;
          });
          finals.push(
            node(s + i).client.request(
              "agent",
              { message: `rr s${s} m${i}`, idempotencyKey: `rr-${s}-${i}`, sessionKey: `rr${s}` },
              { expectFinal: true, onAccepted: () => accepted() },
            ),
          );
          await ack;
        }
      }),
    );
    const answers = await Promise.all(finals);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => "ok"));
    expect(answers.find((a) => a.runId === "rr-7-2")?.result.payloads[0].text).toBe("echo: rr s7 m2");

    const rows = (await ledger(db)).filter((r) => r.session_key.startsWith("agent:main:rr"));
    expect(rows).toHaveLength(SESSIONS * RUNS);
    const bySession = new Map<string, typeof rows>();
    for (const r of rows) bySession.set(r.session_key, [...(bySession.get(r.session_key) ?? []), r]);
    for (const [key, runs] of bySession) {
      const s = key.slice("agent:main:rr".length);
      expect(runs.map((r) => r.run_id)).toEqual(Array.from({ length: RUNS }, (_, i) => `rr-${s}-${i}`));
      for (let i = 1; i < runs.length; i++) {
        // The next run of a session starts only after the previous one ended, on whichever node.
        expect(Number(runs[i]?.started_at)).toBeGreaterThanOrEqual(Number(runs[i - 1]?.ended_at));
      }
    }
    // More than one node executed, and at no moment were more than the cap (4) running cluster-wide.
    expect(new Set(rows.map((r) => r.node_id)).size).toBeGreaterThan(1);
    const edges = rows.flatMap((r) => [
      { t: Number(r.started_at), d: 1 },
      { t: Number(r.ended_at), d: -1 },
    ]);
    edges.sort((a, b) => a.t - b.t || a.d - b.d);
    let running = 0;
    let peak = 0;
    for (const e of edges) {
      running += e.d;
      peak = Math.max(peak, running);
    }
    expect(peak).toBeLessThanOrEqual(4);
    // The model saw each session's whole conversation in order, wherever the earlier runs had executed.
    for (let s = 0; s < SESSIONS; s += 9) {
      const last = mock.requests.find((r) => userTexts(r.body).at(-1) === `rr s${s} m${RUNS - 1}`);
      expect(userTexts(last?.body)).toEqual(Array.from({ length: RUNS }, (_, i) => `rr s${s} m${i}`));
    }
    // The transcript is in PostgreSQL: every user message of the session, in order.
    const { rows: entries } = await db.query<{ entry: any }>(
      `SELECT e.entry FROM cluster_transcript_entries e JOIN cluster_sessions s ON s.session_id = e.session_id
       WHERE s.key = 'agent:main:rr3' ORDER BY e.pos`,
    );
    const users = entries
      .filter((e) => e.entry.type === "message" && e.entry.message.role === "user")
      .map((e) => userTexts({ messages: [e.entry.message] })[0]);
    expect(users).toEqual(["rr s3 m0", "rr s3 m1", "rr s3 m2"]);
  }, 240_000);

  it("a client on one node streams a run executing on another: same events, gap-free seq", async () => {
    const key = "agent:main:stream1";
    for (const n of nodes) await n.client.request("sessions.subscribe", { key });
    const before = nodes.map((n) => n.events.length);
    const final: any = await node(0).client.request(
      "agent",
      { message: "stream [slow:12:20]", idempotencyKey: "stream-1", sessionKey: key },
      { expectFinal: true },
    );
    expect(final.status).toBe("ok");
    const [row] = (await ledger(db)).filter((r) => r.run_id === "stream-1");
    const executor = nodes.findIndex((n) => n.name === row?.node_id);
    expect(executor).toBeGreaterThanOrEqual(0);
    // Every client sees the end, then compares its view of the run with the executing node's own clients'.
    const views = await Promise.all(
      nodes.map(async (n, i) => {
        const mine = () => agentEvents(n.events.slice(before[i]), "stream-1");
        await until(
          () => mine().some((e) => e.stream === "lifecycle" && e.data.phase === "end"),
          30_000,
          `${n.name} to see the run end`,
        );
        return mine();
      }),
    );
    const local = views[executor] as ReturnType<typeof agentEvents>;
    expect(local.map((e) => e.seq)).toEqual(local.map((_, i) => i + 1));
    expect(local.filter((e) => e.stream === "assistant").length).toBeGreaterThan(1);
    for (const [i, v] of views.entries()) {
      if (i === executor) continue;
      expect(v.map((e) => e.seq)).toEqual(local.map((e) => e.seq));
      expect(v.map((e) => `${e.stream}:${e.data.phase ?? ""}`)).toEqual(
        local.map((e) => `${e.stream}:${e.data.phase ?? ""}`),
      );
    }
    const text = (v: ReturnType<typeof agentEvents>) =>
      v
        .filter((e) => e.stream === "assistant")
        .map((e) => e.data.delta)
        .join("");
    expect(text(views[(executor + 1) % 3] as ReturnType<typeof agentEvents>)).toBe(
      Array.from({ length: 12 }, (_, i) => `d${i} `).join(""),
    );
    // The session index is shared: nodes that never saw this session list it, with its tokens.
    for (const i of [1, 2]) {
      const listed: any = await node(i).client.request("sessions.list", { search: "stream1" });
      expect(listed.sessions.map((s: any) => s.key)).toEqual([key]);
      expect(listed.sessions[0]).toMatchObject({ inputTokens: 10, outputTokens: 5 });
      expect(listed.sessions[0].lastRun).toEqual({ runId: "stream-1", status: "ok" });
    }
  }, 120_000);

  async function runningOn(runId: string): Promise<number> {
    let found = -1;
    const deadline = Date.now() + 60_000;
    while (found < 0 && Date.now() < deadline) {
      const [row] = (await ledger(db)).filter((r) => r.run_id === runId && r.status === "running");
      if (row) found = nodes.findIndex((n) => n.name === row.node_id);
      else await new Promise((r) => setTimeout(r, 50));
    }
    if (found < 0) throw new Error(`run ${runId} never ran`);
    return found;
  }

  it("chat.abort and agent.wait sent to other nodes reach the node executing the run", async () => {
    const key = "agent:main:abort1";
    const final = node(0).client.request(
      "agent",
      { message: "long [slow:400:25]", idempotencyKey: "abort-1", sessionKey: key },
      { expectFinal: true },
    ) as Promise<any>;
    const executor = await runningOn("abort-1");
    const other = (executor + 1) % 3;
    const waiter = node(executor + 2).client.request("agent.wait", {
      runId: "abort-1",
      timeoutMs: 60_000,
    }) as Promise<any>;
    const res: any = await node(other).client.request("chat.abort", { sessionKey: key });
    expect(res).toMatchObject({ ok: true, aborted: true, runIds: ["abort-1"] });
    const end = await final;
    expect(end.status).toBe("error");
    expect(end.error.kind).toBe("aborted");
    expect((await waiter).status).toBe("error");
    const [row] = (await ledger(db)).filter((r) => r.run_id === "abort-1");
    expect(row?.status).toBe("aborted");
    // Far fewer than the 400 deltas were streamed: the engine was stopped, not run to its end.
    const deltas = agentEvents(node(0).events, "abort-1").filter((e) => e.stream === "assistant").length;
    expect(deltas).toBeLessThan(400);
    // The session serves the next run.
    const next: any = await node(other).client.request(
      "agent",
      { message: "after abort", idempotencyKey: "abort-2", sessionKey: key },
      { expectFinal: true },
    );
    expect(next.status).toBe("ok");
  }, 120_000);

  it("a message steered into a run executing on another node reaches its model loop", async () => {
    const key = "agent:main:steer1";
    const first = node(1).client.request(
      "agent",
      { message: "first [slow:40:30]", idempotencyKey: "steer-1", sessionKey: key },
      { expectFinal: true },
    ) as Promise<any>;
    const executor = await runningOn("steer-1");
    const other = (executor + 1) % 3;
    // The session's queue mode, set on a third node, is the cluster's: the node that gets the message steers.
    await node(other + 1).client.request("sessions.patch", { key, queueMode: "steer" });
    const steered: any = await node(other).client.request(
      "agent",
      { message: "steered in", idempotencyKey: "steer-2", sessionKey: key },
      { expectFinal: true },
    );
    const main = await first;
    expect(main.status).toBe("ok");
    expect(steered.status).toBe("ok");
    // Both messages were answered by the one run: the model got the steered message within it.
    const call = mock.requests.find((r) => userTexts(r.body).at(-1) === "steered in");
    expect(userTexts(call?.body)).toEqual(["first [slow:40:30]", "steered in"]);
    // Its idempotency key holds on every node: a retry to the executing node gets the answer, not a second steer.
    const retry: any = await node(executor).client.request(
      "agent",
      { message: "steered in", idempotencyKey: "steer-2", sessionKey: key },
      { expectFinal: true },
    );
    expect(retry.status).toBe("ok");
    expect(mock.requests.filter((r) => userTexts(r.body).at(-1) === "steered in")).toHaveLength(1);
    const rows = (await ledger(db)).filter((r) => r.session_key === key);
    expect(rows.map((r) => r.run_id)).toEqual(["steer-1"]);
  }, 120_000);

  it("one idempotency key sent to every node at once makes one run, and every node answers with it", async () => {
    const answers: any[] = await Promise.all(
      nodes.map((n) =>
        n.client.request(
          "agent",
          { message: "once only", idempotencyKey: "idem-1", sessionKey: "idem1" },
          { expectFinal: true },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(["ok", "ok", "ok"]);
    for (const a of answers) expect(a.result.payloads[0].text).toBe("echo: once only");
    expect((await ledger(db)).filter((r) => r.run_id === "idem-1")).toHaveLength(1);
    expect(mock.requests.filter((r) => userTexts(r.body).at(-1) === "once only")).toHaveLength(1);
    // A retry long after, to yet another node, gets the recorded run, not a second one.
    const again: any = await node(2).client.request(
      "agent",
      { message: "once only", idempotencyKey: "idem-1", sessionKey: "idem1" },
      { expectFinal: true },
    );
    expect(again.status).toBe("ok");
    expect(mock.requests.filter((r) => userTexts(r.body).at(-1) === "once only")).toHaveLength(1);
  }, 120_000);

  it("HTTP chat completions on any node stream the run wherever it executes", async () => {
    const streamed = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const via = node(i);
        const res = await fetch(`http://127.0.0.1:${via.gw.port}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-tiller-session-key": `http${i}` },
          body: JSON.stringify({
            model: "tiller/main",
            stream: true,
            messages: [{ role: "user", content: `http ${i} [slow:6:20]` }],
          }),
        });
        expect(res.status).toBe(200);
        const body = await res.text();
        const chunks = body
          .split("\n")
          .filter((l) => l.startsWith("data: {"))
          .map((l) => JSON.parse(l.slice(6)));
        return { via: via.name, text: chunks.map((c) => c.choices[0]?.delta?.content ?? "").join(""), done: body };
      }),
    );
    for (const s of streamed) {
      expect(s.text).toBe("d0 d1 d2 d3 d4 d5 ");
      expect(s.done).toContain("data: [DONE]");
    }
    const rows = (await ledger(db)).filter((r) => r.session_key.startsWith("agent:main:http"));
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => "ok"));
    expect(rows).toHaveLength(6);
    // At least one of them executed on another node than the one its client talked to.
    const viaOf = (key: string) => node(Number(key.slice("agent:main:http".length))).name;
    expect(rows.some((r) => r.node_id !== viaOf(r.session_key))).toBe(true);
  }, 120_000);

  it("sessions.reset on one node starts a new conversation for the session's next run on any node", async () => {
    const ask = (i: number, message: string, id: string) =>
      node(i).client.request("agent", { message, idempotencyKey: id, sessionKey: "reset1" }, { expectFinal: true });
    expect(((await ask(0, "before reset one", "reset-1")) as any).status).toBe("ok");
    expect(((await ask(1, "before reset two", "reset-2")) as any).status).toBe("ok");
    const seen = mock.requests.find((r) => userTexts(r.body).at(-1) === "before reset two");
    expect(userTexts(seen?.body)).toEqual(["before reset one", "before reset two"]);
    await node(1).client.request("sessions.reset", { key: "reset1" });
    for (const [i, m] of [
      [2, "after reset one"],
      [0, "after reset two"],
    ] as const) {
      expect(((await ask(i, m, `reset-${m}`)) as any).status).toBe("ok");
    }
    const after = mock.requests.find((r) => userTexts(r.body).at(-1) === "after reset two");
    expect(userTexts(after?.body)).toEqual(["after reset one", "after reset two"]);
  }, 120_000);

  it("a key rate-limited on one gateway is in cooldown on another (shared through PostgreSQL)", async () => {
    const faults = await startFaultProvider();
    const authUrl = await pgs.createDatabase();
    const homes = ["auth-a", "auth-b"].map((n) => {
      const home = makeFaultHome(faults);
      const cfg = { gateway: { cluster: { postgres: authUrl, nodeId: n } } };
      const raw = JSON.parse(readFileSync(join(home, "tiller.json"), "utf8"));
      writeFileSync(join(home, "tiller.json"), JSON.stringify({ ...raw, ...cfg }));
      return home;
    });
    const a = await startNode("auth-a", homes[0] as string);
    let b: ClusterGatewayNode | undefined;
    try {
      // On A: the first key answers 429, the run goes on with the second.
      const first: any = await a.client.request(
        "agent",
        { message: "limited [fault:429:1]", idempotencyKey: "auth-1", sessionKey: "auth1" },
        { expectFinal: true },
      );
      expect(first.status).toBe("ok");
      expect(faults.requestsFor("limited").map((r) => r.key)).toEqual(["key-a", "key-b"]);
      expect(readProfiles(a.home).usage["mock:a"]?.cooldownUntil).toBeGreaterThan(Date.now());
      const authDb = await dbClient(authUrl);
      try {
        const shared = await untilValue("the cooldown to reach the database", async () => {
          const r = await authDb.query<{ usage: any }>(
            "SELECT usage FROM cluster_auth_usage WHERE profile_id = 'mock:a'",
          );
          return r.rows[0]?.usage.cooldownUntil ? r.rows[0].usage : undefined;
        });
        expect(shared.cooldownUntil).toBeGreaterThan(Date.now());
      } finally {
        await authDb.end();
      }
      // A leaves; B, whose own file never saw a failure, executes the next run and does not try key-a first.
      await a.gw.stop();
      b = await startNode("auth-b", homes[1] as string);
      expect(readProfiles(b.home).usage["mock:a"]?.cooldownUntil).toBeUndefined();
      const second: any = await b.client.request(
        "agent",
        { message: "after the limit", idempotencyKey: "auth-2", sessionKey: "auth2" },
        { expectFinal: true },
      );
      expect(second.status).toBe("ok");
      expect(faults.requestsFor("after the limit").map((r) => r.key)).toEqual(["key-b"]);
    } finally {
      await stopNodes([a, ...(b ? [b] : [])]);
      await faults.close();
    }
  }, 120_000);
});
