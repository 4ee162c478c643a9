/**
 * The cluster's queue against a real PostgreSQL while this process's clock (the nodes' clock: `Date`) is an hour
 * ahead for one node's calls and an hour behind for another's: collect's quiet period still holds exactly (the
 * merged turn is claimed neither early nor late), and every stamp the ledger holds is the database's, so no
 * comparison two nodes make can depend on their clocks agreeing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pruneRunEvents } from "../src/cluster/event-log.js";
import { migrate } from "../src/cluster/migrations.js";
import { ClusterPool } from "../src/cluster/pool.js";
import { type ClaimOptions, RunQueue } from "../src/cluster/run-queue.js";
import { ClusterSessionIndex } from "../src/cluster/session-index.js";
import type { ClusterQueueDefaults, ClusterRunRecord } from "../src/cluster/types.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

const HOUR = 3_600_000;
const DEBOUNCE_MS = 800;
const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms)); // timers stay real: only Date is skewed

describe.skipIf(PG_MISSING)("cluster queue: the database's clock decides, not the nodes'", () => {
  let pgs: TestPostgres;
  let pool: ClusterPool;
  let queue: RunQueue;
  const defaults: ClusterQueueDefaults = { mode: "collect", debounceMs: DEBOUNCE_MS };
  const claimer = (nodeId: string): ClaimOptions => ({
    nodeId,
    epoch: 1,
    room: 4,
    laneCaps: { main: 4 },
    queueDefaults: defaults,
  });
  const dbNow = async (): Promise<number> =>
    Number(
      (await pool.query<{ t: string }>("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS t")).rows[0]
        ?.t,
    );
  /** This process's clock from now on reads `offsetMs` away from the real time (frozen there). */
  const skew = (offsetMs: number): void => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(performance.timeOrigin + performance.now() + offsetMs));
  };

  beforeAll(async () => {
    pgs = await startPostgres();
    pool = new ClusterPool({ url: await pgs.createDatabase() });
    await migrate(pool);
    queue = new RunQueue(pool);
    // Two members with valid leases (by the database's clock), as membership would have written them.
    await pool.query(
      `INSERT INTO cluster_nodes (node_id, epoch, host, pid, lease_until)
       VALUES ('ahead', 1, 'h', 1, now() + interval '1 hour'), ('behind', 1, 'h', 2, now() + interval '1 hour')`,
    );
  }, 120_000);

  afterEach(() => {
    vi.useRealTimers();
  });

  afterAll(async () => {
    vi.useRealTimers();
    await pool?.close();
    await pgs?.stop();
  });

  /** One claim by `nodeId`, its clock `offsetMs` off. */
  async function claimAs(nodeId: string, offsetMs: number) {
    skew(offsetMs);
    try {
      return await queue.claim(claimer(nodeId), new Set());
    } finally {
      vi.useRealTimers();
    }
  }

  async function submitAs(offsetMs: number, runId: string, sessionKey: string) {
    skew(offsetMs);
    try {
      return await queue.submit({ runId, sessionKey, agentId: "main", message: runId }, "ahead", { defaults });
    } finally {
      vi.useRealTimers();
    }
  }

  async function finishAs(nodeId: string, offsetMs: number, run: ClusterRunRecord): Promise<void> {
    skew(offsetMs);
    try {
      const events = [{ runId: run.runId, sessionKey: run.sessionKey, seq: 1, stream: "lifecycle", ts: 0, data: {} }];
      expect(await queue.finish(run, { nodeId, epoch: 1 }, { status: "ok", summary: "done" }, events)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  }

  /** Accepts on one node, claims on the other, with their clocks `acceptOffset` and `claimOffset` off. */
  async function collectAcross(key: string, acceptOffset: number, claimOffset: number) {
    const claimNode = claimOffset > 0 ? "ahead" : "behind";
    expect((await submitAs(acceptOffset, `${key}-0`, key)).disposition).toBe("started");
    const first = (await claimAs(claimNode, claimOffset)).runs;
    expect(first.map((r) => r.runId)).toEqual([`${key}-0`]);
    // Two messages while it runs: collect holds them for the quiet period after the newer one.
    expect((await submitAs(acceptOffset, `${key}-1`, key)).disposition).toBe("queued");
    expect((await submitAs(acceptOffset, `${key}-2`, key)).disposition).toBe("queued");
    await finishAs(claimNode, claimOffset, first[0] as ClusterRunRecord);
    const early = await claimAs(claimNode, claimOffset);
    const newestAccepted = Number(
      (await pool.query<{ t: string }>("SELECT accepted_at AS t FROM cluster_runs WHERE run_id = $1", [`${key}-2`]))
        .rows[0]?.t,
    );
    expect(early.runs).toEqual([]); // still quiet, however far this node's clock is from the accepting node's
    expect(early.nextQuietMs).toBeGreaterThan(0);
    expect(early.nextQuietMs).toBeLessThanOrEqual(DEBOUNCE_MS);
    // Claimed once the quiet period has passed by the database's clock: the wait the claim named is enough.
    await realSleep((early.nextQuietMs ?? 0) + 20);
    let merged: ClusterRunRecord[] = [];
    for (let i = 0; i < 50 && merged.length === 0; i++) {
      merged = (await claimAs(claimNode, claimOffset)).runs;
      if (merged.length === 0) await realSleep(20);
    }
    expect(merged.map((r) => [r.runId, (r.merged ?? []).map((m) => m.runId)])).toEqual([[`${key}-1`, [`${key}-2`]]]);
    const started = merged[0]?.startedAt as number;
    expect(started - newestAccepted).toBeGreaterThanOrEqual(DEBOUNCE_MS);
    expect(started - newestAccepted).toBeLessThan(DEBOUNCE_MS + 20_000); // not an hour late (generous: loaded host)
    await finishAs(claimNode, claimOffset, merged[0] as ClusterRunRecord);
  }

  it("collect accepted an hour ahead and claimed an hour behind waits exactly its quiet period", async () => {
    const t0 = await dbNow();
    await collectAcross("skew-a", HOUR, -HOUR);
    await collectAcross("skew-b", -HOUR, HOUR);
    // sessions.patch and usage from a node an hour ahead stamp the session index with the database's time too.
    const index = new ClusterSessionIndex(pool);
    skew(HOUR);
    await index.patch("skew-a", { label: "patched ahead" });
    await index.addUsage("skew-b", { input: 1, output: 1, total: 2, context: 2 });
    vi.useRealTimers();
    const t1 = await dbNow();
    // Every stamp of the ledger lies in the database's own interval of this test: none is a node's.
    const { rows } = await pool.query<{ accepted_at: string; started_at: string | null; ended_at: string }>(
      "SELECT accepted_at, started_at, ended_at FROM cluster_runs WHERE session_key IN ('skew-a', 'skew-b')",
    );
    expect(rows).toHaveLength(6);
    expect(rows.filter((r) => r.started_at === null)).toHaveLength(2); // the merged ones: no turn of their own
    for (const r of rows) {
      for (const t of [r.accepted_at, r.started_at ?? r.accepted_at, r.ended_at].map(Number)) {
        expect(t).toBeGreaterThanOrEqual(t0);
        expect(t).toBeLessThanOrEqual(t1);
      }
    }
    const sessions = await pool.query<{ updated_at: string }>(
      "SELECT updated_at FROM cluster_sessions WHERE key IN ('skew-a', 'skew-b')",
    );
    expect(sessions.rows).toHaveLength(2);
    for (const s of sessions.rows) {
      expect(Number(s.updated_at)).toBeGreaterThanOrEqual(t0);
      expect(Number(s.updated_at)).toBeLessThanOrEqual(t1);
    }
  }, 120_000);

  it("steering inputs, aborts and event retention are stamped and judged by the database's clock", async () => {
    const t0 = await dbNow();
    const key = "skew-c";
    await submitAs(HOUR, "c-0", key);
    const [run] = (await claimAs("behind", -HOUR)).runs;
    expect(run?.runId).toBe("c-0");
    expect((await submitAs(-HOUR, "c-steer", key)).disposition).toBe("queued"); // collect: a follow-up
    skew(HOUR);
    expect(await queue.steer("c-0", "more", "ahead", "c-steer-2")).toBe(true);
    expect((await queue.requestAbort("c-steer"))?.status).toBe("aborted");
    vi.useRealTimers();
    await finishAs("behind", -HOUR, run as ClusterRunRecord);
    const t1 = await dbNow();
    const input = await pool.query<{ created_at: string }>(
      "SELECT created_at FROM cluster_run_inputs WHERE request_id = 'c-steer-2'",
    );
    const aborted = await pool.query<{ ended_at: string }>(
      "SELECT ended_at FROM cluster_runs WHERE run_id = 'c-steer'",
    );
    for (const t of [input.rows[0]?.created_at, aborted.rows[0]?.ended_at].map(Number)) {
      expect(t).toBeGreaterThanOrEqual(t0);
      expect(t).toBeLessThanOrEqual(t1);
    }
    // A node whose clock is two hours ahead keeps the events of a run that ended just now (kept for an hour)…
    skew(2 * HOUR);
    expect(await pruneRunEvents(pool, HOUR)).toBe(0);
    vi.useRealTimers();
    // …and a retention shorter than the time since the end deletes them, whatever the node's clock says.
    skew(-2 * HOUR);
    await realSleep(30);
    expect(await pruneRunEvents(pool, 10)).toBeGreaterThan(0);
    vi.useRealTimers();
  }, 120_000);
});
