/**
 * Three node processes under load, one killed with SIGKILL and restarted: every accepted run ends exactly
 * once (ok, or interrupted when the dead node held it), no run starts twice, every session serves a new run
 * afterwards, nothing stays queued or running.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode } from "../src/cluster/index.js";
import { type ChildNode, spawnClusterNode, until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster: SIGKILL under load", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("kill and restart one of three nodes mid-load: every run ends once, every session serves again", async () => {
    const url = await pg.createDatabase();
    const children: ChildNode[] = ["n1", "n2", "n3"].map((id) => spawnClusterNode(url, id, { mode: "quick" }));
    const front = await ClusterNode.start({ url, nodeId: "front" });
    try {
      await Promise.all(children.map((c) => c.line(/^ready \d+/)));
      const SESSIONS = 40;
      const RUNS = 5;
      const ids: string[] = [];
      const started = (): number =>
        children.reduce((n, c) => n + c.lines.filter((l) => l.startsWith("started ")).length, 0);
      const load = Promise.all(
        Array.from({ length: SESSIONS }, async (_, s) => {
          for (let i = 0; i < RUNS; i++) {
            const runId = `kl-${s}-${i}`;
            ids.push(runId);
            await front.submit({ runId, sessionKey: `agent:main:kl${s}`, agentId: "main", message: "m" });
            await front.wait(runId, 120_000);
          }
        }),
      );
      const victim = children[1] as ChildNode;
      // Mid-load: a third of the runs started and the victim busy (4 slots, runs of 100-200 ms).
      await until(
        "a third of the load to have started",
        () => (started() > (SESSIONS * RUNS) / 3 ? true : undefined),
        120_000,
      );
      victim.proc.kill("SIGKILL");
      await load;
      // Restarted under its name: it rejoins and takes work again.
      const back = spawnClusterNode(url, "n2", { mode: "quick" });
      children.push(back);
      await back.line(/^ready \d+/);

      const runs = await Promise.all(ids.map((id) => front.get(id)));
      const statuses = new Map<string, number>();
      for (const r of runs) statuses.set(r?.status ?? "missing", (statuses.get(r?.status ?? "missing") ?? 0) + 1);
      expect([...statuses.keys()].every((s) => s === "ok" || s === "interrupted")).toBe(true);
      expect(statuses.get("interrupted") ?? 0).toBeGreaterThan(0); // the kill did catch runs mid-flight
      const startedIds = children.flatMap((c) =>
        c.lines.filter((l) => l.startsWith("started ")).map((l) => l.slice(8)),
      );
      const counts = new Map<string, number>();
      for (const id of startedIds) counts.set(id, (counts.get(id) ?? 0) + 1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true); // no run ever started twice
      for (const r of runs) {
        // An ok run was executed; an interrupted one was held by the killed node.
        if (r?.status === "ok") expect(counts.get(r.runId)).toBe(1);
        if (r?.status === "interrupted") expect(r.nodeId).toBe("n2");
      }
      // Every session serves a new run, on any node, the restarted one included.
      await Promise.all(
        Array.from({ length: SESSIONS }, (_, s) =>
          front.submit({ runId: `kl-after-${s}`, sessionKey: `agent:main:kl${s}`, agentId: "main", message: "after" }),
        ),
      );
      const after = await Promise.all(Array.from({ length: SESSIONS }, (_, s) => front.wait(`kl-after-${s}`, 120_000)));
      expect(after.map((r) => r?.status)).toEqual(after.map(() => "ok"));
      const { rows } = await front.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM cluster_runs WHERE status IN ('queued', 'running')",
      );
      expect(Number(rows[0]?.n)).toBe(0);
      console.log(`[cluster test] kill under load: ${JSON.stringify(Object.fromEntries(statuses))}`);
    } finally {
      for (const c of children) c.proc.kill("SIGKILL");
      await front.close();
    }
  }, 240_000);
});
