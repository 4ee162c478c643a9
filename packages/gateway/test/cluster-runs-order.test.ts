/**
 * Runs across three nodes on one PostgreSQL: every run executes exactly once, on one node; the runs of a
 * session keep their submission order and never overlap; the cluster-wide cap holds; an idempotency key sent
 * to every node at once makes one run; an abort sent to another node stops the run where it executes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode, type ClusterRunExecutor, type ClusterRunRecord } from "../src/cluster/index.js";
import { until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

interface Trace {
  kind: "start" | "end";
  runId: string;
  sessionKey: string;
  node: string;
  t: number;
}

describe.skipIf(PG_MISSING)("cluster runs", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("100 sessions, runs round-robin over 3 nodes: in order, no overlap, once each, cap held", async () => {
    const url = await pg.createDatabase();
    const trace: Trace[] = [];
    let clock = 0;
    let running = 0;
    let maxRunning = 0;
    const CAP = 4;
    const executor: ClusterRunExecutor = async (run, ctx) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      trace.push({ kind: "start", runId: run.runId, sessionKey: run.sessionKey, node: ctx.nodeId, t: ++clock });
      ctx.emit("assistant", { delta: run.request.message });
      await new Promise((r) => setTimeout(r, Math.random() * 5));
      trace.push({ kind: "end", runId: run.runId, sessionKey: run.sessionKey, node: ctx.nodeId, t: ++clock });
      running--;
      return { status: "ok", summary: "completed", result: { text: `echo ${run.request.message}` } };
    };
    const nodes = await Promise.all(
      ["a", "b", "c"].map((id) =>
        ClusterNode.start({ url, nodeId: `node-${id}`, executor, laneCaps: { main: CAP }, maxLocalRuns: 3 }),
      ),
    );
    try {
      const SESSIONS = 100;
      const RUNS = 3;
      const submitted = new Map<string, string[]>();
      // Each session submits its runs one after another (an ack before the next), to a different node each time.
      await Promise.all(
        Array.from({ length: SESSIONS }, async (_, s) => {
          const key = `agent:main:s${s}`;
          const ids: string[] = [];
          for (let i = 0; i < RUNS; i++) {
            const node = nodes[(s + i) % nodes.length] as ClusterNode;
            const runId = `run-${s}-${i}`;
            const { created, run } = await node.submit({
              runId,
              sessionKey: key,
              agentId: "main",
              message: `${s}.${i}`,
            });
            expect(created).toBe(true);
            expect(run.acceptedBy).toBe(node.nodeId);
            ids.push(runId);
          }
          submitted.set(key, ids);
        }),
      );
      // Wait on a node other than the one that accepted the run.
      const ends = await Promise.all(
        [...submitted.values()].flat().map((id, i) => (nodes[(i + 1) % 3] as ClusterNode).wait(id, 120_000)),
      );
      expect(ends.map((r) => r?.status)).toEqual(ends.map(() => "ok"));

      const starts = trace.filter((t) => t.kind === "start");
      expect(starts).toHaveLength(SESSIONS * RUNS);
      expect(new Set(starts.map((s) => s.runId)).size).toBe(SESSIONS * RUNS);
      for (const [key, ids] of submitted) {
        const events = trace.filter((t) => t.sessionKey === key);
        // start, end, start, end, … in submission order: never two at once, never out of order.
        expect(events.map((e) => `${e.kind}:${e.runId}`)).toEqual(ids.flatMap((id) => [`start:${id}`, `end:${id}`]));
      }
      expect(maxRunning).toBeLessThanOrEqual(CAP);
      expect(maxRunning).toBeGreaterThan(1);
      const byNode = new Set(starts.map((s) => s.node));
      expect(byNode.size).toBeGreaterThan(1);
      // The ledger agrees: each run ran on exactly the node the trace saw, and its result is readable anywhere.
      const r0 = (await nodes[2]?.get("run-7-1")) as ClusterRunRecord;
      expect(r0.nodeId).toBe(starts.find((s) => s.runId === "run-7-1")?.node);
      expect(r0.result).toEqual({ text: "echo 7.1" });
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  }, 180_000);

  it("an idempotency key sent to every node at once makes one run, and every node answers with it", async () => {
    const url = await pg.createDatabase();
    const executions: string[] = [];
    const executor: ClusterRunExecutor = async (run) => {
      executions.push(run.runId);
      return { status: "ok", summary: "done" };
    };
    const nodes = await Promise.all(
      ["a", "b", "c"].map((id) => ClusterNode.start({ url, nodeId: `idem-${id}`, executor })),
    );
    try {
      for (let k = 0; k < 10; k++) {
        const results = await Promise.all(
          nodes.map((n, i) =>
            n.submit({ runId: `key-${k}`, sessionKey: `agent:main:idem${k}`, agentId: "main", message: `try ${i}` }),
          ),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        const winner = results.find((r) => r.created)?.run;
        for (const r of results) expect(r.run.request.message).toBe(winner?.request.message);
        expect((await nodes[k % 3]?.wait(`key-${k}`, 60_000))?.status).toBe("ok");
      }
      // A retry long after the run ended still gets the recorded run, not a second one.
      const again = await nodes[1]?.submit({
        runId: "key-3",
        sessionKey: "agent:main:idem3",
        agentId: "main",
        message: "x",
      });
      expect(again?.created).toBe(false);
      expect(again?.run.status).toBe("ok");
      expect(executions.sort()).toEqual(Array.from({ length: 10 }, (_, k) => `key-${k}`).sort());
      const sessionRuns = await nodes[0]?.queue.forSession("agent:main:idem3");
      expect(sessionRuns).toHaveLength(1);
    } finally {
      await Promise.all(nodes.map((n) => n.close()));
    }
  }, 120_000);

  it("steering sent to one node reaches the run executing on another, in order", async () => {
    const url = await pg.createDatabase();
    const worker = await ClusterNode.start({
      url,
      nodeId: "steer-worker",
      executor: (_run, ctx) =>
        new Promise((resolve) => {
          const got: string[] = [];
          ctx.onSteer((m) => {
            got.push(m);
            if (m === "stop now") resolve({ status: "ok", summary: "steered", result: { got } });
          });
          ctx.emit("lifecycle", { phase: "waiting" });
        }),
    });
    const front = await ClusterNode.start({ url, nodeId: "steer-front" });
    try {
      expect(await front.steer("nope", "x")).toBe(false); // unknown run: nothing stored
      await front.submit({ runId: "steered", sessionKey: "agent:main:st", agentId: "main", message: "go" });
      const running = await until("the run to start", async () => {
        const r = await front.get("steered");
        return r?.status === "running" ? r : undefined;
      });
      expect(running.nodeId).toBe("steer-worker");
      for (const m of ["first", "second", "stop now"]) expect(await front.steer("steered", m)).toBe(true);
      const end = await front.wait("steered", 60_000);
      expect(end?.result).toEqual({ got: ["first", "second", "stop now"] });
      // Once it has ended, a steer is refused (the caller sends it as a follow-up run instead).
      expect(await front.steer("steered", "late")).toBe(false);
    } finally {
      await Promise.all([worker.close({ abortRuns: true }), front.close()]);
    }
  }, 120_000);

  it("an abort sent to one node stops the run executing on another", async () => {
    const url = await pg.createDatabase();
    let startedOn: string | undefined;
    const ran: string[] = [];
    let onStarted: () => void = () => {};
    const started = new Promise<void>((r) => {
      onStarted = r;
    });
    const worker = await ClusterNode.start({
      url,
      nodeId: "worker",
      executor: (run, ctx) =>
        new Promise((resolve) => {
          ran.push(run.runId);
          if (run.request.message !== "go") return resolve({ status: "ok", summary: "quick" });
          startedOn = ctx.nodeId;
          onStarted();
          ctx.signal.addEventListener("abort", () => resolve({ status: "aborted", summary: "aborted" }));
        }),
    });
    const front = await ClusterNode.start({ url, nodeId: "front" }); // no executor: accepts only
    try {
      await front.submit({ runId: "long", sessionKey: "agent:main:ab", agentId: "main", message: "go" });
      await front.submit({ runId: "next", sessionKey: "agent:main:ab", agentId: "main", message: "then" });
      await started;
      expect(startedOn).toBe("worker");
      // A queued run aborted before it starts ends at once and never runs.
      const queued = await front.abort("next");
      expect(queued?.status).toBe("aborted");
      expect(queued?.nodeId).toBeUndefined();
      await front.abort("long");
      const end = await front.wait("long", 60_000);
      expect(end?.status).toBe("aborted");
      expect(end?.nodeId).toBe("worker");
      // The session serves the next run.
      await front.submit({ runId: "third", sessionKey: "agent:main:ab", agentId: "main", message: "after" });
      expect((await front.wait("third", 60_000))?.status).toBe("ok");
      expect(ran).toEqual(["long", "third"]);
    } finally {
      await Promise.all([worker.close({ abortRuns: true }), front.close()]);
    }
  }, 120_000);
});
