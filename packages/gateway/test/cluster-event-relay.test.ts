/**
 * A client on one node sees the runs executing on other nodes live, with gap-free seq, including events far
 * larger than NOTIFY's 8000-byte payload cap, and a subscriber that joins late replays from any cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode, type ClusterRunEvent, type ClusterRunExecutor } from "../src/cluster/index.js";
import { until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster event relay", () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("streams runs of nodes B and C to a subscriber on node A, live and gap-free", async () => {
    const url = await pg.createDatabase();
    const DELTAS = 120;
    const received = new Map<string, ClusterRunEvent[]>();
    /** Resolvers for "the subscriber on A has seen event seq 60 of this run": the run waits for it. */
    const halfway = new Map<string, () => void>();
    const executor: ClusterRunExecutor = async (run, ctx) => {
      let text = "";
      const seen = new Promise<void>((r) => halfway.set(run.runId, r));
      for (let i = 0; i < DELTAS; i++) {
        const delta = `${i}:${"x".repeat(200)} `;
        text += delta;
        ctx.emit("assistant", { text, delta }); // the cumulative text passes 8000 bytes after ~40 deltas
        if (i === DELTAS / 2) await seen; // live: the far subscriber got the first half before the run goes on
      }
      return { status: "ok", summary: "completed", result: { length: text.length } };
    };
    const a = await ClusterNode.start({ url, nodeId: "relay-a" });
    const b = await ClusterNode.start({ url, nodeId: "relay-b", executor });
    const c = await ClusterNode.start({ url, nodeId: "relay-c", executor });
    const unsubs: Array<() => void> = [];
    try {
      const sessions = Array.from({ length: 6 }, (_, i) => `agent:main:relay${i}`);
      for (const key of sessions) {
        unsubs.push(
          await a.subscribe(key, (e) => {
            const list = received.get(e.runId) ?? [];
            list.push(e);
            received.set(e.runId, list);
            if (e.seq === DELTAS / 2 + 2) halfway.get(e.runId)?.();
          }),
        );
      }
      const runIds: string[] = [];
      for (const [i, key] of sessions.entries()) {
        for (let j = 0; j < 2; j++) {
          const runId = `relay-${i}-${j}`;
          runIds.push(runId);
          await a.submit({ runId, sessionKey: key, agentId: "main", message: "stream" });
        }
      }
      const ends = await Promise.all(runIds.map((id) => a.wait(id, 120_000)));
      expect(ends.map((e) => e?.status)).toEqual(runIds.map(() => "ok"));
      expect(new Set(ends.map((e) => e?.nodeId))).toEqual(new Set(["relay-b", "relay-c"]));
      await until("every run's last event on node A", () =>
        runIds.every((id) => received.get(id)?.at(-1)?.data && (received.get(id)?.length ?? 0) === DELTAS + 2)
          ? true
          : undefined,
      );
      for (const id of runIds) {
        const events = received.get(id) ?? [];
        expect(events.map((e) => e.seq)).toEqual(Array.from({ length: DELTAS + 2 }, (_, k) => k + 1));
        expect(events[0]).toMatchObject({ stream: "lifecycle", data: { phase: "start" } });
        expect(events.at(-1)).toMatchObject({ stream: "lifecycle", data: { phase: "end", status: "ok" } });
        const last = events.at(-2)?.data as { text: string };
        const result = ends.find((e) => e?.runId === id)?.result as { length: number } | undefined;
        expect(last.text.length).toBe(result?.length);
        expect(last.text.length).toBeGreaterThan(8000);
      }
      // A late subscriber replays a session's history from cursor 0, both runs in order.
      const replay: ClusterRunEvent[] = [];
      unsubs.push(await b.subscribe(sessions[3] as string, (e) => replay.push(e), 0));
      await until("the replay", () => (replay.length === 2 * (DELTAS + 2) ? true : undefined));
      expect(replay.map((e) => `${e.runId}#${e.seq}`)).toEqual(
        ["relay-3-0", "relay-3-1"].flatMap((id) => Array.from({ length: DELTAS + 2 }, (_, k) => `${id}#${k + 1}`)),
      );
    } finally {
      for (const u of unsubs) u();
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  }, 180_000);

  it("events of ended runs are pruned after the retention time; live runs keep theirs", async () => {
    const url = await pg.createDatabase();
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const node = await ClusterNode.start({
      url,
      nodeId: "prune",
      eventRetention: { keepMs: 0, everyMs: 100 },
      executor: async (run, ctx) => {
        ctx.emit("assistant", { delta: run.runId });
        if (run.runId === "live") await held;
        return { status: "ok", summary: "done" };
      },
    });
    const count = async (runId: string): Promise<number> => {
      const { rows } = await node.pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM cluster_run_events WHERE run_id = $1",
        [runId],
      );
      return Number(rows[0]?.n);
    };
    try {
      await node.submit({ runId: "done", sessionKey: "agent:main:p1", agentId: "main", message: "x" });
      await node.submit({ runId: "live", sessionKey: "agent:main:p2", agentId: "main", message: "x" });
      expect((await node.wait("done", 60_000))?.status).toBe("ok");
      await until("the live run's events to be written", async () => ((await count("live")) >= 2 ? true : undefined));
      await until("the ended run's events to be pruned", async () => ((await count("done")) === 0 ? true : undefined));
      expect(await count("live")).toBeGreaterThanOrEqual(2);
      expect((await node.get("done"))?.status).toBe("ok"); // the ledger stays
    } finally {
      release();
      await node.close();
    }
  }, 120_000);
});
