/**
 * Node failures: a node killed with SIGKILL mid-run is detected within 10 s, its runs end `interrupted` (in
 * the ledger, the event stream and the transcript) and its sessions serve new runs from the other nodes; a
 * node cut off by a partition stops its own runs, cannot record anything for them afterwards, and rejoins
 * under a new epoch without running a session another node holds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@tiller/coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode, type ClusterRunEvent, type ClusterRunExecutor } from "../src/cluster/index.js";
import { spawnClusterNode, until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";
import { startTcpProxy } from "./helpers/tcp-proxy.js";

const quick: ClusterRunExecutor = async (run, ctx) => {
  ctx.emit("assistant", { delta: `reply to ${run.request.message}` });
  return { status: "ok", summary: "completed" };
};

describe.skipIf(PG_MISSING)("cluster node failures", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("SIGKILL of a node mid-run: detected within 10 s, runs interrupted, sessions served elsewhere", async () => {
    const url = await pg.createDatabase();
    const front = await ClusterNode.start({ url, nodeId: "front" }); // accepts, never executes
    const victim = spawnClusterNode(url, "victim");
    let other: ClusterNode | undefined;
    try {
      await victim.line(/^ready \d+/);
      const keys = ["agent:main:k0", "agent:main:k1", "agent:main:k2"];
      const seen: ClusterRunEvent[] = [];
      const unsubscribe = await front.subscribe(keys[1] as string, (e) => seen.push(e), 0);
      for (const [i, key] of keys.entries()) {
        await front.submit({ runId: `held-${i}`, sessionKey: key, agentId: "main", message: `m${i}` });
      }
      // A session transcript, so the interruption can be marked in it.
      const { rows } = await front.pool.query<{ session_id: string }>(
        "SELECT session_id FROM cluster_sessions WHERE key = $1",
        [keys[1]],
      );
      const sessionId = rows[0]?.session_id as string;
      await front.transcripts.create({
        type: "session",
        version: 3,
        id: sessionId,
        timestamp: new Date().toISOString(),
        cwd: "/w",
      });
      await front.transcripts.append(sessionId, [
        {
          type: "message",
          id: "aaaa0001",
          parentId: null,
          timestamp: new Date().toISOString(),
          message: { role: "user", content: "m1", timestamp: Date.now() },
        },
      ]);
      for (let i = 0; i < keys.length; i++) await victim.line(new RegExp(`^started held-${i}$`));
      // Queued behind the victim's runs: they must run later, elsewhere.
      await front.submit({ runId: "after-0", sessionKey: keys[0] as string, agentId: "main", message: "next" });
      other = await ClusterNode.start({ url, nodeId: "other", executor: quick });
      // Sessions nobody holds are served by the surviving node meanwhile.
      await front.submit({ runId: "free-0", sessionKey: "agent:main:free", agentId: "main", message: "hi" });
      expect((await front.wait("free-0", 60_000))?.nodeId).toBe("other");
      expect((await front.get("after-0"))?.status).toBe("queued");

      const killedAt = Date.now();
      victim.proc.kill("SIGKILL");
      const ends = await Promise.all(keys.map((_, i) => front.wait(`held-${i}`, 30_000)));
      const detectedMs = Date.now() - killedAt;
      console.log(`[cluster test] SIGKILLed node detected and its runs interrupted after ${detectedMs} ms`);
      expect(detectedMs).toBeLessThan(10_000);
      for (const e of ends) {
        expect(e?.status).toBe("interrupted");
        expect(e?.error).toMatch(/node victim stopped/);
      }
      const next = await front.wait("after-0", 60_000);
      expect(next?.status).toBe("ok");
      expect(next?.nodeId).toBe("other");

      // The subscriber on another node saw the victim's run live and its end, seq 1, 2, 3 with no gap.
      await until("the interrupted lifecycle event", () => seen.find((e) => e.stream === "lifecycle" && e.seq === 3));
      unsubscribe();
      const held1 = seen.filter((e) => e.runId === "held-1");
      expect(held1.map((e) => [e.seq, e.stream])).toEqual([
        [1, "lifecycle"],
        [2, "assistant"],
        [3, "lifecycle"],
      ]);
      expect(held1[2]?.data).toMatchObject({ phase: "error", interrupted: true });

      // The transcript says so, and the exported JSONL opens in the coding agent's SessionManager.
      const dir = mkdtempSync(join(tmpdir(), "tiller-cluster-export-"));
      try {
        const file = join(dir, `${sessionId}.jsonl`);
        expect(await front.transcripts.exportJsonl(sessionId, file)).toBe(2);
        const sm = SessionManager.open(file);
        const entries = sm.getEntries();
        expect(entries.map((e) => e.type)).toEqual(["message", "custom"]);
        expect(entries[1]).toMatchObject({
          customType: "tiller.run_interrupted",
          parentId: "aaaa0001",
          data: { runId: "held-1" },
        });
        sm.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }

      // Restarted under the same name it joins with a new epoch and serves again.
      const back = spawnClusterNode(url, "victim");
      try {
        await back.line(/^ready \d+/);
        await front.submit({ runId: "again-2", sessionKey: keys[2] as string, agentId: "main", message: "again" });
        const r = await until("again-2 to start", async () => {
          const run = await front.get("again-2");
          return run?.status !== "queued" ? run : undefined;
        });
        expect(["victim", "other"]).toContain(r.nodeId);
      } finally {
        back.proc.kill("SIGKILL");
      }
    } finally {
      victim.proc.kill("SIGKILL");
      await other?.close({ abortRuns: true });
      await front.close();
    }
  }, 180_000);

  it("a partitioned node stops its run, cannot record it, and rejoins without taking the session back", async () => {
    const url = await pg.createDatabase();
    const proxy = await startTcpProxy(pg.port);
    const proxiedUrl = url.replace(`:${pg.port}/`, `:${proxy.port}/`);
    const lease = { leaseMs: 2000, heartbeatMs: 400, reapGraceMs: 500, reapIntervalMs: 300 };
    const executedOnP: string[] = [];
    let abortedOnP = false;
    let abortedAt = 0;
    const p = await ClusterNode.start({
      url: proxiedUrl,
      nodeId: "p",
      lease,
      executor: (run, ctx) =>
        new Promise((resolve) => {
          executedOnP.push(run.runId);
          ctx.signal.addEventListener("abort", () => {
            abortedOnP = true;
            abortedAt = Date.now();
            resolve({ status: "ok", summary: "finished anyway" });
          });
        }),
    });
    let q: ClusterNode | undefined;
    try {
      await p.submit({ runId: "r1", sessionKey: "agent:main:s", agentId: "main", message: "one" });
      await until("p to start r1", () => executedOnP.includes("r1") || undefined);
      const oldEpoch = p.epoch as number;
      q = await ClusterNode.start({ url, nodeId: "q", lease, executor: quick });
      proxy.cut();
      await until("p to abort its run on losing the lease", () => abortedOnP || undefined, 20_000);
      const r1 = await q.wait("r1", 30_000);
      expect(r1?.status).toBe("interrupted");
      // The cut-off node stopped its run before the cluster took the session away from it.
      expect(abortedAt).toBeGreaterThan(0);
      expect(abortedAt).toBeLessThanOrEqual(r1?.endedAt ?? 0);
      await q.submit({ runId: "r2", sessionKey: "agent:main:s", agentId: "main", message: "two" });
      const r2 = await q.wait("r2", 30_000);
      expect(r2).toMatchObject({ status: "ok", nodeId: "q" });

      proxy.restore();
      await until("p to rejoin under a new epoch", () => ((p.epoch ?? 0) > oldEpoch ? true : undefined), 30_000);
      // p's late "ok" for r1 was refused: the ledger still says interrupted, and p never ran r2.
      expect((await q.get("r1"))?.status).toBe("interrupted");
      expect(executedOnP).toEqual(["r1"]);
      await q.submit({ runId: "r3", sessionKey: "agent:main:s", agentId: "main", message: "three" });
      const r3 = await until("r3 to start", async () => {
        const run = await q?.get("r3");
        return run && run.status !== "queued" ? run : undefined;
      });
      expect(["p", "q"]).toContain(r3.nodeId);
      const nodes = await q.nodes();
      expect(nodes.map((n) => n.nodeId).sort()).toEqual(["p", "q"]);
    } finally {
      await p.close({ abortRuns: true });
      await q?.close({ abortRuns: true });
      await proxy.close();
    }
  }, 180_000);
});
