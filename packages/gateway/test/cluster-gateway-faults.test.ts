// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Faults of a cluster of three real gateway processes under load: one gateway SIGKILLed mid-run is detected by
 * its lease within 10 s, its runs end interrupted (ledger, answers, transcript), every accepted run ends exactly
 * once, every session serves new runs, and the killed gateway restarted under its name serves again;
 * PostgreSQL stopped for 3 s under load makes the gateways wait and retry, not crash, and nothing accepted is
 * lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { startMockProvider } from "./gateway-harness.js";
import { until } from "./helpers/cluster.js";
import {
  type ClusterGatewayNode,
  clusterHome,
  dbClient,
  ledger,
  startNode,
  stopNodes,
  userTexts,
} from "./helpers/cluster-gateways.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

interface Sent {
  runId: string;
  sessionKey: string;
  message: string;
  via: number;
  accepted: boolean;
  final?: any;
  failed?: Error;
}

/**
 * Sessions each sending a chain of messages round-robin over the nodes (the next once the previous is
 * accepted), skipping nodes that `down` names. Resolves when every request has been answered or failed.
 */
function load(
  nodes: ClusterGatewayNode[],
  prefix: string,
  sessions: number,
  runs: number,
  message: (s: number, i: number) => string,
  down: Set<number>,
): { sent: Sent[]; done: Promise<void> } {
  const sent: Sent[] = [];
  const answers: Promise<void>[] = [];
  const chains = Array.from({ length: sessions }, async (_, s) => {
    for (let i = 0; i < runs; i++) {
      let via = (s + i) % nodes.length;
      while (down.has(via)) via = (via + 1) % nodes.length;
      const item: Sent = {
        runId: `${prefix}-${s}-${i}`,
        sessionKey: `agent:main:${prefix}${s}`,
        message: message(s, i),
        via,
        accepted: false,
      };
      sent.push(item);
      let onAck!: () => void;
      const acked = new Promise<void>((r) => {
        onAck = r;
      });
      answers.push(
        (nodes[via] as ClusterGatewayNode).client
          .request(
            "agent",
            { message: item.message, idempotencyKey: item.runId, sessionKey: `${prefix}${s}` },
            {
              expectFinal: true,
              onAccepted: () => {
                item.accepted = true;
                onAck();
              },
            },
          )
          .then(
            (f) => {
              item.final = f;
            },
            (err: Error) => {
              item.failed = err;
            },
          )
          .finally(onAck),
      );
      await acked;
    }
  });
  return { sent, done: Promise.all(chains).then(() => Promise.all(answers).then(() => {})) };
}

describe.skipIf(PG_MISSING)("cluster: faults of gateway processes", () => {
  let pgs: TestPostgres;
  let mock: MockServer;
  beforeAll(async () => {
    pgs = await startPostgres();
    mock = await startMockProvider();
  }, 120_000);
  afterAll(async () => {
    await mock?.close();
    await pgs?.stop();
  });

  const modelCalls = (message: string) => mock.requests.filter((r) => userTexts(r.body).at(-1) === message).length;

  it("SIGKILL of one gateway under load: lease detects it, its runs end interrupted, all runs end once, restart serves", async () => {
    const url = await pgs.createDatabase();
    const names = ["k-a", "k-b", "k-c"];
    const nodes = await Promise.all(names.map((n) => startNode(n, clusterHome(url, mock, n))));
    const db = await dbClient(url);
    try {
      const VICTIM = 1;
      const victim = nodes[VICTIM] as ClusterGatewayNode;
      const down = new Set<number>();
      const SESSIONS = 16;
      const { sent, done } = load(nodes, "kl", SESSIONS, 4, (s, i) => `kill s${s} m${i} [slow:6:40]`, down);
      // Mid-load: the victim executes runs right now.
      await until(
        "the victim to execute runs",
        async () => {
          const { rows } = await db.query("SELECT 1 FROM cluster_runs WHERE status = 'running' AND node_id = $1", [
            victim.name,
          ]);
          return (rows.length ?? 0) > 0 ? true : undefined;
        },
        120_000,
      );
      down.add(VICTIM);
      await victim.gw.kill();
      const killedAt = Date.now();
      await until(
        "the victim's runs to be taken away",
        async () => {
          const { rows } = await db.query("SELECT 1 FROM cluster_runs WHERE status = 'running' AND node_id = $1", [
            victim.name,
          ]);
          return rows.length === 0 ? true : undefined;
        },
        60_000,
      );
      const detectedMs = Date.now() - killedAt;
      expect(detectedMs).toBeLessThanOrEqual(10_000);
      await done;
      // Runs accepted by the killed gateway (their client lost its answer) run to their end elsewhere.
      await until(
        "every run to end",
        async () =>
          (await db.query("SELECT 1 FROM cluster_runs WHERE status IN ('queued', 'running')")).rows.length === 0
            ? true
            : undefined,
        120_000,
      );

      const rows = (await ledger(db)).filter((r) => r.session_key.startsWith("agent:main:kl"));
      const byId = new Map(rows.map((r) => [r.run_id, r]));
      // Every accepted run is in the ledger and ended: ok, or interrupted on the killed node.
      for (const s of sent.filter((x) => x.accepted)) expect(byId.get(s.runId)?.status).toMatch(/^(ok|interrupted)$/);
      expect(rows.every((r) => r.status === "ok" || (r.status === "interrupted" && r.node_id === victim.name))).toBe(
        true,
      );
      const interrupted = rows.filter((r) => r.status === "interrupted");
      expect(interrupted.length).toBeGreaterThan(0);
      // Exactly once: no message reached the model twice; every ok run reached it once.
      for (const s of sent) {
        const r = byId.get(s.runId);
        if (!r) continue;
        const calls = modelCalls(s.message);
        expect(calls).toBeLessThanOrEqual(1);
        if (r.status === "ok") expect(calls).toBe(1);
      }
      // Clients of the surviving gateways got the end of every run they sent, interrupted ones as errors.
      for (const s of sent.filter((x) => x.via !== VICTIM)) {
        const status = byId.get(s.runId)?.status;
        expect(s.final?.status).toBe(status === "ok" ? "ok" : "error");
      }
      // The transcript says so where a run was cut.
      for (const r of interrupted) {
        const { rows: marks } = await db.query(
          `SELECT 1 FROM cluster_transcript_entries e JOIN cluster_sessions s ON s.session_id = e.session_id
           WHERE s.key = $1 AND e.entry->>'customType' = 'tiller.run_interrupted' AND e.entry->'data'->>'runId' = $2`,
          [r.session_key, r.run_id],
        );
        expect(marks).toHaveLength(1);
      }
      // Restarted on its home under its name: it rejoins; every session serves a new run, from any node.
      const back = await startNode(victim.name, victim.home);
      nodes[VICTIM] = back;
      const again = await Promise.all(
        Array.from({ length: SESSIONS }, (_, s) =>
          (nodes[s % 3] as ClusterGatewayNode).client.request(
            "agent",
            { message: `new run s${s}`, idempotencyKey: `kl-new-${s}`, sessionKey: `kl${s}` },
            { expectFinal: true },
          ),
        ),
      );
      expect(again.map((a: any) => (a.status === "ok" ? "ok" : JSON.stringify(a)))).toEqual(again.map(() => "ok"));
      const { rows: open } = await db.query("SELECT 1 FROM cluster_runs WHERE status IN ('queued', 'running')");
      expect(open).toHaveLength(0);
      console.log(
        `[cluster test] SIGKILL: detected in ${detectedMs} ms; ${rows.length} runs, ${interrupted.length} interrupted`,
      );
    } finally {
      await db.end();
      await stopNodes(nodes);
    }
  }, 240_000);

  it("PostgreSQL stopped for 3 s under load: gateways retry, none crashes, every accepted run ends once", async () => {
    const url = await pgs.createDatabase();
    const names = ["p-a", "p-b", "p-c"];
    const nodes = await Promise.all(names.map((n) => startNode(n, clusterHome(url, mock, n))));
    const db = await dbClient(url);
    db.on("error", () => {}); // the test's own connection is cut by the stop; a new one reads afterwards
    let fresh: Awaited<ReturnType<typeof dbClient>> | undefined;
    try {
      const SESSIONS = 12;
      const { sent, done } = load(nodes, "pr", SESSIONS, 3, (s, i) => `pg s${s} m${i} [slow:4:40]`, new Set());
      await until(
        "a third of the load accepted",
        () => (sent.filter((s) => s.accepted).length > 12 ? true : undefined),
        120_000,
      );
      await pgs.pause();
      const stoppedAt = Date.now();
      await new Promise((r) => setTimeout(r, Math.max(0, 3000 - (Date.now() - stoppedAt)))); // the outage itself
      await pgs.resume();
      await done;
      for (const n of nodes)
        expect(
          n.gw.proc.exitCode,
          `${n.name} exited: ${n.gw.stderr.join("").slice(-3000)} | stdout: ${n.gw.stdout.join("").slice(-1000)}`,
        ).toBeNull();
      fresh = await dbClient(url);
      const rows = (await ledger(fresh)).filter((r) => r.session_key.startsWith("agent:main:pr"));
      const byId = new Map(rows.map((r) => [r.run_id, r]));
      const statuses: Record<string, number> = {};
      for (const s of sent) {
        const r = byId.get(s.runId);
        // Every request was accepted (the accept waited for the database) and answered.
        expect(s.accepted).toBe(true);
        expect(s.failed).toBeUndefined();
        expect(r?.status).toMatch(/^(ok|error|aborted|interrupted)$/);
        statuses[r?.status ?? "missing"] = (statuses[r?.status ?? "missing"] ?? 0) + 1;
        expect(s.final?.status).toBe(r?.status === "ok" ? "ok" : "error");
        expect(modelCalls(s.message)).toBeLessThanOrEqual(1);
      }
      expect(statuses.ok ?? 0).toBeGreaterThan(0);
      const again = await Promise.all(
        Array.from({ length: SESSIONS }, (_, s) =>
          (nodes[s % 3] as ClusterGatewayNode).client.request(
            "agent",
            { message: `after outage s${s}`, idempotencyKey: `pr-after-${s}`, sessionKey: `pr${s}` },
            { expectFinal: true },
          ),
        ),
      );
      expect(again.map((a: any) => a.status)).toEqual(again.map(() => "ok"));
      console.log(`[cluster test] PostgreSQL stopped 3 s: ${JSON.stringify(statuses)}`);
    } finally {
      await db.end().catch(() => {});
      await fresh?.end();
      await stopNodes(nodes);
    }
  }, 240_000);
});
