/**
 * The cluster's queue policy against a real PostgreSQL, at the queue itself (RunQueue: accept, claim, end), for
 * the cases the gateway tests do not reach: a cap lowered under waiting messages, a summarized message left
 * alone at the head of its session, interrupt while the active turn still waits for its lane, steering only
 * into a turn with nothing waiting, a retried key of a dropped message, a message's own collect mode, and taking
 * back a message merged into a turn. Each mirrors what a single node's
 * session queue does in the same case (src/queue/session-queue.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/cluster/migrations.js";
import { ClusterPool } from "../src/cluster/pool.js";
import { RunQueue } from "../src/cluster/run-queue.js";
import type { ClusterQueueDefaults, ClusterRunRecord } from "../src/cluster/types.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster queue policy at the queue", () => {
  let pgs: TestPostgres;
  let pool: ClusterPool;
  let queue: RunQueue;
  const worker = { nodeId: "policy", epoch: 1 };

  beforeAll(async () => {
    pgs = await startPostgres();
    pool = new ClusterPool({ url: await pgs.createDatabase() });
    await migrate(pool);
    queue = new RunQueue(pool);
    await pool.query(
      "INSERT INTO cluster_nodes (node_id, epoch, host, pid, lease_until) VALUES ('policy', 1, 'h', 1, now() + interval '1 hour')",
    );
  }, 120_000);

  afterEach(async () => {
    // Each case leaves nothing queued or running that a later case's claim (over all sessions) would take.
    await pool.query("UPDATE cluster_runs SET status = 'aborted' WHERE status IN ('queued', 'running')");
  });

  afterAll(async () => {
    await pool?.close();
    await pgs?.stop();
  });

  const submit = (key: string, runId: string, defaults: ClusterQueueDefaults, queueMode?: string) =>
    queue.submit(
      { runId, sessionKey: key, agentId: "main", message: `text of ${runId}`, ...(queueMode ? { queueMode } : {}) },
      "policy",
      { defaults },
    );
  const claim = async (defaults: ClaimDefaults = {}) =>
    (
      await queue.claim(
        { ...worker, room: 4, laneCaps: { main: defaults.cap ?? 4 }, queueDefaults: defaults.q },
        new Set(),
      )
    ).runs;
  type ClaimDefaults = { cap?: number; q?: ClusterQueueDefaults };
  const end = (run: ClusterRunRecord) => queue.finish(run, worker, { status: "ok", summary: "done" }, []);
  const ledger = async (key: string) =>
    (
      await pool.query<{ run_id: string; status: string; summary: string | null; summarized: boolean }>(
        "SELECT run_id, status, summary, summarized FROM cluster_runs WHERE session_key = $1 ORDER BY session_pos",
        [key],
      )
    ).rows.map((r) => [r.run_id, r.status, r.summary, r.summarized]);

  it("a cap lowered under waiting messages drops the newest under drop:new, the newcomer first", async () => {
    const key = "agent:main:lowered";
    const q: ClusterQueueDefaults = { mode: "followup", debounceMs: 0, cap: 5, drop: "new" };
    await submit(key, "lo-0", q);
    const [running] = await claim();
    expect(running?.runId).toBe("lo-0");
    for (const id of ["lo-1", "lo-2", "lo-3", "lo-4"]) expect((await submit(key, id, q)).disposition).toBe("queued");
    await pool.query("UPDATE cluster_sessions SET queue_cap = 2 WHERE key = $1", [key]); // sessions.patch
    const newest = await submit(key, "lo-5", q);
    expect(newest.disposition).toBe("dropped");
    expect(newest.run.status).toBe("error");
    const full = "queue full (cap 2): message dropped";
    expect(await ledger(key)).toEqual([
      ["lo-0", "running", null, false],
      ["lo-1", "queued", null, false],
      ["lo-2", "queued", null, false],
      ["lo-3", "error", full, false],
      ["lo-4", "error", full, false],
      ["lo-5", "error", full, false],
    ]);
    // A retry of the dropped key creates nothing and answers with its drop.
    const again = await submit(key, "lo-5", q);
    expect(again).toMatchObject({ created: false, disposition: "known", run: { status: "error", summary: full } });
  });

  it("a summarized message left alone heads its session and runs as its own summary", async () => {
    const key = "agent:main:sumhead";
    const q: ClusterQueueDefaults = { mode: "followup", debounceMs: 0, cap: 1, drop: "summarize" };
    await submit(key, "sh-0", q);
    const [running] = await claim();
    await submit(key, "sh-1", q);
    await submit(key, "sh-2", q); // over the cap: sh-1 is summarized
    expect((await ledger(key)).map((r) => r[3])).toEqual([false, true, false]);
    expect((await queue.requestAbort("sh-2"))?.status).toBe("aborted"); // taken back: only the summary waits
    await end(running as ClusterRunRecord);
    const [next] = await claim();
    expect(next).toMatchObject({ runId: "sh-1", summarized: true });
    expect(next?.merged ?? []).toEqual([]);
    await end(next as ClusterRunRecord);
  });

  it("a summarized message joins the next turn; collect takes it with the merged ones", async () => {
    const key = "agent:main:sumjoin";
    const q: ClusterQueueDefaults = { mode: "followup", debounceMs: 0, cap: 1, drop: "summarize" };
    await submit(key, "sj-0", q);
    const [running] = await claim();
    for (const id of ["sj-1", "sj-2", "sj-3"]) await submit(key, id, q); // sj-1, sj-2 summarized
    await end(running as ClusterRunRecord);
    const [next] = await claim();
    expect(next?.runId).toBe("sj-3");
    expect((next?.merged ?? []).map((m) => [m.runId, m.summarized])).toEqual([
      ["sj-1", true],
      ["sj-2", true],
    ]);
    await end(next as ClusterRunRecord);
    expect((await ledger(key)).map((r) => r[1])).toEqual(["ok", "ok", "ok", "ok"]); // they ended with its turn
  });

  it("interrupt while the active turn waits for its lane aborts it and supersedes what waits", async () => {
    const key = "agent:main:intwait";
    const q: ClusterQueueDefaults = { mode: "followup", debounceMs: 0, cap: 1, drop: "summarize" };
    // iw-0 is this session's turn (accepted at an idle session), not claimed yet: as if the lanes were full.
    expect((await submit(key, "iw-0", q)).disposition).toBe("started");
    await submit(key, "iw-1", q);
    await submit(key, "iw-2", q); // iw-1 summarized, iw-2 waits
    expect((await submit(key, "iw-3", q, "interrupt")).disposition).toBe("queued");
    const gone = "superseded by a newer message (interrupt)";
    expect(await ledger(key)).toEqual([
      ["iw-0", "aborted", "aborted before it started", false],
      ["iw-1", "error", gone, true],
      ["iw-2", "error", gone, false],
      ["iw-3", "queued", null, false],
    ]);
    const [next] = await claim();
    expect(next?.runId).toBe("iw-3");
    await end(next as ClusterRunRecord);
  });

  it("steer joins the active turn only while nothing waits; then it waits like a follow-up", async () => {
    const key = "agent:main:steerq";
    const q: ClusterQueueDefaults = { mode: "steer", debounceMs: 0 };
    await submit(key, "sq-0", q);
    const [running] = await claim();
    const joined = await submit(key, "sq-1", q);
    expect(joined).toMatchObject({ disposition: "steered", created: true, run: { runId: "sq-0" } });
    const retry = await submit(key, "sq-1", q);
    expect(retry).toMatchObject({ disposition: "steered", created: false, run: { runId: "sq-0" } });
    expect((await submit(key, "sq-2", q, "followup")).disposition).toBe("queued");
    expect((await submit(key, "sq-3", q)).disposition).toBe("queued"); // something waits: not steered past it
    const { rows } = await pool.query("SELECT run_id, request_id FROM cluster_run_inputs WHERE run_id = 'sq-0'");
    expect(rows).toEqual([{ run_id: "sq-0", request_id: "sq-1" }]);
    await end(running as ClusterRunRecord);
  });

  it("a message's own collect merges what waits behind it; aborting a merged message aborts its turn", async () => {
    const key = "agent:main:owncollect";
    const q: ClusterQueueDefaults = { mode: "followup", debounceMs: 300 };
    await submit(key, "oc-0", q);
    const [running] = await claim({ q });
    await submit(key, "oc-1", q, "collect"); // its own mode: the session's is followup
    await submit(key, "oc-2", q);
    await end(running as ClusterRunRecord);
    const early = await queue.claim({ ...worker, room: 4, laneCaps: { main: 4 }, queueDefaults: q }, new Set());
    expect(early.runs).toEqual([]); // oc-1 heads the session and collects: its quiet period holds
    expect(early.nextQuietMs).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, (early.nextQuietMs ?? 0) + 20));
    let turn: ClusterRunRecord[] = [];
    for (let i = 0; i < 50 && turn.length === 0; i++) {
      turn = await claim({ q });
      if (turn.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(turn.map((r) => [r.runId, (r.merged ?? []).map((m) => m.runId)])).toEqual([["oc-1", ["oc-2"]]]);
    // oc-2 is in oc-1's turn: taking it back aborts that turn (a single node aborts the turn it is a member of).
    const aborted = await queue.requestAbort("oc-2");
    expect(aborted).toMatchObject({ runId: "oc-1", status: "running", abortRequested: true });
    expect(await queue.abortsRequested(["oc-1"])).toEqual(["oc-1"]);
    await queue.finish(turn[0] as ClusterRunRecord, worker, { status: "aborted", summary: "aborted" }, []);
    expect((await ledger(key)).map((r) => r[1])).toEqual(["ok", "aborted", "aborted"]);
  });
});
