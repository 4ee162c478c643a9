// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * `tiller gateway sessions export` in a cluster of three gateway processes: the transcript comes from
 * PostgreSQL's entries table, so the home of a node that executed none of a session's runs exports the whole
 * session, as the JSONL file SessionManager opens, with the context the executing node serves (chat.history).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeHome, removeHome } from "./gateway-harness.js";
import { type ClusterGatewayNode, type ClusterSuite, ledger, startClusterSuite } from "./helpers/cluster-gateways.js";
import { PG_MISSING } from "./helpers/postgres.js";
import { exportedContext, historyContext, runSessionsCli } from "./helpers/sessions-export.js";

describe.skipIf(PG_MISSING)("cluster: tiller gateway sessions export", () => {
  let url: string;
  let nodes: ClusterGatewayNode[] = [];
  let db: ClusterSuite["db"];
  const out = mkdtempSync(join(tmpdir(), "tiller-cluster-export-"));

  let suite: ClusterSuite | undefined;

  beforeAll(async () => {
    suite = await startClusterSuite(["gw-a", "gw-b", "gw-c"]);
    ({ url, nodes, db } = suite);
  }, 180_000);

  afterAll(async () => {
    await suite?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  it("a node that executed none of a session's runs exports it whole, with the context the session served", async () => {
    // Runs sent round-robin to the three nodes, one after another (each sees the history of the previous).
    for (let i = 0; i < 4; i++) {
      const r: any = await nodes[i % 3]?.client.request(
        "agent",
        { message: `exp m${i}`, idempotencyKey: `exp-${i}`, sessionKey: "exp" },
        { expectFinal: true },
      );
      expect(r.status).toBe("ok");
    }
    const runs = (await ledger(db)).filter((r) => r.session_key === "agent:main:exp");
    expect(runs.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
    const last = nodes.find((n) => n.name === runs.at(-1)?.node_id) as ClusterGatewayNode;
    const history: any = await last.client.request("chat.history", { sessionKey: "exp" });
    expect(history.messages.filter((m: any) => m.role === "user")).toHaveLength(4);

    // An operator's home that only names the cluster (no gateway runs on it, it executed nothing).
    const operator = makeHome({ config: { gateway: { cluster: { postgres: url } } } });
    try {
      const file = join(out, "exp.jsonl");
      const r = await runSessionsCli(operator, ["export", "exp", "--out", file]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(exportedContext(file)).toEqual(historyContext(history));
    } finally {
      removeHome(operator);
    }

    // And from the home of a running node none of whose runs were this session's, when there is one; else from
    // any home through TILLER_CLUSTER_URL (it wins over tiller.json).
    const executors = new Set(runs.map((r) => r.node_id));
    const idle = nodes.find((n) => !executors.has(n.name));
    const home = idle?.home ?? makeHome();
    try {
      const r = await runSessionsCli(home, ["export", "agent:main:exp"], idle ? {} : { TILLER_CLUSTER_URL: url });
      expect(r.code).toBe(0);
      const piped = join(out, "piped.jsonl");
      writeFileSync(piped, r.stdout);
      expect(exportedContext(piped)).toEqual(historyContext(history));
    } finally {
      if (!idle) removeHome(home);
    }

    // A session the cluster does not know: exit 1, saying so.
    const unknown = await runSessionsCli(nodes[0]?.home as string, ["export", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no session "agent:main:nope" in the cluster');
  }, 180_000);
});
