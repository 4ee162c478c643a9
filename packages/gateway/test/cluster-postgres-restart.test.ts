/**
 * PostgreSQL stopped for 3 s under load: nodes and callers retry instead of failing or crashing; every
 * accepted run ends exactly once and ok, and every submit made during the outage is answered afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode, type ClusterRunExecutor } from "../src/cluster/index.js";
import { until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster: PostgreSQL restart", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("a 3 s outage under load: callers wait, runs end exactly once", async () => {
    const url = await pg.createDatabase();
    const executions = new Map<string, number>();
    let finished = 0;
    const executor: ClusterRunExecutor = async (run, ctx) => {
      executions.set(run.runId, (executions.get(run.runId) ?? 0) + 1);
      ctx.emit("assistant", { delta: "x" });
      await new Promise((r) => setTimeout(r, 20));
      finished++;
      return { status: "ok", summary: "completed" };
    };
    // A lease longer than the outage: the point here is retrying, not fail-over.
    const lease = { leaseMs: 12_000, heartbeatMs: 1000 };
    const nodes = await Promise.all(
      ["a", "b", "c"].map((id) =>
        ClusterNode.start({ url, nodeId: `pgr-${id}`, executor, lease, retryForMs: 60_000, laneCaps: { main: 6 } }),
      ),
    );
    const errors: unknown[] = [];
    const onUnhandled = (err: unknown): void => {
      errors.push(err);
    };
    process.on("unhandledRejection", onUnhandled);
    try {
      const SESSIONS = 30;
      const RUNS = 6;
      const ids: string[] = [];
      const load = Promise.all(
        Array.from({ length: SESSIONS }, async (_, s) => {
          for (let i = 0; i < RUNS; i++) {
            const runId = `pgr-${s}-${i}`;
            ids.push(runId);
            const node = nodes[(s + i) % 3] as ClusterNode;
            await node.submit({ runId, sessionKey: `agent:main:pgr${s}`, agentId: "main", message: "m" });
            // Each session waits for its run on another node before sending the next, so load spans the outage.
            const end = await (nodes[(s + i + 1) % 3] as ClusterNode).wait(runId, 120_000);
            expect(end?.status).toBe("ok");
          }
        }),
      );
      await until("some runs to finish before the outage", () => (finished >= 20 ? true : undefined), 60_000);
      await pg.pause();
      const pausedAt = finished;
      await new Promise((r) => setTimeout(r, 3000)); // the outage itself
      await pg.resume();
      await load;
      expect(pausedAt).toBeLessThan(SESSIONS * RUNS); // the outage really hit the load
      expect(ids).toHaveLength(SESSIONS * RUNS);
      for (const id of ids) expect(executions.get(id)).toBe(1);
      const { rows } = await (nodes[0] as ClusterNode).pool.query<{ status: string; n: string }>(
        "SELECT status, count(*) AS n FROM cluster_runs GROUP BY status",
      );
      expect(rows.map((r) => [r.status, Number(r.n)])).toEqual([["ok", SESSIONS * RUNS]]);
      expect((await (nodes[1] as ClusterNode).nodes()).map((n) => n.nodeId)).toEqual(["pgr-a", "pgr-b", "pgr-c"]);
      expect(errors).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await Promise.all(nodes.map((n) => n.close()));
    }
  }, 240_000);
});
