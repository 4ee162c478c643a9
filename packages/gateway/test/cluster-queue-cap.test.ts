// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * The session queue's policy across two gateway processes, as a single gateway applies it
 * (gateway-queue-modes.test.ts): messages sent to either node while the session's run executes on one of them
 * are held to the session's cap (`drop: new` refuses the newcomer, `old` answers the oldest dropped,
 * `summarize` carries the dropped one into the next turn, which answers it too); `interrupt` sent to the node
 * that does not execute the run aborts it there, drops what waits and runs the newest; a queued message is
 * taken back from the other node; `/queue` on one node sets the policy every node applies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { until } from "./helpers/cluster.js";
import {
  type ClusterGatewayNode,
  type ClusterSuite,
  startClusterSuite,
  userTexts,
} from "./helpers/cluster-gateways.js";
import { PG_MISSING } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster: queue cap, drop policies and interrupt on two nodes", () => {
  let mock: MockServer;
  let nodes: ClusterGatewayNode[] = [];
  let db: ClusterSuite["db"];
  let suite: ClusterSuite | undefined;

  beforeAll(async () => {
    suite = await startClusterSuite(["gw-a", "gw-b"]);
    ({ mock, nodes, db } = suite);
  }, 180_000);

  afterAll(() => suite?.stop());

  const node = (i: number): ClusterGatewayNode => nodes[i % 2] as ClusterGatewayNode;
  const status = async (runId: string): Promise<string | undefined> =>
    (await db.query("SELECT status FROM cluster_runs WHERE run_id = $1", [runId])).rows[0]?.status;
  const callsWith = (tag: string) => mock.requests.filter((r) => userTexts(r.body).some((t) => t.includes(tag)));

  /** Sends `agent` to node `i` and resolves once it is accepted (committed); `final` is its end. */
  async function send(
    i: number,
    key: string,
    id: string,
    message: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ final: Promise<any> }> {
    let accepted!: () => void;
    const ack = new Promise<void>((r) => {
      accepted = r;
    });
    const final = node(i).client.request(
      "agent",
      { message, idempotencyKey: id, sessionKey: key, ...extra },
      { expectFinal: true, onAccepted: () => accepted() },
    ) as Promise<any>;
    await Promise.race([ack, final]);
    return { final };
  }

  /** Starts a slow run on node 0 and waits until a node executes it; returns its end and that node's name. */
  async function busy(key: string, id: string, message = "busy [slow:60:50]") {
    const { final } = await send(0, key, id, message);
    const executor = await until(`${id} running`, async () => {
      const { rows } = await db.query("SELECT node_id FROM cluster_runs WHERE run_id = $1 AND status = 'running'", [
        id,
      ]);
      return rows[0]?.node_id as string | undefined;
    });
    return { final, executor };
  }

  it("drop:new set by /queue on one node: a message over the cap sent to the other node is refused", async () => {
    const key = "agent:main:capnew";
    const set: any = await node(0).client.request(
      "agent",
      { message: "/queue followup cap:1 drop:new", idempotencyKey: "cn-cmd", sessionKey: key },
      { expectFinal: true },
    );
    expect(set.result.payloads[0].text).toBe("Queue set: followup (debounce 500ms, cap 1, drop new).");
    const first = await busy(key, "cn-0");
    const two = await send(1, key, "cn-1", "cn two");
    const three = await send(0, key, "cn-2", "cn three");
    expect(await status("cn-0")).toBe("running"); // both came while the session was busy
    const [f0, f1, f2] = await Promise.all([first.final, two.final, three.final]);
    expect(f0.status).toBe("ok");
    expect(f1.status).toBe("ok");
    expect(f1.result.payloads[0].text).toBe("echo: cn two");
    expect(f2.status).toBe("error");
    expect(f2.summary).toBe("queue full (cap 1): message dropped");
    expect(callsWith("cn three")).toHaveLength(0);
    expect(await status("cn-2")).toBe("error");
  }, 120_000);

  it("drop:old: the oldest waiting message is answered as dropped, the newer one runs", async () => {
    const key = "agent:main:capold";
    await node(1).client.request("sessions.patch", { key, queueMode: "followup", queueCap: 1, queueDrop: "old" });
    const first = await busy(key, "co-0");
    const b = await send(0, key, "co-1", "co b");
    const c = await send(1, key, "co-2", "co c");
    expect(await status("co-0")).toBe("running");
    const [, fb, fc] = await Promise.all([first.final, b.final, c.final]);
    expect(fb.status).toBe("error");
    expect(fb.summary).toBe("queue full (cap 1): dropped for a newer message");
    expect(fc.status).toBe("ok");
    expect(fc.result.payloads[0].text).toBe("echo: co c");
    expect(callsWith("co b")).toHaveLength(0);
  }, 120_000);

  it("drop:summarize: the dropped message is summarized into the next turn, whose answer answers it too", async () => {
    const key = "agent:main:capsum";
    await node(0).client.request("sessions.patch", {
      key,
      queueMode: "followup",
      queueCap: 1,
      queueDrop: "summarize",
    });
    const first = await busy(key, "cs-0", "busy [slow:100:50]");
    const two = await send(1, key, "cs-1", "cs two dropped");
    const three = await send(0, key, "cs-2", "cs three kept");
    // Every node shows the cluster's queue: the run executing on one of them, and the two waiting behind it.
    const described: any = await node(1).client.request("sessions.describe", { key });
    const shown: any = await node(0).client.request(
      "agent",
      { message: "/status", idempotencyKey: "cs-status", sessionKey: key },
      { expectFinal: true },
    );
    expect(await status("cs-0")).toBe("running");
    expect(described.session).toMatchObject({ activeRunId: "cs-0", queued: 2 });
    expect(shown.result.payloads[0].text).toContain("· 2 waiting");
    expect(shown.result.payloads[0].text).toContain("Run: active (cs-0)");
    const [, f1, f2] = await Promise.all([first.final, two.final, three.final]);
    expect(f2.status).toBe("ok");
    expect(f1.status).toBe("ok");
    expect(f1.result).toEqual(f2.result);
    const calls = callsWith("cs three kept");
    expect(calls).toHaveLength(1);
    const prompt = userTexts(calls[0]?.body).at(-1) as string;
    expect(prompt).toMatch(/^\[1 queued message\(s\) were dropped because the queue was full\. Summary:\]/);
    expect(prompt).toContain("- cs two dropped");
    expect(prompt.endsWith("cs three kept")).toBe(true);
    // The dropped message had no turn of its own: it ended with the turn it was summarized into.
    const { rows } = await db.query(
      "SELECT run_id, status, merged_into, summarized FROM cluster_runs WHERE run_id = 'cs-1'",
    );
    expect(rows[0]).toMatchObject({ status: "ok", merged_into: "cs-2", summarized: true });
  }, 120_000);

  it("interrupt sent to the other node aborts the run where it executes, drops the queue, runs the newest", async () => {
    const key = "agent:main:intr";
    await node(0).client.request("sessions.patch", { key, queueMode: "followup" });
    const first = await busy(key, "in-0", "in hang [hang]");
    const other = nodes.findIndex((n) => n.name !== first.executor);
    const waiting = await send(other + 1, key, "in-1", "in waiting");
    // This message's own mode wins over the session's followup.
    const newest = await send(other, key, "in-2", "in newest", { queueMode: "interrupt" });
    const [f0, f1, f2] = await Promise.all([first.final, waiting.final, newest.final]);
    expect(f0).toMatchObject({ status: "error", summary: "aborted" });
    expect(f1.status).toBe("error");
    expect(f1.summary).toBe("superseded by a newer message (interrupt)");
    expect(f2.status).toBe("ok");
    expect(f2.result.payloads[0].text).toBe("echo: in newest");
    expect(callsWith("in waiting")).toHaveLength(0);
    const { rows } = await db.query<{ run_id: string; status: string }>(
      "SELECT run_id, status FROM cluster_runs WHERE session_key = $1 ORDER BY session_pos",
      [key],
    );
    expect(rows.map((r) => [r.run_id, r.status])).toEqual([
      ["in-0", "aborted"],
      ["in-1", "error"],
      ["in-2", "ok"],
    ]);
  }, 120_000);

  it("a turn waiting for a cluster-wide lane slot takes a steer, and chat.abort without runId stops it", async () => {
    // The main lane's cap (4, cluster-wide) is taken by four hanging runs on both nodes.
    const hang = [];
    for (let i = 0; i < 4; i++) hang.push(await send(i, `agent:main:lane${i}`, `ln-${i}`, `lane ${i} [hang]`));
    await until("four runs hanging", async () => {
      const { rows } = await db.query("SELECT count(*)::int AS n FROM cluster_runs WHERE status = 'running'");
      return rows[0]?.n === 4 || undefined;
    });
    const key = "agent:main:waits";
    await node(0).client.request("sessions.patch", { key, queueMode: "followup" });
    const first = await send(0, key, "wt-0", "wt first");
    const steered = await send(1, key, "wt-1", "wt steered", { queueMode: "steer" });
    expect(await status("wt-0")).toBe("queued"); // no slot: the turn waits
    // The steer joined the waiting turn: an input of it, no run of its own.
    const { rows: inputs } = await db.query("SELECT run_id FROM cluster_run_inputs WHERE request_id = 'wt-1'");
    expect(inputs).toEqual([{ run_id: "wt-0" }]);
    expect(await status("wt-1")).toBeUndefined();
    const res: any = await node(1).client.request("chat.abort", { sessionKey: key });
    expect(res).toMatchObject({ aborted: true, runIds: ["wt-0"] });
    const [f0, f1] = await Promise.all([first.final, steered.final]);
    expect(f0.status).toBe("error");
    // Answered with the end of the turn it joined.
    expect({ status: f1.status, summary: f1.summary, result: f1.result }).toEqual({
      status: f0.status,
      summary: f0.summary,
      result: f0.result,
    });
    expect(await status("wt-0")).toBe("aborted");

    // Once a slot frees, a waiting turn runs with the message steered into it while it waited.
    const next = await send(1, key, "wt-2", "wt next");
    const joined = await send(0, key, "wt-3", "wt joined", { queueMode: "steer" });
    expect(await status("wt-2")).toBe("queued");
    await node(0).client.request("chat.abort", { sessionKey: "agent:main:lane0" });
    const [f2, f3] = await Promise.all([next.final, joined.final]);
    expect(f2.status).toBe("ok");
    expect(f3.result).toEqual(f2.result);
    const calls = callsWith("wt next");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(userTexts(calls.at(-1)?.body)).toEqual(expect.arrayContaining(["wt next", "wt joined"]));
    expect(callsWith("wt first")).toHaveLength(0);
    for (let i = 1; i < 4; i++) await node(i).client.request("chat.abort", { sessionKey: `agent:main:lane${i}` });
    await Promise.all(hang.map((h) => h.final));
  }, 120_000);

  it("a queued message is taken back through the other node and never runs", async () => {
    const key = "agent:main:takeback";
    await node(1).client.request("sessions.patch", { key, queueMode: "followup" });
    const first = await busy(key, "tb-0");
    const queued = await send(0, key, "tb-1", "tb taken back");
    const kept = await send(0, key, "tb-2", "tb kept");
    const res: any = await node(1).client.request("chat.abort", { sessionKey: key, runId: "tb-1" });
    expect(res).toMatchObject({ aborted: true, runIds: ["tb-1"] });
    const [f0, f1, f2] = await Promise.all([first.final, queued.final, kept.final]);
    expect(f0.status).toBe("ok"); // the running one goes on
    expect(f1.status).toBe("error");
    expect(f2.result.payloads[0].text).toBe("echo: tb kept");
    expect(callsWith("tb taken back")).toHaveLength(0);
    expect(await status("tb-1")).toBe("aborted");
  }, 120_000);
});
