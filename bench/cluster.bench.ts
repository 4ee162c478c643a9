/**
 * Cluster (preview): the cost of coordinating runs through PostgreSQL with 1, 2 and 3 nodes beside the
 * single-node path (SQLite ledger + in-process lanes), same load, one run. Each run is trivial (two events,
 * no model), so what is measured is the coordination and persistence per run: accept (commit before the
 * ack), claim, events, end. Load: CLUSTER_BENCH_RUNS runs (default 600) over 100 sessions, 32 submits in flight,
 * main cap 4. Prints runs/s, p50/p99 submit→end latency and ms of wall time per run. The nodes run in this one
 * process (two cores here cap any scaling; the point is a flat cost per run and no errors as nodes are added).
 * Needs PostgreSQL server binaries (a throw-away server is started). `npm run bench -- cluster`.
 *
 * Then the product path: real gateway processes (tiller-gateway, one home each) on a loopback mock provider,
 * clients sending `agent` round-robin and waiting for the final: one single-node gateway (SQLite + JSONL)
 * beside clusters of 1, 2 and 3 gateways, same load (CLUSTER_BENCH_GATEWAY_RUNS, default 300, 24 in flight).
 * The difference per run is what the PostgreSQL path costs a real run (accept commit, claim, transcript sync,
 * event log, end record); CLUSTER_BENCH_GATEWAY_RUNS=0 skips it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClusterNode, type ClusterRunExecutor } from "../packages/gateway/src/cluster/index.js";
import { CommandLanes, sessionLane } from "../packages/gateway/src/lanes/command-lanes.js";
import { SessionStore } from "../packages/gateway/src/store/session-store.js";
import { startMockProvider } from "../packages/gateway/test/gateway-harness.js";
import {
  type ClusterGatewayNode,
  clusterHome,
  startNode,
  stopNodes,
} from "../packages/gateway/test/helpers/cluster-gateways.js";
import { PG_MISSING, startPostgres } from "../packages/gateway/test/helpers/postgres.js";

const RUNS = Number(process.env.CLUSTER_BENCH_RUNS ?? 600);
const SESSIONS = 100;
const IN_FLIGHT = 32;

interface Row {
  name: string;
  runsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** Where the time goes (cluster rows): median ms of accept (submit → ack), queue (ack → claimed), run (claimed → end recorded), and commits per run. */
  phases?: { accept: number; queue: number; run: number; commitsPerRun: number };
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function drive(name: string, runOne: (i: number) => Promise<boolean>): Promise<Row> {
  const lat: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < RUNS) {
        const i = next++;
        const s = performance.now();
        if (!(await runOne(i))) errors++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { name, runsPerSec: RUNS / secs, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

async function sqlite(): Promise<Row> {
  const home = mkdtempSync(join(tmpdir(), "tiller-bench-sqlite-"));
  const store = new SessionStore(home);
  const lanes = new CommandLanes();
  lanes.setConcurrency("main", 4);
  try {
    return await drive("single node (SQLite + lanes)", async (i) => {
      const key = `agent:main:b${i % SESSIONS}`;
      const runId = `sq-${i}`;
      store.ensure(key, "main");
      store.runAccepted(runId, key, Date.now());
      await lanes.run(sessionLane(key), () =>
        lanes.run("main", async () => {
          store.runStarted(runId, key, Date.now());
          store.runEnded({ runId, sessionKey: key, status: "ok", acceptedAt: Date.now(), summary: "ok" });
        }),
      );
      return store.getRun(runId)?.status === "ok";
    });
  } finally {
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function cluster(url: string, n: number): Promise<Row> {
  const executor: ClusterRunExecutor = async (_run, ctx) => {
    ctx.emit("assistant", { delta: "hi" });
    return { status: "ok", summary: "ok" };
  };
  const nodes = await Promise.all(
    Array.from({ length: n }, (_, k) =>
      ClusterNode.start({ url, nodeId: `bench-${n}-${k}`, executor, maxLocalRuns: 4 }),
    ),
  );
  const commits = async (): Promise<number> => {
    const { rows } = await (nodes[0] as ClusterNode).pool.query<{ n: string }>(
      "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()",
    );
    return Number(rows[0]?.n);
  };
  const accept: number[] = [];
  const queue: number[] = [];
  const run: number[] = [];
  try {
    const before = await commits();
    const row = await drive(`cluster, ${n} node${n > 1 ? "s" : ""} (PostgreSQL)`, async (i) => {
      const node = nodes[i % n] as ClusterNode;
      const runId = `pg${n}-${i}`;
      const t = Date.now();
      const sub = await node.submit({
        runId,
        sessionKey: `agent:main:b${i % SESSIONS}`,
        agentId: "main",
        message: "m",
      });
      accept.push(Date.now() - t);
      const end = await (nodes[(i + 1) % n] as ClusterNode).wait(runId, 120_000);
      if (end?.startedAt && end.endedAt) {
        queue.push(end.startedAt - sub.run.acceptedAt);
        run.push(end.endedAt - end.startedAt);
      }
      return end?.status === "ok";
    });
    // Backends report their counters in batches: give them a moment (the bench's own reads are included).
    await new Promise((r) => setTimeout(r, 1500));
    const commitsPerRun = ((await commits()) - before) / RUNS;
    return { ...row, phases: { accept: pct(accept, 50), queue: pct(queue, 50), run: pct(run, 50), commitsPerRun } };
  } finally {
    await Promise.all(nodes.map((x) => x.close()));
  }
}

const GATEWAY_RUNS = Number(process.env.CLUSTER_BENCH_GATEWAY_RUNS ?? 300);
const GATEWAY_IN_FLIGHT = 24;

/** `agent` runs through real gateway processes; the same 100 sessions for every row. */
async function gateways(name: string, nodes: ClusterGatewayNode[]): Promise<Row> {
  const lat: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: GATEWAY_IN_FLIGHT }, async () => {
      while (next < GATEWAY_RUNS) {
        const i = next++;
        const node = nodes[i % nodes.length] as ClusterGatewayNode;
        const s = performance.now();
        const final = (await node.client
          .request(
            "agent",
            { message: `bench ${i}`, idempotencyKey: `gwb-${i}`, sessionKey: `gb${i % SESSIONS}` },
            { expectFinal: true },
          )
          .catch(() => undefined)) as { status?: string } | undefined;
        if (final?.status !== "ok") errors++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { name, runsPerSec: GATEWAY_RUNS / secs, p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

async function gatewayRows(pgs: Awaited<ReturnType<typeof startPostgres>>): Promise<Row[]> {
  const mock = await startMockProvider();
  const rows: Row[] = [];
  try {
    const single = await startNode("single", clusterHome("", mock, "single", { gateway: {} }));
    try {
      rows.push(await gateways("1 gateway, single-node (SQLite + JSONL)", [single]));
    } finally {
      await stopNodes([single]);
    }
    for (const n of [1, 2, 3]) {
      const url = await pgs.createDatabase();
      const nodes = await Promise.all(
        Array.from({ length: n }, (_, k) => startNode(`gwb${n}-${k}`, clusterHome(url, mock, `gwb${n}-${k}`))),
      );
      try {
        rows.push(await gateways(`${n} gateway${n > 1 ? "s" : ""}, cluster (PostgreSQL)`, nodes));
      } finally {
        await stopNodes(nodes);
      }
    }
  } finally {
    await mock.close();
  }
  return rows;
}

function printRows(rows: Row[]): void {
  const base = rows[0] as Row;
  console.log(
    "| path | runs/s | p50 ms | p99 ms | ms/run | vs first row | errors | accept / queue / run p50 ms | commits/run |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---|---:|");
  for (const r of rows) {
    const ph = r.phases
      ? `${r.phases.accept} / ${r.phases.queue} / ${r.phases.run} | ${r.phases.commitsPerRun.toFixed(1)}`
      : "— | —";
    console.log(
      `| ${r.name} | ${r.runsPerSec.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(1000 / r.runsPerSec).toFixed(2)} | ${(base.runsPerSec / r.runsPerSec).toFixed(1)}x | ${r.errors} | ${ph} |`,
    );
  }
}

if (PG_MISSING) {
  console.log(`cluster bench skipped: ${PG_MISSING}`);
  process.exit(0);
}
const pg = await startPostgres();
try {
  const rows: Row[] = [await sqlite()];
  for (const n of [1, 2, 3]) rows.push(await cluster(await pg.createDatabase(), n));
  console.log(`Coordination only: ${RUNS} runs over ${SESSIONS} sessions, ${IN_FLIGHT} in flight, main cap 4`);
  printRows(rows);
  if (GATEWAY_RUNS > 0) {
    const gw = await gatewayRows(pg);
    console.log(
      `\nGateway processes: ${GATEWAY_RUNS} agent runs (mock model) over ${SESSIONS} sessions, ${GATEWAY_IN_FLIGHT} in flight, main cap 4`,
    );
    printRows(gw);
    const single = gw[0] as Row;
    for (const r of gw.slice(1)) {
      const cost = 1000 / r.runsPerSec - 1000 / single.runsPerSec;
      console.log(`PostgreSQL path, ${r.name}: ${cost.toFixed(2)} ms of wall time per run more than single-node`);
    }
  }
} finally {
  await pg.stop();
}
