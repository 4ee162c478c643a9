// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * `collect` queue mode across two gateway processes: messages sent to either node while the session's run
 * executes are queued in PostgreSQL and, once the session has been quiet for its debounce, taken together by one
 * claim and run as one turn (one model call with every message), which answers each of them.
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

const DEBOUNCE_MS = 600;

describe.skipIf(PG_MISSING)("cluster: collect queue mode on two nodes", () => {
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

  it("messages queued on both nodes during a run merge into one turn after the debounce", async () => {
    const key = "agent:main:col";
    // The session's mode, set on one node, is the cluster's.
    await node(1).client.request("sessions.patch", { key, queueMode: "collect", queueDebounceMs: DEBOUNCE_MS });
    const first = node(0).client.request(
      "agent",
      { message: "busy [slow:60:50]", idempotencyKey: "col-0", sessionKey: key },
      { expectFinal: true },
    ) as Promise<any>;
    await until("the first run running", async () => {
      const { rows } = await db.query("SELECT status FROM cluster_runs WHERE run_id = 'col-0'");
      return rows[0]?.status === "running" || undefined;
    });
    // Three messages while it runs, alternately to each node, each accepted (committed) before the next.
    const queued: Promise<any>[] = [];
    for (let i = 1; i <= 3; i++) {
      let accepted!: () => void;
      const ack = new Promise<void>((r) => {
        accepted = r;
      });
      queued.push(
        node(i).client.request(
          "agent",
          { message: `late ${i}`, idempotencyKey: `col-${i}`, sessionKey: key },
          { expectFinal: true, onAccepted: () => accepted() },
        ),
      );
      await ack;
    }
    const { rows: before } = await db.query("SELECT status FROM cluster_runs WHERE run_id = 'col-0'");
    expect(before[0]?.status).toBe("running"); // all three came while the session was busy

    expect((await first).status).toBe("ok");
    const answers = await Promise.all(queued);
    expect(answers.map((a) => a.status)).toEqual(["ok", "ok", "ok"]);
    // One model call got all three, merged into one user message, after the session's earlier turn.
    const calls = mock.requests.filter((r) => userTexts(r.body).some((t) => t.includes("late 1")));
    expect(calls).toHaveLength(1);
    const merged = userTexts(calls[0]?.body).at(-1) as string;
    expect(merged).toContain("[Queued messages while agent was busy]");
    expect(merged.indexOf("late 1")).toBeLessThan(merged.indexOf("late 2"));
    expect(merged.indexOf("late 2")).toBeLessThan(merged.indexOf("late 3"));
    expect(userTexts(calls[0]?.body)[0]).toBe("busy [slow:60:50]");
    // Each request is answered with the one turn's reply.
    const texts = answers.map((a) => a.result.payloads[0].text);
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toContain("late 3");

    // The ledger: col-1 ran, col-2 and col-3 were merged into it and ended with it; it started only after the
    // newest of them had been queued for the debounce.
    const { rows } = await db.query<{
      run_id: string;
      status: string;
      merged_into: string | null;
      accepted_at: string;
      started_at: string | null;
      ended_at: string | null;
    }>(
      "SELECT run_id, status, merged_into, accepted_at, started_at, ended_at FROM cluster_runs WHERE session_key = $1 ORDER BY session_pos",
      [key],
    );
    expect(rows.map((r) => [r.run_id, r.status, r.merged_into])).toEqual([
      ["col-0", "ok", null],
      ["col-1", "ok", null],
      ["col-2", "ok", "col-1"],
      ["col-3", "ok", "col-1"],
    ]);
    const newest = Math.max(...rows.slice(1).map((r) => Number(r.accepted_at)));
    expect(Number(rows[1]?.started_at)).toBeGreaterThanOrEqual(newest + DEBOUNCE_MS);
    expect(rows[2]?.ended_at).toBe(rows[1]?.ended_at);

    // The session goes on: a message to an idle session starts at once, alone.
    const next: any = await node(1).client.request(
      "agent",
      { message: "after", idempotencyKey: "col-4", sessionKey: key },
      { expectFinal: true },
    );
    expect(next.status).toBe("ok");
    expect(next.result.payloads[0].text).toBe("echo: after");
  }, 180_000);

  it("a merged turn whose node is SIGKILLed ends every message of it interrupted, once", async () => {
    const key = "agent:main:colkill";
    await node(0).client.request("sessions.patch", { key, queueMode: "collect", queueDebounceMs: 1000 });
    const status = async (id: string): Promise<string | undefined> =>
      (await db.query("SELECT status FROM cluster_runs WHERE run_id = $1", [id])).rows[0]?.status;
    const first = node(0).client.request(
      "agent",
      { message: "busy [slow:40:50]", idempotencyKey: "ck-0", sessionKey: key },
      { expectFinal: true },
    ) as Promise<any>;
    await until("the first run running", async () => ((await status("ck-0")) === "running" ? true : undefined));
    // Queued while busy (the first run takes 2 s, and the quiet period 1 s more, so both are taken together even
    // on a loaded machine): the merged turn is slow too, so it is still running when its node dies.
    // Each accepted before the next is sent, so ck-1 is the session's first waiting run.
    const late: Promise<any>[] = [];
    for (const i of [1, 2]) {
      let accepted!: () => void;
      const ack = new Promise<void>((r) => {
        accepted = r;
      });
      late.push(
        (
          node(0).client.request(
            "agent",
            { message: `stuck ${i} [slow:200:50]`, idempotencyKey: `ck-${i}`, sessionKey: key },
            { expectFinal: true, onAccepted: () => accepted() },
          ) as Promise<any>
        ).catch((err: unknown) => ({ status: "lost", err })),
      );
      await ack;
    }
    await until("both late messages accepted", async () =>
      (await status("ck-1")) && (await status("ck-2")) ? true : undefined,
    );
    void first.catch(() => {});
    const executor = await until("the merged turn running", async () => {
      const { rows } = await db.query<{ node_id: string }>(
        "SELECT r.node_id FROM cluster_runs r JOIN cluster_runs m ON m.merged_into = r.run_id WHERE r.run_id = 'ck-1' AND r.status = 'running' AND m.run_id = 'ck-2'",
      );
      return rows[0]?.node_id;
    });
    const victim = nodes.find((n) => n.name === executor) as ClusterGatewayNode;
    await victim.gw.kill();
    // Both messages of the turn end interrupted (the lease expires, a peer reaps the node), each exactly once.
    await until(
      "the merged runs ended",
      async () =>
        (await status("ck-1")) === "interrupted" && (await status("ck-2")) === "interrupted" ? true : undefined,
      60_000,
    );
    const { rows } = await db.query<{ run_id: string; status: string; error: string | null }>(
      "SELECT run_id, status, error FROM cluster_runs WHERE session_key = $1 ORDER BY session_pos",
      [key],
    );
    expect(rows.map((r) => [r.run_id, r.status])).toEqual([
      ["ck-0", "ok"],
      ["ck-1", "interrupted"],
      ["ck-2", "interrupted"],
    ]);
    expect(rows[2]?.error).toContain(`node ${executor}`);
    // agent.wait on the surviving node answers each of them with the interruption.
    const survivor = nodes.find((n) => n !== victim) as ClusterGatewayNode;
    for (const runId of ["ck-1", "ck-2"]) {
      const w: any = await survivor.client.request("agent.wait", { runId, timeoutMs: 10_000 });
      expect(w.status).toBe("error");
      expect(w.error).toContain(`node ${executor}`);
    }
    void Promise.all(late); // their client may be on the node that died
  }, 180_000);
});
